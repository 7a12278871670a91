"""The Gradescope autograder zip, run as Gradescope runs it, and its results.json checked against the specification.

The zip is built once and unpacked into three temporary "/autograder" folders laid out as Gradescope lays them
out (source/ holding the zip's contents, submission/, results/). The zip's own run_autograder then grades the partly
wrong and the looping ones, at the same time, with this venv's python on PATH (setup.sh is not run: it installs what
this venv already has), and meanwhile the entry point it calls (gradescope.run) grades the correct one in this process,
in the session's sandbox (the zip's kit grades all ten questions in the partly wrong run):

- correct: the solutions/ modules at the top level of the submission;
- partly wrong: an exercises/ folder, solutions/ with tests/corpus/wrong/q02_scale_by_d.py as question 2;
- looping: a notebook of the nbgrader assignment whose question 1 is tests/hostile/loop_forever.py (the copy's
  course.yaml gives question 1 a 2 s limit), question 2 correct but printing its inputs, question 3 correct in a
  cell that lost its nbgrader metadata, and no answer cell for the other questions.

Gradescope's specification: https://gradescope-autograders.readthedocs.io/en/latest/specs/
"""
import base64
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import threading
import time
import zipfile
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from conftest import Kept

from autograder.classroom.gradescope import (
    RUN_AUTOGRADER,
    SETUP_SH,
    Found,
    check_scores,
    prepare,
    results_json,
    shares,
    unpacked,
    write_zip,
)
from autograder.course.manifest import decode_answer, load_course
from autograder.course.results import CaseResult, QuestionResult, Report, missing_file
from autograder.nbgrader.course import drop_relative_imports
from autograder.nbgrader.package import marker

ROOT = Path(__file__).resolve().parent.parent
COURSE = load_course(ROOT)
LOOP_LIMIT = 2  # seconds: question 1's limit in the looping submission's copy of course.yaml
ECHO = "ECHO-OF-THE-INPUTS-5d2e"  # what question 2's answer prints in the looping submission
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
TOP_KEYS = {
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
}
TEST_KEYS = {
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
}


# -- building the three /autograder folders ---------------------------------------------------------------


def _cell(source: str, grade_id: str | None) -> dict:
    metadata = (
        {"nbgrader": {"grade_id": grade_id, "solution": True, "grade": False, "locked": False, "schema_version": 3}}
        if grade_id
        else {}
    )
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": metadata,
        "outputs": [],
        "source": source.splitlines(keepends=True),
    }


def looping_notebook() -> dict:
    """Question 1 loops forever; question 2 is right but prints its inputs; question 3 is right, its metadata lost."""
    q1, q2, q3 = (COURSE.question(n) for n in (1, 2, 3))
    echo = (
        f"\n\n_scaled_scores = scaled_scores\n\n\ndef scaled_scores(q, k):\n    print({ECHO!r}, q.tolist())\n"
        "    return _scaled_scores(q, k)\n"
    )
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Attention, built by hand\n"]},
        _cell(
            marker(q1) + "\n" + drop_relative_imports((ROOT / "tests/hostile/loop_forever.py").read_text()),
            "q01_answer",
        ),
        _cell(
            marker(q2) + "\n" + drop_relative_imports((ROOT / "solutions/q02_scaled_scores.py").read_text()) + echo,
            "q02_answer",
        ),
        _cell(marker(q3) + "\n" + drop_relative_imports((ROOT / "solutions/q03_attention.py").read_text()), None),
    ]
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _short_limit(course_yaml: Path) -> None:
    """Question 1's time_limit set to LOOP_LIMIT in this copy of course.yaml (the repository's stays as it is)."""
    text = course_yaml.read_text(encoding="utf-8")
    first = text.index("slug: causal_mask")
    at = text.index("time_limit:", first)
    end = text.index("\n", at)
    course_yaml.write_text(text[:at] + f"time_limit: {LOOP_LIMIT}" + text[end:], encoding="utf-8")


