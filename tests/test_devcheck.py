"""`python -m autograder dev-check`: passes on the kit, and names what broke on a damaged copy of it."""
import re
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import Cli

from autograder.maintainer.devcheck import (
    check_files,
    check_points,
    check_requires,
    check_stubs,
    check_suites,
    check_teaching,
    dev_check,
)
from autograder.course.manifest import load_course

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def kit(tmp_path: Path) -> Path:
    """A copy of the kit a test may damage: the grader, reference, both packages and the manifest."""
    for name in ("autograder", "reference", "solutions", "exercises"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "course.yaml", tmp_path)
    return tmp_path


def edit(path: Path, old: str, new: str) -> None:
    """Replace the first occurrence of old in the file (which must hold it)."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_passes_on_the_kit(cli: Cli) -> None:
    done = cli(ROOT, "dev-check")  # in this process: the command's report, not the process, is tested
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(line.startswith("ok ") for line in lines[:-1]) and re.search(r"points: total \d+", done.stdout)
    assert {"stubs fail", "solutions pass", "stubs in sync", "requires"} <= {
        line[8:].split(":")[0] for line in lines[:-1]
    }
    assert lines[-1] == f"dev-check: {len(lines) - 1} of {len(lines) - 1} checks passed"


def test_fails_with_one_clear_line_when_exercises_drift(kit: Path, cli: Cli) -> None:
    edit(kit / "exercises" / "q03_attention.py", "    raise NotImplementedError\n", "    return q, k\n")
    done = cli(kit, "dev-check")  # the copy's files, read by this process's grader (the same code)
    assert done.returncode == 1
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert any(line.startswith("FAILED  stubs in sync: exercises/q03_attention.py differs") for line in failed), (
        done.stdout
    )
    assert "dev-check:" in done.stdout.splitlines()[-1] and "stubs in sync" in done.stdout.splitlines()[-1]


def test_requires_must_match_the_imports(kit: Path) -> None:
    manifest = yaml.safe_load((kit / "course.yaml").read_text())
    manifest["questions"][2]["requires"] = [1]  # question 3 imports questions 1 and 2
    (kit / "course.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    passed, detail = check_requires(load_course(kit))
    assert not passed and "question 3 requires [1] but imports [1, 2]" in detail


def test_missing_function_suite_and_stub_are_named(kit: Path) -> None:
    edit(kit / "solutions" / "q04_heads.py", "def combine_heads(", "def merge_heads(")
    (kit / "autograder" / "suites" / "test_q06_additive.py").unlink()
    (kit / "exercises" / "q02_scaled_scores.py").unlink()
    course = load_course(kit)
    passed, detail = check_files(course)
    assert not passed and "solutions/q04_heads.py does not define combine_heads" in detail
    assert "exercises/q02_scaled_scores.py: missing" in detail
    assert check_suites(course) == (False, "autograder/suites/test_q06_additive.py: missing")
    passed, detail = check_stubs(course)
    assert not passed and "exercises/q02_scaled_scores.py is missing" in detail and "q04_heads.py differs" in detail


def test_hints_self_test_and_points_are_required(kit: Path) -> None:
    manifest = yaml.safe_load((kit / "course.yaml").read_text())
    first = manifest["questions"][0]
    first["selftest"], first["points"] = first["selftest"][:1], 0
    del manifest["questions"][1]["hint"]
    (kit / "course.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    course = load_course(kit)
    passed, detail = check_teaching(course)
    assert not passed and "question 1 has 1 self-test entries with answers (at least 2)" in detail
    assert "question 2 has no hint" in detail
    passed, detail = check_points(course)
    assert not passed and "question 1 is worth 0 points" in detail


def test_outside_the_instructor_repository_it_says_why(kit: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(kit / "solutions")
    assert dev_check(load_course(kit)) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("FAILED") and "no solutions/" in out[0]
