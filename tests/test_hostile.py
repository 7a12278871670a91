"""Untrusted student code: every fault and cheat in tests/hostile/ costs only its own question.

Each file in tests/hostile/ replaces one module of a copy of solutions/; its two header lines say what it
does and what the grader must answer (`# expect: module=... status=a|b match=...`). The whole corpus is
graded in the session's sandbox (each question runs in its own forked child, so the faults cannot meet), with the
faulty question and a neighbouring correct one.
"""
import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest
from conftest import Cli, Kept

from autograder.course.manifest import Course, load_course
from autograder.engine.run import grade, grade_many
from autograder.sandbox import WALL_FACTOR, choose

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
LIMIT = 3.0  # seconds: the time limit of questions 1 and 2 in these tests
# seconds: the limit of the question of a case that expects a timeout first in the corpus (its loop costs its limit
# in CPU seconds); the limit itself is the subject of the tests of LIMIT below
LOOP_LIMIT = 1.0
# The looping cases whose other checks test_an_endless_loop_costs_only_its_own_checks reads, by the check that loops:
# graded at LIMIT, as the question's other functions go on in a fresh child after the loop
FRESH_CHILD = {
    "loop_forever": "prefix_average gives the running mean",
    "loop_in_causal_mask": "causal_mask is a bool lower triangle",
}
MARKERS = ("fault-sleeper-popen-5b1c", "fault-sleeper-raw-9e4d")  # argv of the processes the spawning cheats start
CHEAT_FILE = "FAULT_CHEAT_WROTE_HERE.txt"


@dataclasses.dataclass(frozen=True)
class Case:
    """One file of the corpus and what the grader must say about it."""

    name: str
    module: str
    statuses: tuple[str, ...]
    match: str
    what: str

    @property
    def question(self) -> int:
        """The number of the question whose module the fault replaces."""
        return int(self.module[1:3])

    @property
    def neighbour(self) -> int:
        """A question graded alongside, which must keep full marks."""
        return 2 if self.question == 1 else 1

    @property
    def loops(self) -> bool:
        """True when it expects a timeout first and is not in FRESH_CHILD: the corpus limits its question to
        LOOP_LIMIT."""
        return self.statuses[0] == "timeout" and self.name not in FRESH_CHILD

    @property
    def limit(self) -> float:
        """The time limit of its question (1 or 2) in the corpus."""
        return LOOP_LIMIT if self.loops else LIMIT


def corpus() -> list[Case]:
    """Every fault file with its expectation, read from its two header lines."""
    cases = []
    for path in sorted(HOSTILE.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        what = re.search(r"^# fault: (.*)$", text, re.M).group(1)
        expect = re.search(r"^# expect: module=(\S+) status=(\S+) match=(.*)$", text, re.M)
        cases.append(Case(path.stem, expect.group(1), tuple(expect.group(2).split("|")), expect.group(3).strip(), what))
    return cases


def short_course(limits: dict[int, float] | None = None) -> Course:
    """The course with questions 1 and 2 limited to LIMIT seconds, and the questions limits numbers to its seconds."""
    course = load_course(ROOT)
    seconds = {1: LIMIT, 2: LIMIT, **(limits or {})}
    questions = tuple(
        dataclasses.replace(q, time_limit=seconds[q.number]) if q.number in seconds else q for q in course.questions
    )
    return dataclasses.replace(course, questions=questions)


def package_with(folder: Path, case: Case | None) -> Path:
    """A copy of solutions/ in folder, with the case's module replaced by its fault file."""
    package = folder / "exercises"
    shutil.copytree(ROOT / "solutions", package, ignore=shutil.ignore_patterns("__pycache__"))
    if case is not None:
        shutil.copy(HOSTILE / f"{case.name}.py", package / f"{case.module}.py")
    return package


def living(markers: tuple[str, ...]) -> list[str]:
    """Command lines of running processes that carry one of the markers."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z" and any(marker in cmdline for marker in markers):
                found.append(f"{entry.name}: {cmdline}")
    return found


def _libc() -> object | None:
    """The C library where it has Linux's prctl and syscall, else None."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if not all(hasattr(libc, name) for name in ("prctl", "syscall")):
        return None
    libc.syscall.restype = ctypes.c_long
    return libc


def landlock_available() -> bool:
    """True when this kernel offers Landlock: both backends' children then restrict their files with it
    (sandbox/walls.py)."""
    import ctypes

    libc = _libc()
    # landlock_create_ruleset: ABI version
    return libc is not None and libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1)) >= 1


