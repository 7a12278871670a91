"""Grade packages in-process: the hidden suites run by pytest.main with the kit's plugin, one sandbox for all.

One pytest run grades any number of packages on the same questions (run_each): the suites are collected once and
every check runs again for each package, as pytest-rerunfailures re-runs an item.
"""
import contextlib
import gc
import io
import itertools
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..course.manifest import Course
from ..course.results import Report
from ..sandbox import Sandbox, start_sandbox
from .suite_run import SUITES, Submission, suite_file

PYTEST_ARGS = [
    "-o",
    "addopts=",
    "--capture=no",  # the student's prints stay in the child; ours go nowhere
    # the suites' asserts as Python runs them: the kit's message is an assert's own (its first line), and rewriting
    # the eleven suite files at every run (none is cached under PYTHONDONTWRITEBYTECODE) cost `check` 0.1 s
    "--assert=plain",
    *(
        arg
        for plugin in (
            "cacheprovider",
            "stepwise",
            "logging",
            "unraisableexception",
            "threadexception",
            "faulthandler",
            "junitxml",
            "pastebin",
            "doctest",
            "debugging",
            "warnings",
            "unittest",
            "legacypath",
            "tmpdir",
            "monkeypatch",
            "recwarn",
            "setuponly",
            "setupplan",
            "subtests",
            "terminal",
        )
        for arg in ("-p", f"no:{plugin}")
    ),
]
# The plugins left out are not needed by `check`: each costs time on every one of the ~230 checks, or on every run.
# Without the terminal reporter (its -q and --tb options go with it) pytest writes nothing: the report is the plugin's.


def run_each(
    course: Course,
    sandbox: Sandbox,
    numbers: list[int],
    submissions: Iterable[Submission],
    notes: bool = False,
    beside: bool = False,
) -> None:
    """Grade each submission on the questions' suites in an open sandbox (left open), with one pytest run for all of
    them.

    Each submission's report is set before the next one is drawn, so submissions may be a generator that hands out
    one package at a time and reads the previous one's report (an exception it raises is raised here). When the
    grader itself breaks, the submission being graded keeps its partial report and the traceback in `failed`, and
    the rest are not drawn. The grader fails closed: a question it failed on (a hook, the proxy, pytest itself) is an
    error with 0 points, and the submission's `failed` holds the traceback; when pytest stops before grading anything,
    every submission is drawn and gets such a report. Ctrl-C raises KeyboardInterrupt. beside: one student's check,
    whose questions marked `beside` may be graded in a second lane (engine/lanes.py).
    """
    import pytest  # pytest and the plugin (torch) after start_sandbox(): the child's import of torch overlaps ours

    from .plugin import EachSubmission, KitPlugin, failed_result

    kit = KitPlugin(course, course.root, sandbox, notes, first_failure_only=True)
    suites = [str(suite_file(course, n)) for n in numbers if suite_file(course, n).exists()]
    if not suites:
        for submission in submissions:
            kit.reset(submission.package, submission.hidden)
            submission.report = kit.report(numbers)
        return
    # the kit's plugin keeps hypothesis's storage in the sandbox, if a suite uses it
    each = EachSubmission(kit, numbers, submissions, beside)
    with _quiet_pytest() as said:
        status = pytest.main([*PYTEST_ARGS, *suites], plugins=[kit, each])
    if each.error is not None:
        raise each.error
    if status == pytest.ExitCode.INTERRUPTED:
        raise KeyboardInterrupt
    if status in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED) or each.broke:
        return  # each.broke: the submission it broke on has failed closed, those before it were graded whole
    names = ", ".join(Path(s).name for s in suites)
    trace = f"pytest ended with exit status {status} grading {names}\n{said.getvalue()[-4000:]}"
    # graded in a run that broke, or (pytest stopped before its test loop) never graded: every question fails closed
    for submission in submissions if not each.started else [s for s in each.graded if not s.failed]:
        submission.failed = trace
        submission.report = Report([failed_result(course.question(n), trace) for n in numbers])


def run_suites(
    course: Course,
    sandbox: Sandbox,
    package: Path,
    numbers: list[int],
    notes: bool = False,
    hidden: tuple[Path, ...] = (),
) -> Report:
    """One pytest run of the questions' suites on package, in an open sandbox (left open).

    hidden: folders the student's code may not read, such as the one holding the other students' packages.
    """
    submission = Submission(package, hidden)
    run_each(course, sandbox, numbers, [submission], notes)
    return submission.report