def autograder_root(base: Path, archive: Path) -> Path:
    """A folder laid out as Gradescope lays out /autograder: the zip in source/, run_autograder copied beside it."""
    root = base / "autograder"
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(root / "source")
        for info in opened.infolist():  # extractall drops the modes; Gradescope's build keeps run_autograder executable
            mode = info.external_attr >> 16
            if mode:
                os.chmod(root / "source" / info.filename, mode & 0o777)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    return root


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The autograder zip of the kit."""
    out = tmp_path_factory.mktemp("zip") / "autograder.zip"
    write_zip(COURSE, out)
    return out


def run_here(root: Path, sandbox: object) -> tuple[int, str]:
    """What run_autograder runs (gradescope.run on root, from the zip's kit folder) in this process, grading in sandbox,
    left open: the exit status and what it printed."""
    from autograder.classroom import gradescope

    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(printed):
        patch.setattr("autograder.sandbox.start_sandbox", lambda: Kept(sandbox))
        patch.chdir(root / "source" / "kit")
        status = gradescope.run(root)
    return status, printed.getvalue()


@pytest.fixture(scope="module")
def runs(archive: Path, tmp_path_factory: pytest.TempPathFactory, session_sandbox: object) -> dict[str, dict]:
    """The three submissions graded at once, two by the zip's run_autograder and the correct one by its entry point in
    this process: results.json, stdout, exit status, seconds."""
    roots = {name: autograder_root(tmp_path_factory.mktemp(name), archive) for name in ("correct", "wrong", "looping")}
    for path in sorted((ROOT / "solutions").glob("q*.py")):
        shutil.copy(path, roots["correct"] / "submission" / path.name)
    package = roots["wrong"] / "submission" / "exercises"
    shutil.copytree(ROOT / "solutions", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "tests/corpus/wrong/q02_scale_by_d.py", package / "q02_scaled_scores.py")
    (roots["looping"] / "submission" / "attention.ipynb").write_text(json.dumps(looping_notebook()), encoding="utf-8")
    _short_limit(roots["looping"] / "source" / "kit" / "course.yaml")

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    started = time.monotonic()
    processes = {
        name: subprocess.Popen(
            [str(root / "run_autograder")],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**env, "AUTOGRADER_ROOT": str(root)},
        )
        for name, root in roots.items()
        if name != "correct"
    }
    done: dict[str, tuple[str, int, float]] = {}

    def finish(name: str, process: subprocess.Popen) -> None:
        """Read a run's output as it comes (a full pipe would hold it) and note when it ended."""
        stdout, _ = process.communicate(timeout=300)
        done[name] = (stdout, process.returncode, time.monotonic() - started)

    readers = [threading.Thread(target=finish, args=item) for item in processes.items()]
    for reader in readers:
        reader.start()
    status, stdout = run_here(roots["correct"], session_sandbox)
    done["correct"] = (stdout, status, time.monotonic() - started)
    for reader in readers:
        reader.join()
    results = {}
    for name, (stdout, status, seconds) in done.items():
        results[name] = {
            "stdout": stdout,
            "status": status,
            "seconds": seconds,
            "text": (roots[name] / "results" / "results.json").read_text(encoding="utf-8"),
        }
        results[name]["results"] = json.loads(results[name]["text"])
    return results


# -- Gradescope's specification -------------------------------------------------------------------------


def validate(results: dict) -> dict[int, list[dict]]:
    """Assert that results follows Gradescope's results.json specification and this kit's promises; tests by
    question."""
    assert set(results) <= TOP_KEYS, set(results) - TOP_KEYS
    assert isinstance(results["score"], (int, float)) and not isinstance(results["score"], bool)
    assert isinstance(results["execution_time"], int) and results["execution_time"] >= 0
    assert isinstance(results["output"], str) and results["output"]
    assert results.get("output_format", "simple_format") in FORMATS
    assert results["visibility"] == "visible" and results["stdout_visibility"] in VISIBILITIES
    assert isinstance(results["tests"], list) and results["tests"]
    by_question: dict[int, list[dict]] = {}
    for test in results["tests"]:
        assert set(test) <= TEST_KEYS, set(test) - TEST_KEYS
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["output"], str) and test["output"]
        for key in ("score", "max_score"):
            assert isinstance(test[key], (int, float)) and not isinstance(test[key], bool), test
        assert 0 <= test["score"] <= test["max_score"], test
        assert test["visibility"] == "visible"
        assert test["status"] in ("passed", "failed")
        assert (test["status"] == "passed") == (test["score"] == test["max_score"] and test["output"] == "passed"), test
        assert (
            isinstance(test["number"], str)
            and isinstance(test["tags"], list)
            and all(isinstance(t, str) for t in test["tags"])
        )
        by_question.setdefault(int(test["number"].split(".")[0]), []).append(test)
    assert sorted(by_question) == COURSE.numbers
    for number, tests in by_question.items():
        assert round(sum(t["max_score"] for t in tests), 2) == COURSE.question(number).points
    assert round(sum(t["max_score"] for t in results["tests"]), 2) == COURSE.max_score
    assert round(sum(t["score"] for t in results["tests"]), 2) == results["score"], (
        "the total is not the sum of the tests"
    )
    return by_question