# The two grader killers (a pidfd from fresh copies of posix and _signal) are refused by the Guard before they get one,
# under either backend and with or without seccomp: they run everywhere.
CASES = corpus()
KERNEL_ENFORCED = {"cheat_torch_file_io"}  # C++ file I/O raises no audit event: only Landlock stops it
# Known holes, kept as strict expected failures: when one is closed its case XPASSes and must leave this table.
KNOWN_HOLES = {
    "engine_spy_disarmed_from_signal_frame": "a Python signal handler is handed the interrupted frame with no audit "
                                             "event",
    "engine_spy_disarmed_through_mode_stack": "the watch is reachable from PyTorch's mode stacks, whose readers raise "
                                              "no audit event",
}
# Seconds per case the whole corpus may take, by backend: the portable one imports torch once per question, where the
# Linux one forks. Measured on two shared cores under a load of 8, for the 95 cases: 202 s (Linux), 515 s (portable).
CASE_SECONDS = {"linux": 2.0, "portable": 7.0}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory, session_sandbox: object) -> dict:
    """Every case graded once, all in the session's sandbox, its question limited to its limit (one grade_many for
    each course that makes); with the packages and the wall time."""
    folder = tmp_path_factory.mktemp("hostile")
    packages = {case.name: package_with(folder / case.name, case) for case in CASES}
    by_looping: dict[int | None, list[Case]] = {}  # the number of the question limited to LOOP_LIMIT: its cases
    for case in CASES:
        by_looping.setdefault(case.question if case.loops else None, []).append(case)
    reports = {}
    start = time.monotonic()
    for looping, cases in by_looping.items():
        course = short_course({looping: LOOP_LIMIT} if looping else None)
        submissions = [(packages[case.name], sorted((case.question, case.neighbour))) for case in cases]
        done = grade_many(course, submissions, sandbox=Kept(session_sandbox))
        reports.update(zip((case.name for case in cases), done))
    return {"reports": reports, "packages": packages, "seconds": time.monotonic() - start}