def hideable(folders: Iterable[Path]) -> tuple[Path, ...]:
    """Those of folders that a student's code may be kept out of: not one that holds the kit's grading code, Python,
    torch or the temporary folder, which the grading itself needs (a hidden folder is unreadable below it)."""
    import torch  # not at the top: the caller starts the sandbox before the grader imports torch

    needed = [
        path.resolve()
        for path in (
            SUITES,
            Path(sys.prefix),
            Path(sys.base_prefix),
            Path(tempfile.gettempdir()),
            Path(torch.__file__).parent,
        )
    ]
    kept = []
    for folder in folders:
        folder = Path(folder).resolve()
        if not any(folder == path or folder in path.parents for path in needed) and folder not in kept:
            kept.append(folder)
    return tuple(kept)


def classmates_folder(packages: list[Path]) -> tuple[Path, ...]:
    """The folder holding several students' packages, which none of them may read (empty for one package, or when that
    folder also holds the kit or Python itself)."""
    if len(packages) < 2:
        return ()
    return hideable([Path(os.path.commonpath([str(p.resolve()) for p in packages]))])


def grade_many(
    course: Course,
    submissions: list[tuple[Path, list[int]]],
    notes: bool = False,
    sandbox: Sandbox | None = None,
    hidden: tuple[Path, ...] = (),
    beside: bool = False,
) -> list[Report]:
    """Grade several packages (exercises/-like folders), each on its question numbers, in one sandbox.

    notes: also run the suites' ungraded notes (real timings, which differ from run to run).
    sandbox: one the caller started early, so that its import of torch overlaps the caller's work; closed here.
    hidden: folders no student's code may read besides the classmates' (the nbgrader course, Gradescope's folders).
    beside: a single package, whose questions marked `beside` may be graded in a second lane (engine/lanes.py).
    """
    sandbox = sandbox or start_sandbox()  # before pytest and torch: the worker's import of torch overlaps ours
    try:
        with _uncollected_imports():
            import pytest  # noqa: F401 - imported here for _uncollected_imports; run_each uses it
            import torch  # after start_sandbox(): the child's import of torch overlaps ours

            from . import plugin  # noqa: F401 - imported here for _uncollected_imports; run_each uses it
        torch.set_num_threads(1)  # the oracle works on tiny tensors: a thread pool only adds waiting
        hidden = classmates_folder([package for package, _ in submissions]) + hideable(hidden)
        graded = [(Submission(package, hidden), numbers) for package, numbers in submissions]
        # one pytest run per run of the same questions
        for numbers, group in itertools.groupby(graded, key=lambda pair: pair[1]):
            waiting = [submission for submission, _ in group]
            while waiting:  # a run the grader broke in leaves the packages after that one to another run
                run_each(course, sandbox, numbers, waiting, notes, beside)
                left = [submission for submission in waiting if submission.report is None]
                if len(left) == len(waiting):
                    raise RuntimeError(f"the grader could not grade {waiting[0].package}")
                waiting = left
        for submission, _ in graded:
            submission.report.sandbox = sandbox.about()
        return [submission.report for submission, _ in graded]
    finally:
        sandbox.close()


def grade(course: Course, package_dir: Path, numbers: list[int], notes: bool = False) -> Report:
    """Run the questions' suites on the package in package_dir (exercises/ or solutions/) and judge them."""
    return grade_many(course, [(package_dir, numbers)], notes, beside=True)[0]


@contextlib.contextmanager
def _uncollected_imports() -> Iterator[None]:
    """When torch is not imported yet (a command, not a notebook that has it): the cyclic garbage collector off while
    torch, pytest and the plugin load (full collections over their ~180,000 objects cost a tenth of the import), those
    objects then frozen out of every later collection (gc.freeze), and the collector back as it was."""
    if "torch" in sys.modules:
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@contextlib.contextmanager
def _quiet_pytest() -> Iterator[io.StringIO]:
    """pytest's own terminal output goes nowhere (yields what it wrote, its INTERNALERROR lines); third-party plugins
    stay unloaded (speed, and the same run everywhere)."""
    saved = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    said = io.StringIO()
    try:
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            yield said
    finally:
        if saved is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = saved