def question_score(tests: list[dict]) -> float:
    """The score of a question: the sum of its checks."""
    return round(sum(t["score"] for t in tests), 2)


# -- the zip ----------------------------------------------------------------------------------------------


def test_zip_layout(archive: Path) -> None:
    with zipfile.ZipFile(archive) as opened:
        names = opened.namelist()
        modes = {info.filename: info.external_attr >> 16 for info in opened.infolist()}
    assert {"setup.sh", "run_autograder"} <= set(names)  # at the root, as the specification requires
    assert modes["run_autograder"] & stat.S_IXUSR and modes["setup.sh"] & stat.S_IXUSR
    for name in (
        "kit/course.yaml",
        "kit/pyproject.toml",
        "kit/README.md",
        "kit/autograder/__main__.py",
        "kit/autograder/classroom/gradescope.py",
        "kit/autograder/sandbox/linux/worker.py",
        "kit/reference/__init__.py",
        *(f"kit/autograder/suites/test_{q.module}.py" for q in COURSE.questions),
    ):
        assert name in names, name
    assert not [n for n in names if n.split("/")[1:2] in (["solutions"], ["exercises"], ["tests"])]
    assert not [
        n
        for n in names
        if "__pycache__" in n or n.endswith(".pyc") or ("/." in n and n != "kit/autograder/suites/.course-secret")
    ]
    assert all(n in ("setup.sh", "run_autograder") or n.startswith("kit/") for n in names)


def test_setup_installs_the_cpu_torch_then_the_kit() -> None:
    lines = [line for line in SETUP_SH.splitlines() if "pip install" in line and not line.lstrip().startswith("#")]
    assert len(lines) == 2
    assert "torch==2.13.0" in lines[0] and "--index-url https://download.pytorch.org/whl/cpu" in lines[0]
    assert lines[1].split()[-1] == '"${AUTOGRADER_ROOT:-/autograder}/source/kit"'
    assert SETUP_SH.startswith("#!/usr/bin/env bash\n") and "set -euo pipefail" in SETUP_SH
    assert RUN_AUTOGRADER.startswith("#!/usr/bin/env bash\n") and "AUTOGRADER_ROOT:-/autograder" in RUN_AUTOGRADER


