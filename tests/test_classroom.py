"""GitHub Classroom: the release's workflow grades each question on every push, with points as Classroom reads them.

The workflow is read from a real release. Its grading commands are run here as GitHub Classroom's command grader runs
them: the step's own `command` string, through the shell, in the checkout, with the grader's small environment (the
Python on PATH is this venv's, standing in for the workflow's install step), points = max-score on exit status 0.
"""
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from autograder.course.manifest import ManifestError, load_course
from autograder.maintainer.github_classroom import GRADER, REPORTER, WORKFLOW, workflow_text
from autograder.maintainer.release import write_release

ROOT = Path(__file__).resolve().parent.parent
COURSE = load_course(ROOT)
STEP_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")  # what GitHub Actions accepts as a step id
COMMAND = re.compile(r"python -m autograder check (\d+)")
RESULT = re.compile(r"\$\{\{\s*steps\.([A-Za-z0-9_-]+)\.outputs\.result\s*\}\}")
BIN = Path(sys.executable).parent  # this venv's python, as `python` on the grader's PATH


def git(repo: Path, *args: str) -> str:
    """Stdout of a git command in repo (fails the test on error)."""
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


def grader_env() -> dict[str, str]:
    """The environment autograding-command-grader gives its commands: these variables and no others."""
    return {"PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")]), "FORCE_COLOR": "true",
            "DOTNET_CLI_HOME": "/tmp", "DOTNET_NOLOGO": "true", "HOME": os.environ.get("HOME", "/tmp")}


def run_step(step: dict, checkout: Path) -> tuple[int, str]:
    """Run one grading step's command as the command grader does (shell, step timeout); exit status and output."""
    done = subprocess.run(step["with"]["command"], shell=True, cwd=checkout, env=grader_env(), capture_output=True,
                          text=True, timeout=float(step["with"]["timeout"]) * 60, check=False)
    return done.returncode, done.stdout + done.stderr


def points(step: dict, status: int) -> int:
    """The points the command grader reports for a step that exited with status: max-score or nothing."""
    return int(step["with"]["max-score"]) if status == 0 else 0


@pytest.fixture(scope="module")
def checkouts(release_clones: dict[str, Path]) -> dict[str, Path]:
    """A release of the kit, and a clone of each of its branches (shared with test_release)."""
    return release_clones


@pytest.fixture(scope="module")
def workflow(checkouts: dict[str, Path]) -> dict:
    """The release's workflow, parsed."""
    return yaml.safe_load((checkouts["main"] / WORKFLOW).read_text(encoding="utf-8"))


def steps_of(workflow: dict) -> list[dict]:
    """The steps of the workflow's one job."""
    (job,) = workflow["jobs"].values()
    return job["steps"]


def graders(workflow: dict) -> list[dict]:
    """The command-grader steps, in order."""
    return [step for step in steps_of(workflow) if step.get("uses") == GRADER]


@pytest.fixture(scope="module")
def graded(workflow: dict, checkouts: dict[str, Path]) -> dict[str, list[tuple[int, str]]]:
    """Branch -> (exit status, output) of every grading step, run in parallel over both branches."""
    jobs = [(branch, step) for branch in ("main", "solutions") for step in graders(workflow)]
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 2)) as pool:
        results = list(pool.map(lambda job: run_step(job[1], checkouts[job[0]]), jobs))
    return {
        branch: [result for (b, _), result in zip(jobs, results) if b == branch] for branch in ("main", "solutions")
    }


def test_the_workflow_is_on_both_branches_and_runs_on_every_push(workflow: dict, checkouts: dict[str, Path]) -> None:
    main, solutions = ((checkouts[b] / WORKFLOW).read_bytes() for b in ("main", "solutions"))
    assert main == solutions
    triggers = workflow.get("on", workflow.get(True))  # `on` unquoted reads as the boolean True in YAML 1.1
    assert "push" in (triggers if isinstance(triggers, (list, dict)) else [triggers])
    assert list(workflow["jobs"]) == ["run-autograding-tests"] and workflow["name"] == "Autograding Tests"
    (job,) = workflow["jobs"].values()
    assert job["runs-on"].startswith("ubuntu")
    assert workflow["permissions"]["contents"] == "read"


