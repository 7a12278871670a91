"""One home per policy: the limits in autograder/sandbox/limits.py, the statuses in autograder/statuses.py.

A limit or a status written out again in another module would let the two drift: these tests find such copies in the
code, check that the formulas both backends and nbgrader use are the module's, and that a message quoting a limit takes
it from there.
"""
import ast
import re
from pathlib import Path

import pytest

from autograder import statuses
from autograder.sandbox import limits

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*(ROOT / "autograder").rglob("*.py"), *(ROOT / "bench").glob("*.py")])
LIMIT_NAMES = {name for name in vars(limits) if name.isupper()}
STATUS_NAMES = {name for name in vars(statuses) if name.isupper()}


def _assigned(path: Path) -> dict[str, ast.expr]:
    """name -> value of every module-level constant path assigns (plain and tuple assignments)."""
    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name):
                found[target.id] = node.value
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                found.update((t.id, v) for t, v in zip(target.elts, node.value.elts) if isinstance(t, ast.Name))
    return found


def _literal(value: ast.expr) -> bool:
    """True for a number, a string, an N_("...") call, a shift of numbers or a tuple of them: a value written out."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "N_":
        return True
    if isinstance(value, ast.BinOp):
        return _literal(value.left) and _literal(value.right)
    return isinstance(value, ast.Tuple) and all(_literal(element) for element in value.elts)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_writes_out_a_limit_or_a_status_of_its_own(path):
    """A constant named as a limit (MEMORY_BYTES, WALL_FACTOR, CHILD_THREADS ...) or a status (PASSED, TIMEOUT,
    GRADER_ERROR ...) is written out only in its home; elsewhere it is imported."""
    homes = {
        ROOT / "autograder" / "sandbox" / "limits.py": LIMIT_NAMES,
        ROOT / "autograder" / "statuses.py": STATUS_NAMES,
    }
    names = (LIMIT_NAMES | STATUS_NAMES) - homes.get(path, set())
    copies = sorted(name for name, value in _assigned(path).items() if name in names and _literal(value))
    assert not copies, (
        f"{path.relative_to(ROOT)} writes out {copies}: import them from sandbox/limits.py or statuses.py"
    )


def test_the_statuses_keep_the_contracts_values():
    """The --json and grades.csv values never change (course contract): only where they are declared did."""
    assert (
        statuses.PASSED,
        statuses.FAILED,
        statuses.NOT_ATTEMPTED,
        statuses.ERROR,
        statuses.TIMEOUT,
        statuses.CRASHED,
        statuses.FLAGGED,
    ) == ("passed", "failed", "not attempted", "error", "timeout", "crashed", "flagged")
    assert statuses.STOPPED == ("error", "timeout", "crashed")
    assert (statuses.GRADED, statuses.LATE, statuses.UNREADABLE, statuses.GRADER_ERROR) == (
        "graded",
        "late",
        "unreadable",
        "grader_error",
    )
    from autograder.classroom import summary
    from autograder.course import results
    from autograder.sandbox import base

    assert (base.TIMEOUT, base.CRASHED, base.ERROR, base.FLAGGED) == (
        results.TIMEOUT,
        results.CRASHED,
        results.ERROR,
        results.FLAGGED,
    )
    assert (summary.NOT_ATTEMPTED, summary.ERROR, summary.FLAGGED) == (
        results.NOT_ATTEMPTED,
        results.ERROR,
        results.FLAGGED,
    )


def test_both_backends_count_a_questions_time_with_the_one_formula():
    """Neither backend computes the time left itself: both call limits.time_left, which stops a child at its charged
    limit, at WALL_FACTOR times it on the clock, and at the start-up allowance plus that on the clock from the first
    wait."""
    for backend in ("linux", "portable"):
        text = (ROOT / "autograder" / "sandbox" / backend / "parent.py").read_text(encoding="utf-8")
        assert "time_left(" in text and "WALL_FACTOR *" not in text and "STARTUP_SECONDS +" not in text, backend
    limit = 20.0
    assert limits.time_left(limit, 5.0, 6.0, 7.0) == limit - 5.0
    # a child that sleeps: the wall clock
    assert limits.time_left(limit, 1.0, limits.WALL_FACTOR * limit - 2.0, 0.0) == 2.0
    # a slow start
    assert limits.time_left(limit, 0.0, 0.0, limits.STARTUP_SECONDS + limits.WALL_FACTOR * limit - 3.0) == 3.0
    assert limits.time_left(limit, limit, 0.0, 0.0) == 0.0


def test_nbgrader_cell_timeout_is_the_sandboxs_wall_bound_and_a_margin():
    """nbgrader's cell timeout covers the longest wall time the sandbox gives any question of the course, and a
    margin."""
    from autograder.course.manifest import load_course
    from autograder.nbgrader.course import cell_timeout, config_text

    course = load_course(ROOT)
    longest = max(q.time_limit for q in course.questions)
    assert (
        cell_timeout(course)
        == limits.cell_timeout(longest)
        == int(limits.STARTUP_SECONDS + limits.WALL_FACTOR * longest + limits.CELL_MARGIN)
    )
    assert f"c.Execute.timeout = {cell_timeout(course)}" in config_text(course, ROOT)


def test_the_messages_that_quote_a_limit_take_it_from_limits(monkeypatch):
    """The memory and output messages say the limit the sandbox puts (here a changed one), never a number of their
    own."""
    from autograder.course.manifest import load_course
    from autograder.engine import proxy

    question = load_course(ROOT).question(1)
    memory = {"type": "MemoryError", "message": "", "where": []}
    output = {"type": "OSError", "message": "[Errno 27] File too large", "where": []}
    assert f"the limit is {limits.MEMORY_BYTES / (1 << 30):g} GiB" in proxy.explain(memory, question)
    assert f"more than {limits.OUTPUT_BYTES / (1 << 20):g} MiB of output" in proxy.explain(output, question)
    monkeypatch.setattr(proxy, "MEMORY_BYTES", 3 << 29)
    monkeypatch.setattr(proxy, "OUTPUT_BYTES", 2 << 20)
    assert "the limit is 1.5 GiB" in proxy.explain(memory, question)
    assert "more than 2 MiB of output" in proxy.explain(output, question)


def test_too_many_open_files_is_explained_with_the_childs_bound(monkeypatch):
    """EMFILE, the child's own descriptor limit reached, names limits.CHILD_FILES (here a changed one) and where;
    ENFILE, the machine's table full, is no limit of the child's: shown as raised."""
    from autograder.course.manifest import load_course
    from autograder.engine import proxy

    question = load_course(ROOT).question(1)
    where = [{"file": "exercises/q01_causal_mask.py", "line": 3, "code": "os.pipe()", "function": "f"}]
    mine = {"type": "OSError", "message": "[Errno 24] Too many open files", "where": where}
    machine = {"type": "OSError", "message": "[Errno 23] Too many open files in system", "where": []}
    assert proxy.explain(mine, question) == (
        f"had too many files or pipes open at once (the limit is {limits.CHILD_FILES}) at "
        "exercises/q01_causal_mask.py line 3: os.pipe()"
    )
    assert proxy.explain(machine, question) == "raised OSError: [Errno 23] Too many open files in system"
    monkeypatch.setattr(proxy, "CHILD_FILES", 32)
    assert "(the limit is 32)" in proxy.explain(mine, question)


def test_the_child_reads_its_thread_cap_from_limits():
    """The child's side (loaded by path, as `_child`) holds threads to limits.CHILD_THREADS, as the grader's import
    of it."""
    from autograder.sandbox.child import guard

    assert guard.CHILD_THREADS == limits.CHILD_THREADS
    worker = (ROOT / "autograder" / "sandbox" / "linux" / "worker.py").read_text(encoding="utf-8")
    assert re.search(r"^from _limits import .*CHILD_THREADS", worker, re.MULTILINE)