def test_setup_honours_autograder_root(tmp_path: Path) -> None:
    """setup.sh installs the kit from $AUTOGRADER_ROOT/source/kit, as run_autograder reads it (a logging python3
    stands in)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "python3.log"
    fake = bin_dir / "python3"
    fake.write_text(f'#!/usr/bin/env bash\necho "$*" >> {log}\n', encoding="utf-8")
    fake.chmod(0o755)
    script = tmp_path / "setup.sh"
    script.write_text(SETUP_SH, encoding="utf-8")
    root = tmp_path / "ag"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "AUTOGRADER_ROOT": str(root)}
    subprocess.run(["bash", str(script)], env=env, check=True, timeout=30)
    installs = [line for line in log.read_text(encoding="utf-8").splitlines() if line.startswith("-m pip install")]
    assert installs[-1] == f"-m pip install {root}/source/kit", installs


# -- the three runs ---------------------------------------------------------------------------------------


def test_correct_submission_gets_full_marks_and_every_self_test_answer(runs: dict[str, dict]) -> None:
    run = runs["correct"]
    assert run["status"] == 0, run["stdout"]
    results = run["results"]
    tests = validate(results)
    assert results["score"] == COURSE.max_score
    assert all(t["status"] == "passed" for t in results["tests"])
    for question in COURSE.questions:  # the answers of every question at full marks, as `check` shows them
        answer = decode_answer(question.selftest[0].answer)
        assert " ".join(answer.split()[:6]) in " ".join(results["output"].split()).replace("&gt;", ">").replace(
            "&lt;", "<"
        )
        assert question_score(tests[question.number]) == question.points
    assert results["extra_data"]["graded"] == "the modules at the top level of your submission"


def test_partly_wrong_submission_loses_only_what_is_wrong(runs: dict[str, dict]) -> None:
    run = runs["wrong"]
    assert run["status"] == 0, run["stdout"]
    results = run["results"]
    tests = validate(results)
    assert question_score(tests[2]) == 5  # q02_scale_by_d: one check of 3 points fails
    failed = [t for t in tests[2] if t["status"] == "failed"]
    assert (
        len(failed) == 1 and "sqrt(d)" in failed[0]["name"] and "differ from the expected values" in failed[0]["output"]
    )
    assert "smallest failing input" in failed[0]["output"] and "tensor(" not in results["output"] + failed[0]["output"]
    users = {2}  # the questions that run the student's scaled_scores (through `requires`) may lose points too
    for question in COURSE.questions:
        if users & set(question.requires):
            users.add(question.number)
    assert users == {2, 3, 5, 9, 10}
    for number in set(COURSE.numbers) - users:
        assert question_score(tests[number]) == COURSE.question(number).points, number
    assert results["score"] < 100
    assert "Self-test for question 2" not in results["output"] and "Self-test for question 1" in results["output"]
    assert "the folder exercises/ of your submission" in results["extra_data"]["graded"]


def test_looping_notebook_costs_its_question_only(runs: dict[str, dict]) -> None:
    run = runs["looping"]
    assert run["status"] == 0, run["stdout"]
    results = run["results"]
    tests = validate(results)
    # prefix_average's loop costs its own 3 points; causal_mask and mask_scores, right, run on
    assert question_score(tests[1]) == 5
    reason = tests[1][0]["output"]
    assert "\n" not in reason and f"stopped after {LOOP_LIMIT} s" in reason
    assert f"stopped after {LOOP_LIMIT} s" in results["output"]
    assert question_score(tests[2]) == 8 and question_score(tests[3]) == 12  # q03's cell is found by its marker line
    for number in COURSE.numbers[3:]:
        assert question_score(tests[number]) == 0
        assert all("has no answer cell for question" in t["output"] for t in tests[number])
    assert results["score"] == 25
    assert results["extra_data"] == {
        "graded": "the notebook attention.ipynb",
        "missing": COURSE.numbers[3:],
        "max_score": COURSE.max_score,
    }
    # what the student's code prints never reaches results.json (it could show the inputs)...
    assert ECHO not in run["text"]
    assert ECHO in run["stdout"]  # ...only run_autograder's stdout, which only instructors see
    assert run["seconds"] < 120


def test_runs_are_quick(runs: dict[str, dict]) -> None:
    assert max(run["seconds"] for run in runs.values()) < 120
    assert all(run["results"]["execution_time"] < 120 for run in runs.values())


# -- the parts, without a sandbox -------------------------------------------------------------------------


@pytest.mark.parametrize(("points", "weights"), [(14, [2, 6, 1, 2, 1, 1]), (10, [1, 1, 1]), (8, [3, 2, 1.5, 1.5])])
def test_check_scores_add_up_to_the_points_and_to_the_question_score(points: float, weights: list[float]) -> None:
    assert sum(shares(points, weights)) == points * 100  # question 5: 14 points over 13 weights
    for mask in range(1 << len(weights)):
        tests = [
            CaseResult(f"check {i}", bool(mask >> i & 1), "" if mask >> i & 1 else "wrong", w)
            for i, w in enumerate(weights)
        ]
        result = QuestionResult(5, "q5", float(points), "failed", tests)
        pairs = check_scores(result)
        assert sum(score for score, _ in pairs) == round(result.score * 100)  # the score `check` gives, to the cent
        assert sum(top for _, top in pairs) == points * 100
        assert all(score == (top if test.passed else 0) and top >= 0 for (score, top), test in zip(pairs, tests))


def test_prepare_finds_the_modules_where_students_put_them(tmp_path: Path) -> None:
    submission = tmp_path / "submission"
    nested = submission / "attention-kit-main" / "exercises"
    nested.mkdir(parents=True)
    (submission / "__MACOSX" / "exercises").mkdir(parents=True)
    for path in sorted((ROOT / "solutions").glob("q0[1-4]*.py")):
        shutil.copy(path, nested / path.name)
        shutil.copy(path, submission / "__MACOSX" / "exercises" / path.name)
    (nested / "q05_multihead.py").symlink_to(ROOT / "solutions" / "q05_multihead.py")  # a link is not read
    (nested / "helpers.py").write_text("TWO = 2\n", encoding="utf-8")  # graded with them, as `check` would
    found = prepare(COURSE, submission, tmp_path / "package")
    assert found.description == "the modules at the folder attention-kit-main/exercises/ of your submission"
    expected = ["__init__.py", "helpers.py", *sorted(p.name for p in nested.glob("q0[1-4]*.py"))]
    assert sorted(p.name for p in (tmp_path / "package").iterdir()) == expected
    assert sorted(found.missing) == COURSE.numbers[4:]
    # as check words it
    assert found.missing[5] == missing_file(
        "q05_multihead.py", "the folder attention-kit-main/exercises/ of your submission"
    )


def test_prepare_explains_an_empty_or_unreadable_submission(tmp_path: Path) -> None:
    submission = tmp_path / "submission"
    submission.mkdir()
    (submission / "attention.ipynb").write_text("{not json", encoding="utf-8")
    found = prepare(COURSE, submission, tmp_path / "package")
    assert found.description == "nothing" and sorted(found.missing) == COURSE.numbers
    assert "attention.ipynb cannot be read as a notebook" in found.problem and "No exercise module" in found.problem
    report = Report(
        [
            QuestionResult(
                q.number, q.title, q.points, "error", [CaseResult("a check", False, "missing", 1.0)], reason="missing"
            )
            for q in COURSE.questions
        ]
    )
    results = results_json(COURSE, report, found, 3.2)
    assert results["score"] == 0 and results["execution_time"] == 3
    assert "No exercise module" in results["output"] and all(
        "q0" in t["output"] or "q10" in t["output"] for t in results["tests"]
    )


def test_results_json_is_html_safe_and_keeps_output_out(tmp_path: Path) -> None:
    found = Found("the modules at the top level of your submission")
    tests = [CaseResult("check <b>", False, "T > max_len and x < 0", 1.0), CaseResult("other", True, "", 1.0)]
    question = QuestionResult(1, "Causal mask", 8.0, "failed", tests, output=base64.b64encode(b"inputs").decode())
    results = results_json(COURSE, Report([question]), found, 0.4)
    assert results["output_format"] == "html" and results["output"].startswith("<pre>")
    assert "<b>" not in results["output"] and "&lt;b&gt;" in results["output"] and "T &gt; max_len" in results["output"]
    assert results["tests"][0]["output"] == "T > max_len and x < 0"  # test outputs are plain text, shown as they are
    assert question.output not in json.dumps(results)
    assert [t["score"] for t in results["tests"]] == [0, 4] and results["score"] == 4
    assert re.fullmatch(r"1\.[12]", results["tests"][1]["number"])


def test_tags_describe_each_check_not_its_question() -> None:
    """Gradescope groups tests by their tags: a passed check of a failed question is tagged passed, a failed one its
    mistake."""
    tests = [
        CaseResult("right", True, "", 1.0),
        CaseResult("wrong", False, "divides by d", 1.0, mistake="q02.scale_by_d"),
    ]
    question = QuestionResult(2, "Scaled scores", 8.0, "failed", tests)
    results = results_json(COURSE, Report([question]), Found("the modules at the top level of your submission"), 0.1)
    assert [t["tags"] for t in results["tests"]] == [
        ["question 2", "passed"],
        ["question 2", "failed", "q02.scale_by_d"],
    ]


def test_a_zipped_submission_is_unpacked_as_gradescope_unpacks_it(tmp_path: Path) -> None:
    """A zip at the submission's top level (a local run given what a student uploads) is graded as its contents."""
    submission = tmp_path / "submission"
    submission.mkdir()
    with zipfile.ZipFile(submission / "my-work.zip", "w") as archive:
        for path in sorted((ROOT / "solutions").glob("q0[1-3]*.py")):
            archive.write(path, f"exercises/{path.name}")
        archive.writestr("../escaped.py", "X = 1\n")  # never written outside the submission
    (tmp_path / "scratch").mkdir()
    found = prepare(COURSE, unpacked(submission, tmp_path / "scratch"), tmp_path / "package")
    assert found.description == "the modules at the folder exercises/ of your submission"
    assert sorted(found.missing) == COURSE.numbers[3:]
    assert not list(tmp_path.rglob("escaped.py"))
    assert unpacked(tmp_path / "package", tmp_path / "scratch") == tmp_path / "package"  # no zip: graded where it is