def test_corpus_covers_the_issue():
    names = {case.name for case in CASES}
    needed = {
        "loop_forever",
        "loop_catching_interrupts",
        "sys_exit_at_import",
        "sys_exit_in_call",
        "os_exit_at_import",
        "os_exit_in_call",
        "segfault",
        "syntax_error",
        "import_error",
        "keyboard_interrupt",
        "recursion",
        "memory_hog",
        "print_flood",
        "modifies_input",
        "returns_none",
        "returns_list",
        "eq_always_true",
        "cheat_patch_comparisons",
        "cheat_patch_builtins",
        "cheat_import_solutions",
        "cheat_import_reference_caught",
        "cheat_import_autograder_in_call",
        "cheat_early_exit_zero",
        "cheat_spawn_sleeper",
        "cheat_write_kit_file",
        "cheat_read_reference",
        "cheat_torch_file_io",
        "cheat_fake_results",
        "cheat_kill_zygote",
    }
    assert needed <= names, needed - names


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            case,
            id=case.name,
            marks=[pytest.mark.xfail(strict=True, reason=KNOWN_HOLES[case.name])] if case.name in KNOWN_HOLES else [],
        )
        for case in CASES
    ],
)
def test_fault_costs_only_its_question(graded: dict, case: Case):
    if case.name in KERNEL_ENFORCED and not landlock_available():
        pytest.xfail("this kernel has no Landlock: C-level file access is not confined")
    report = graded["reports"][case.name]
    by_number = {q.number: q for q in report.questions}
    faulty, neighbour = by_number[case.question], by_number[case.neighbour]
    assert faulty.status in case.statuses, (case.what, faulty.status, faulty.reason, [t.message for t in faulty.tests])
    assert neighbour.status == "passed" and neighbour.score == neighbour.max_score, (
        neighbour.status,
        [t.message for t in neighbour.tests],
    )
    if case.statuses == ("passed",):  # tampering that the sandbox makes harmless: it neither costs nor earns anything
        assert faulty.score == faulty.max_score, case.what
        return
    assert faulty.score < faulty.max_score, case.what
    messages = [faulty.reason] + [test.message for test in faulty.tests if not test.passed]
    explained = [m for m in messages if m]
    assert explained, f"{case.name}: no reason and no failing check message"
    assert any(case.match in m for m in explained), (case.match, explained)
    # the fault writes that word itself
    own_text = "Traceback" in (HOSTILE / f"{case.name}.py").read_text(encoding="utf-8")
    for message in explained:
        assert "\n" not in message and "\r" not in message and (own_text or "Traceback" not in message), message
    json.dumps(report.to_dict())  # the --json report holds plain data only


def test_timeouts_are_reported_with_the_limit(graded: dict):
    for case in CASES:
        if case.statuses == ("timeout",):
            faulty = {q.number: q for q in graded["reports"][case.name].questions}[case.question]
            assert f"stopped after {case.limit:g} s" in faulty.reason


def test_no_cheat_leaves_a_trace(graded: dict):
    left = living(MARKERS)
    for line in left:  # clean up before failing, so one bad run does not poison the next
        os.kill(int(line.split(":")[0]), signal.SIGKILL)
    assert not left, left
    written = [
        p for p in [ROOT / CHEAT_FILE, *(package / CHEAT_FILE for package in graded["packages"].values())] if p.exists()
    ]
    for path in written:
        path.unlink()
    if written and not landlock_available():
        pytest.xfail(f"this kernel has no Landlock: torch.save wrote {written[0]}")
    assert not written, written
    assert not any((package / "__pycache__").exists() for package in graded["packages"].values())


def test_whole_corpus_fits_its_budget(graded: dict):
    # a timeout costs its limit, then a fresh child for the question's other functions
    per_case = CASE_SECONDS[choose().backend]
    timeouts = sum(case.limit + per_case for case in CASES if case.statuses[0] == "timeout")
    assert graded["seconds"] < per_case * len(CASES) + timeouts, graded["seconds"]


@pytest.mark.usefixtures("shared_sandbox")  # graded in the session's sandbox
def test_one_endless_loop_costs_its_time_limit_only(tmp_path: Path):
    case = next(case for case in CASES if case.name == "loop_catching_interrupts")
    package = package_with(tmp_path, case)
    start = time.monotonic()
    assert [q.status for q in grade(short_course(), package_with(tmp_path / "right", None), [1, 2]).questions] == [
        "passed",
        "passed",
    ]
    # a zygote's start, questions 1 and 2 right and the judging, on this machine now
    overhead = time.monotonic() - start
    start = time.monotonic()
    report = grade(short_course(), package, [1, 2])
    seconds = time.monotonic() - start
    assert [q.status for q in report.questions] == ["timeout", "passed"]
    # charged time excludes waiting for a core; a second more for the fresh child the question's other functions go on
    # in
    assert seconds <= WALL_FACTOR * LIMIT + max(3.0, overhead + 2.0), (seconds, overhead)


