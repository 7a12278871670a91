"""One student's check grades the questions whose suites are marked `beside` (q10) in a second lane, a fork of the
grader on a branch of its sandbox: the report is the one a single lane gives, whatever the lane or the student's code
in it does (engine/lanes.py)."""
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from autograder.course.manifest import load_course
from autograder.engine import lanes
from autograder.engine.run import grade, grade_many
from autograder.sandbox import LINUX, Sandbox, choose, machine

ROOT = Path(__file__).resolve().parent.parent
COURSE = load_course(ROOT)

pytestmark = pytest.mark.skipif(choose().backend != LINUX, reason="lanes branch the Linux backend's sandbox")


def package_with(folder: Path, replaced: dict[str, Path]) -> Path:
    """A copy of solutions/ in folder with some modules (q03_attention: path) replaced."""
    package = folder / "exercises"
    shutil.copytree(ROOT / "solutions", package, ignore=shutil.ignore_patterns("__pycache__"))
    for module, source in replaced.items():
        shutil.copy(source, package / f"{module}.py")
    return package


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Wrong answers in both lanes: q03 (the grader's lane) and q10 (the other), among right ones."""
    return package_with(
        tmp_path_factory.mktemp("mixed"),
        {
            "q03_attention": ROOT / "tests/corpus/wrong/q03_no_scaling.py",
            "q10_train": ROOT / "tests/corpus/wrong/q10_adam_default_lr.py",
        },
    )


@pytest.fixture()
def started(monkeypatch: pytest.MonkeyPatch) -> list:
    """What every Lane.start returned, in order, with the lane's pid (0 when it returned None)."""
    seen: list = []
    start = lanes.Lane.start.__func__

    def recorded(cls: type, *args: object) -> object:
        lane = start(cls, *args)
        seen.append((lane, lane.pid if lane is not None else 0))
        return lane

    monkeypatch.setattr(lanes.Lane, "start", classmethod(recorded))
    return seen


def one_lane(package: Path) -> dict:
    """The report of package graded on every question in this process alone (no lane: several packages' path)."""
    return grade_many(COURSE, [(package, COURSE.numbers)])[0].to_dict()


def test_the_lane_gives_the_report_of_a_single_lane(mixed: Path, started: list) -> None:
    """q10 graded beside the others: the same scores, statuses and messages, question by question."""
    report = grade(COURSE, mixed, COURSE.numbers).to_dict()
    assert len(started) == 1 and started[0][0] is not None, "check of all ten ran without its second lane"
    alone = one_lane(mixed)
    assert report == alone
    scores = {q["number"]: (q["score"], q["max_score"]) for q in report["questions"]}
    assert scores[3][0] < scores[3][1] and scores[10][0] < scores[10][1] and scores[1][0] == scores[1][1]


def test_a_crash_in_the_lane_costs_only_its_question(tmp_path: Path, started: list) -> None:
    """A q10 whose model's eval() ends its process: crashed there, as in a single lane; the others keep full marks."""
    package = package_with(tmp_path, {"q10_train": ROOT / "tests/hostile/engine_q10_eval_exits.py"})
    report = grade(COURSE, package, COURSE.numbers).to_dict()
    assert started[0][0] is not None
    assert report == one_lane(package)
    statuses = {q["number"]: q["status"] for q in report["questions"]}
    assert statuses[10] == "crashed" and all(statuses[n] == "passed" for n in COURSE.numbers if n != 10)


def test_a_lane_that_dies_leaves_its_questions_to_the_grader(
    mixed: Path, started: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lane ends before it grades anything: the grader grades q10 itself, on its own sandbox."""
    monkeypatch.setattr(lanes, "_grade", lambda *args: os._exit(3))
    report = grade(COURSE, mixed, COURSE.numbers).to_dict()
    assert started[0][0] is not None
    assert report == one_lane(mixed)


def test_a_lane_past_its_deadline_is_killed(mixed: Path, started: list, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lane stuck after its zygote and child started (a bug of the kit's): killed at its deadline, its questions
    graded by the grader, whose pristine process still serves after the lane's socket closed."""

    def stuck(kit: object, sandbox: object, items: list, numbers: list, writer: int) -> None:
        child = sandbox.open(kit.package, "q10_train", 20.0, preload=("torch._dynamo",))
        child.first()
        time.sleep(600)

    monkeypatch.setattr(lanes, "_grade", stuck)
    monkeypatch.setattr(lanes, "wall_seconds", lambda limit: 0.5)
    begun = time.monotonic()
    report = grade(COURSE, mixed, COURSE.numbers).to_dict()
    assert time.monotonic() - begun < 120  # not the lane's 600 s
    assert started[0][0] is not None
    with pytest.raises(ChildProcessError):  # killed and reaped
        os.waitpid(started[0][1], os.WNOHANG)
    assert report == one_lane(mixed)


class FakeSandbox(Sandbox):
    """A sandbox that cannot branch (as the portable backend), and records that it was asked."""

    def __init__(self) -> None:
        self.asked = 0

    def branch(self) -> None:
        """Record the call; no branch (Sandbox's own answer)."""
        self.asked += 1
        return super().branch()

    def open(self, *args: object) -> None:
        """Never called."""

    def wait_ready(self, timeout: float) -> None:
        """Never called."""

    def close(self) -> None:
        """Never called."""


class FakeKit:
    """What Lane.start reads of the kit: its sandbox."""

    def __init__(self, sandbox: object) -> None:
        self.sandbox = sandbox


def test_no_lane_without_a_branch_two_cores_and_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sandbox that cannot branch (the portable backend), one core, too little memory for a second child, or a
    second Python thread (a notebook's kernel: a fork would copy only this one): no lane, and but for the first the
    branch is not even asked for."""
    sandbox = FakeSandbox()
    assert lanes.Lane.start(FakeKit(sandbox), [], [10]) is None and sandbox.asked == 1  # asked: the conditions hold
    monkeypatch.setattr(lanes, "_cores", lambda: 1)
    assert lanes.Lane.start(FakeKit(sandbox), [], [10]) is None and sandbox.asked == 1
    monkeypatch.undo()
    monkeypatch.setattr(machine, "available_memory", lambda: 1 << 30)  # a gigabyte: no room for a second child
    assert lanes.Lane.start(FakeKit(sandbox), [], [10]) is None and sandbox.asked == 1
    monkeypatch.undo()
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert lanes.Lane.start(FakeKit(sandbox), [], [10]) is None and sandbox.asked == 1
    finally:
        release.set()
        thread.join()
