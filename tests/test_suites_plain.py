"""The hidden suites are plain pytest: `pytest autograder/suites --package solutions` passes, `--package exercises`
fails.

Each run is a real `python -m pytest` in a subprocess, with the options a course author would use
(-k, -x, --junitxml), read back from its JUnit XML report.
"""
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from autograder.course.manifest import load_course

ROOT = Path(__file__).resolve().parent.parent
COURSE = load_course(ROOT)
SUITES = sorted((ROOT / "autograder" / "suites").glob("test_q*.py"))


def run_suites(tmp_path: Path, *options: str) -> tuple[int, list[ET.Element]]:
    """Exit status and the <testcase> elements of `python -m pytest autograder/suites OPTIONS --junitxml=...`."""
    report = tmp_path / "report.xml"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "autograder/suites",
            "-p",
            "no:cacheprovider",
            "-q",
            *options,
            f"--junitxml={report}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert report.exists(), done.stdout[-2000:] + done.stderr[-2000:]
    return done.returncode, list(ET.parse(report).getroot().iter("testcase"))


def outcome(case: ET.Element) -> str:
    """passed, failed, error or skipped, as JUnit XML records it."""
    for kind in ("failure", "error", "skipped"):
        if case.find(kind) is not None:
            return {"failure": "failed"}.get(kind, kind)
    return "passed"


def test_every_question_has_a_pytest_suite() -> None:
    assert [p.name[5:8] for p in SUITES] == [f"q{n:02d}" for n in COURSE.numbers]


def test_solutions_pass_every_test(tmp_path: Path) -> None:
    status, cases = run_suites(tmp_path, "--package", "solutions")
    failed = [(case.get("classname"), case.get("name")) for case in cases if outcome(case) != "passed"]
    assert status == 0 and not failed, failed
    assert {case.get("classname").rsplit(".", 1)[-1] for case in cases} == {p.stem for p in SUITES}
    assert len(cases) >= 200


def test_exercises_fail_every_graded_test(tmp_path: Path) -> None:
    status, cases = run_suites(tmp_path, "--package", "exercises", "-m", "not ungraded")
    passed = [(case.get("classname"), case.get("name")) for case in cases if outcome(case) != "failed"]
    assert status == 1 and cases and not passed, passed
    assert all("NotImplementedError" in case.find("failure").get("message", "") for case in cases)


@pytest.mark.parametrize("options", [("-k", "prefix_average", "-x"), ("-k", "test_causal_mask")])
def test_selection_options_work(tmp_path: Path, options: tuple[str, ...]) -> None:
    status, cases = run_suites(tmp_path, "--package", "exercises", *options)
    assert status == 1
    names = {case.get("name").split("[")[0] for case in cases}
    if "-x" in options:
        assert len(cases) == 1 and names == {"test_prefix_average"}
    else:
        assert names == {"test_causal_mask"} and len(cases) == 5