@pytest.mark.parametrize("name, looping", FRESH_CHILD.items())
def test_an_endless_loop_costs_only_its_own_checks(graded: dict, name: str, looping: str):
    """The question's other functions go on in a fresh child after the one that loops ran out of time: their checks
    pass, the looping one names its place, and the question is still reported as stopped at its limit (the corpus's
    grading of the case)."""
    result = {q.number: q for q in graded["reports"][name].questions}[1]
    outcomes = {test.name: test for test in result.tests}
    assert result.status == "timeout" and f"stopped after {LIMIT:g} s" in result.reason
    assert not outcomes[looping].passed and "It was running" in outcomes[looping].message, outcomes[looping].message
    assert all(test.passed for test in result.tests if test.name != looping), [
        (t.name, t.message) for t in result.tests
    ]


@pytest.mark.usefixtures("shared_sandbox")  # graded in the session's sandbox
def test_same_submission_same_scores_while_a_core_is_busy(tmp_path: Path):
    package = package_with(tmp_path, None)
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        reports = grade_many(load_course(ROOT), [(package, [1, 2, 3, 9])] * 8)  # 9: timing code under the virtual clock
    finally:
        burner.kill()
        burner.wait()
    dumps = [json.dumps(report.to_dict(), sort_keys=True) for report in reports]
    assert len(set(dumps)) == 1, "the same submission got different reports"
    assert reports[0].score == reports[0].max_score


@pytest.fixture()
def kit(tmp_path: Path) -> Path:
    """A copy of the kit whose q01 loops forever (limited to LIMIT seconds) and whose q02 is correct."""
    for name in ("autograder", "reference", "solutions"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "solutions", tmp_path / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(HOSTILE / "loop_forever.py", tmp_path / "exercises" / "q01_causal_mask.py")
    manifest = (ROOT / "course.yaml").read_text(encoding="utf-8")
    first = manifest.index("  - number: 1\n")
    limit_at = manifest.index("time_limit:", first)
    end = manifest.index("\n", limit_at)
    (tmp_path / "course.yaml").write_text(
        manifest[:limit_at] + f"time_limit: {LIMIT:g}" + manifest[end:], encoding="utf-8"
    )
    return tmp_path


def spawned(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`python -m autograder ARGS` in a process of its own in cwd."""
    return subprocess.run(
        [sys.executable, "-m", "autograder", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def check_ends_within_the_time_limit(run: Callable[..., subprocess.CompletedProcess], kit: Path) -> None:
    """`check 1 2 --json` on kit, run by run(cwd, *args), ends within q1's time limit and the cost of grading both
    right, with q1 out of time and q2 at full marks."""

    def check(*numbers: str) -> tuple[subprocess.CompletedProcess, float]:
        start = time.monotonic()
        done = run(kit, "check", *numbers, "--json")
        return done, time.monotonic() - start

    # the cost of starting the grader and grading both, right, on this machine now
    baseline, overhead = check("1", "2", "--solutions")
    # (question 1's other functions go on after the loop, in a fresh child)
    assert baseline.returncode == 0, baseline.stderr
    done, seconds = check("1", "2")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    statuses = {q["number"]: (q["status"], q["score"], q["max_score"]) for q in report["questions"]}
    assert statuses[1][0] == "timeout" and statuses[1][1] < statuses[1][2]
    assert statuses[2][0] == "passed" and statuses[2][1] == statuses[2][2]
    assert "stopped after 3 s" in report["questions"][0]["reason"]
    # charged time excludes waiting for a core; a second more for the fresh child the question's other functions go on
    # in
    assert seconds <= WALL_FACTOR * LIMIT + max(3.0, overhead + 2.0), (seconds, overhead)


def test_check_ends_within_the_time_limit_when_q1_loops(kit: Path, cli: Cli):
    """`check` run in this process, in the session's sandbox: the kit's course.yaml sets the limit."""
    check_ends_within_the_time_limit(cli, kit)


def test_a_check_process_ends_within_the_time_limit_when_q1_loops(kit: Path):
    """`check` in a process of its own, which starts its sandbox and ends with it."""
    check_ends_within_the_time_limit(spawned, kit)