def test_one_grading_step_per_question_worth_its_points(workflow: dict) -> None:
    steps = steps_of(workflow)
    ids = [step["id"] for step in steps if "id" in step]
    assert len(ids) == len(set(ids)) and all(STEP_ID.fullmatch(i) for i in ids)
    assert steps[0]["uses"].startswith("actions/checkout@")
    grading = graders(workflow)
    assert [int(COMMAND.fullmatch(step["with"]["command"]).group(1)) for step in grading] == COURSE.numbers
    for step, question in zip(grading, COURSE.questions):
        inputs = step["with"]
        assert isinstance(inputs["max-score"], int) and inputs["max-score"] == question.points
        assert question.title in inputs["test-name"] and str(question.number) in inputs["test-name"]
        assert float(inputs["timeout"]) * 60 >= question.time_limit + 60  # minutes: the question's limit and a margin
        assert "setup-command" not in inputs  # installing is one step before them, not ten
    assert sum(step["with"]["max-score"] for step in grading) == COURSE.max_score
    before = steps[: steps.index(grading[0])]  # PyTorch first (the pinned CPU wheel), then the kit, before any grading
    install = "\n".join(step.get("run", "") for step in before)
    assert "torch==2.13.0" in install and "download.pytorch.org/whl/cpu" in install
    assert install.index("torch==2.13.0") < install.index("pip install -e .")
    assert any(step.get("uses", "").startswith("actions/setup-python@") for step in before)


def test_the_reporter_reads_every_grading_step(workflow: dict) -> None:
    steps, ids = steps_of(workflow), [step["id"] for step in graders(workflow)]
    reporter = steps[-1]
    assert reporter["uses"] == REPORTER and [s for s in steps if s.get("uses") == REPORTER] == [reporter]
    assert reporter["with"]["runners"].split(",") == ids
    env = reporter["env"]
    assert set(env) == {f"{i.upper()}_RESULTS" for i in ids}  # the reporter reads `${ID.toUpperCase()}_RESULTS`
    for name, value in env.items():
        match = RESULT.fullmatch(value)
        assert match and f"{match.group(1).upper()}_RESULTS" == name, (name, value)


def test_stubs_earn_no_points(workflow: dict, graded: dict[str, list[tuple[int, str]]]) -> None:
    assert shutil.which("python", path=grader_env()["PATH"]) == str(BIN / "python"), "`python` is not this venv's"
    for step, (status, output) in zip(graders(workflow), graded["main"]):
        assert status == 1, (step["with"]["command"], output[-2000:])  # 1: graded, not at full marks (2: bad command)
        assert "not attempted" in output, (step["with"]["command"], output[-2000:])  # the stub, not a grader fault
    assert sum(points(step, status) for step, (status, _) in zip(graders(workflow), graded["main"])) == 0


def test_solutions_earn_every_point(workflow: dict, graded: dict[str, list[tuple[int, str]]]) -> None:
    for step, (status, output) in zip(graders(workflow), graded["solutions"]):
        assert status == 0, (step["with"]["command"], output[-2000:])
    total = sum(points(step, status) for step, (status, _) in zip(graders(workflow), graded["solutions"]))
    assert total == COURSE.max_score


def test_a_question_short_of_full_marks_earns_none_and_its_log_shows_why(
    workflow: dict, checkouts: dict[str, Path], tmp_path: Path
) -> None:
    partial = tmp_path / "partial"
    git(tmp_path, "clone", "--quiet", "--branch", "solutions", str(checkouts["solutions"]), "partial")
    module = partial / COURSE.question(2).file
    module.write_text(
        module.read_text() + "\n\ndef dot_product_std(d: int, n: int = 20000, seed: int = 0) -> float:\n"
        "    return 1.0\n"
    )
    step = graders(workflow)[COURSE.numbers.index(2)]
    status, output = run_step(step, partial)
    assert status == 1 and points(step, status) == 0
    score = re.search(r"([\d.]+) / 8\b", output)
    # the log shows the partial score and the failed check
    assert score and 0 < float(score.group(1)) < 8, output[-2000:]
    assert "dot_product_std" in output


def test_points_the_command_grader_cannot_award_stop_the_release(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    halves = replace(COURSE, questions=tuple(replace(q, points=7.5) if q.number == 3 else q for q in COURSE.questions))
    with pytest.raises(ManifestError, match="question 3 is worth 7.5 points"):
        workflow_text(halves)
    assert write_release(halves, tmp_path / "out") == 1 and not (tmp_path / "out").exists()
    error = capsys.readouterr().err
    assert error.startswith("autograder: release: question 3 is worth 7.5 points") and len(error.splitlines()) == 1