def test_without_the_kernel_walls_a_submission_is_not_graded_unless_the_zip_allows_it(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session_sandbox: object
) -> None:
    """Fail closed, as `grade` does: where seccomp or Landlock cannot be put up, run_autograder grades nothing and
    says so in results.json's output and in every question's; a zip built with --allow-weak-isolation grades (the
    session's sandbox lent), and says so there too."""
    import autograder.engine.run as engine_run
    import autograder.sandbox as sandbox_module
    from autograder.classroom import gradescope

    monkeypatch.setattr(sandbox_module, "missing_walls", lambda: ["seccomp", "Landlock"])
    monkeypatch.setattr(sandbox_module, "start_sandbox", lambda: Kept(session_sandbox))
    monkeypatch.delenv(gradescope.ALLOW_WEAK, raising=False)
    root = autograder_root(tmp_path / "refused", archive)
    for path in sorted((ROOT / "solutions").glob("q*.py")):
        shutil.copy(path, root / "submission" / path.name)
    assert gradescope.run(root) == 1
    refused = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert refused["score"] == 0 and "cannot put up seccomp, Landlock" in refused["output"]
    assert sorted(int(t["number"]) for t in refused["tests"]) == COURSE.numbers
    assert all(t["score"] == 0 and "Not graded" in t["output"] for t in refused["tests"])

    allowed = tmp_path / "allowed.zip"
    write_zip(COURSE, allowed, allow_weak_isolation=True)
    with zipfile.ZipFile(allowed) as opened:
        assert f"export {gradescope.ALLOW_WEAK}=1" in opened.read("run_autograder").decode()
    graded = [
        Report(
            [
                QuestionResult(q.number, q.title, q.points, "passed", [CaseResult("check", True, "", q.points)])
                for q in COURSE.questions
            ]
        )
    ]

    def grade_many(course, submissions, sandbox=None, hidden=()):
        sandbox.close()
        return graded

    monkeypatch.setattr(engine_run, "grade_many", grade_many)
    monkeypatch.setenv(gradescope.ALLOW_WEAK, "1")
    root = autograder_root(tmp_path / "allowed", allowed)
    assert gradescope.run(root) == 0
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == COURSE.max_score and results["extra_data"]["weak_isolation"] == ["seccomp", "Landlock"]
    assert "Graded with weak isolation" in results["output"]
    assert all("Graded with weak isolation" in t["output"] for t in results["tests"])
