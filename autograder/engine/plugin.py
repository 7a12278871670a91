"""The kit's pytest plugin: the `student` proxy per question, points and forbidden work from markers, results.

Registered by autograder/suites/conftest.py for a plain `pytest autograder/suites --package solutions`,
or passed to pytest.main by engine/run.py for `python -m autograder check`. Either way it records
every test's outcome and turns them into one QuestionResult per question (course/results.py).
"""
import re
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import torch

from ..course.manifest import Course, Question
from ..course.results import (
    ERROR,
    FAILED,
    FLAGGED,
    NOT_ATTEMPTED,
    PASSED,
    CaseResult,
    QuestionResult,
    Report,
    missing_file,
)
from ..i18n import _, in_english
from ..sandbox import Child, ChildStopped, Sandbox
from .asserts import tensor_mismatch
from .grader_errors import grader_failed
from .inputs import INPUT_NOTE, describe_all, entries, shrink
from .lanes import Lane, lane_items, run_items
from .mistakes import named_in
from .proxy import CheckFailure, Flagged, Refused, Student, StudentError, explain, one_line, refusal
from .stand_in import BROKEN, broken_earlier, remove, stand_in_package
from .static import check_docstrings, forbidden_uses, reaches
from .suite_run import SUITES, Submission, keep_hypothesis_in

MARKERS = (
    "points(n): the points of this check; a question's points (course.yaml) are shared in proportion",
    "forbid(*labels): PyTorch work the student's code may not do in this check (labels of "
    "sandbox/child/forbid_table.py)",
    "ungraded: a note shown to the student (real timings), never part of the score",
    "preload(*modules): modules the question's child needs that torch imports lazily and slowly (torch._dynamo, on an "
    "optimizer's first step); the sandbox imports them once, before forking, instead of once per student",
    "drawn(make_one, choices, order): set by engine.inputs.draw on each input it made, so that a failure can be shrunk",
    "beside: grade this question beside the others, in a second lane, where one student's check has a core for it "
    "(engine/lanes.py): for a question whose child works for seconds on its own, as a training run",
)
SIDE_BY_SIDE = 16  # the most entries per tensor for which a failure shows the student's result next to the expected one
# the kit's code outside a check's body
GRADER_CODE = tuple(
    str(Path(__file__).resolve().parent.parent / part)
    for part in ("engine/plugin.py", "engine/proxy.py", "engine/run.py", "sandbox", "course", "i18n.py")
)


@dataclass
class Check:
    """One test function: its points and, once run, whether every input passed and the first failure."""

    name: str
    points: float
    passed: bool = True
    message: str = ""
    kind: str = ""
    settled: bool = True  # False while its failure matched a known mistake on an input that cannot tell it apart
    named: str = ""  # the id of the known mistake its message names, until a later input rules that mistake out
    # the end of message that shows small results next to the expected ones (course.yaml's feedback.values)
    values: str = ""


@dataclass
class Failing:
    """A drawn check's first failure, kept until the question's other checks have run, then shrunk."""

    item: pytest.Item
    check: Check
    error: BaseException
    arguments: dict[str, object]  # the test function's arguments (fixtures and the failing input)
    labels: tuple[str, ...]  # its forbid labels


@dataclass
class QuestionRun:
    """What the plugin knows of one question: its child, its checks, how it ended."""

    question: Question
    checks: dict[str, Check] = field(default_factory=dict)
    child: Child | None = None
    student: Student | None = None
    status: str = ""  # set when the question ended early: error, timeout, crashed
    reason: str = ""
    output: str = ""
    notes: list[str] = field(default_factory=list)
    failing: list[Failing] = field(default_factory=list)
    stand_in: Path | None = None  # the package copy graded instead, when an earlier question's module does not import
    fault: str = ""  # the traceback of the grader's own failure while grading this question: the question gets nothing
    preload: tuple[str, ...] = ()  # the suite's preload marker, for a fresh child
    stop: ChildStopped | None = None  # the first stop of a child replaced by a fresh one: the question's status
    earlier_output: str = ""  # what the replaced children printed
    orphans: int = 0  # processes the replaced children left running


def check_name(item: pytest.Item) -> str:
    """The check's name in the report, in the current language: the first line of the test's docstring (which the
    catalogue collects), read from the suite's source, else its function name in words."""
    doc = check_docstrings(Path(item.function.__code__.co_filename)).get(item.originalname)
    return _(doc[0]) if doc else item.originalname.removeprefix("test_").replace("_", " ")


def forbid_labels(item: pytest.Item) -> tuple[str, ...]:
    """The labels of every forbid marker on item: the work its check forbids."""
    return tuple(label for marker in item.iter_markers("forbid") for label in marker.args)


def _failing_input(
    item: pytest.Item, error: BaseException, inputs: int, shrunk: dict[str, object] | None = None
) -> str:
    """` [smallest failing input: ...]` from hypothesis's shrunk example, the shrunk input or the parameters, when a
    check has several."""
    notes = [n for n in getattr(error, "__notes__", []) if n.startswith(("Falsifying example", "Failing test case"))]
    if notes:
        lines = [line.strip().rstrip(",") for line in notes[0].splitlines()[1:-1]]
        shown = [line for line in lines if line and not line.startswith("student=")]
        return f" [{_(INPUT_NOTE)}: {', '.join(shown)}]" if shown else ""
    callspec = getattr(item, "callspec", None)
    if callspec is None or inputs < 2:
        return ""
    return f" [{_(INPUT_NOTE)}: {describe_all(shrunk if shrunk is not None else callspec.params)}]"


def _side_by_side(error: BaseException) -> str:
    """`; your weights [[1, 0], [0.5, 0.5]] vs expected [[1, 0], [0.4, 0.6]]` for each small part assert_same found
    wrong."""
    compared = getattr(error, "compared", None)
    if compared is None:
        return ""
    got, expected, names = compared
    parts = (
        [(got, expected, names[0])]
        if len(names) == 1
        else list(zip(got, expected, names))
        if isinstance(got, (tuple, list))
        else []
    )
    shown = []
    for part, reference, name in parts:
        if (
            type(part) is torch.Tensor
            and 0 < part.numel() <= SIDE_BY_SIDE
            and 0 < reference.numel() <= SIDE_BY_SIDE
            and tensor_mismatch(part, reference, name) is not None
        ):
            label = _(name)
            yours = (
                # TRANSLATORS: {short} is a result's English name without its article ("weights"); {name} is its whole
                # name, translated
                _("your {short}").format(short=name.removeprefix("the "), name=label)
                if name.startswith("the ")
                else _("yours ({name})").format(name=label)
            )
            shown.append(
                _("; {yours} {got} vs expected {expected}").format(
                    yours=yours, got=entries(part), expected=entries(reference)
                )
            )
    return "".join(shown)


def _signature(error: BaseException) -> str:
    """What kind of failure error is, numbers and bracketed values left out: a shrunk input must fail the same way."""
    message = getattr(error, "message", None) or str(error)
    return type(error).__name__ + re.sub(
        r"\d+(\.\d+)?(e[-+]?\d+)?", "#", re.sub(r"\([^()]*\)|\[[^\[\]]*\]", "#", message)
    )


def _is_group(error: BaseException) -> bool:
    """True for an exception group (the builtin one, or the backport hypothesis uses before Python 3.11)."""
    return isinstance(getattr(error, "exceptions", None), tuple)


def _leaves(group: BaseException) -> list[BaseException]:
    """The exceptions inside a (nested) exception group, in order."""
    return [leaf for e in group.exceptions for leaf in (_leaves(e) if _is_group(e) else [e])]


def _about_input(error: BaseException) -> bool:
    """False for failures that every input would meet: forbidden or refused work, a missing or unwritten function, a
    stop."""
    if isinstance(error, Refused) or (
        isinstance(error, StudentError) and error.type in ("MissingFunction", "NotImplementedError", BROKEN)
    ):
        return False
    return not isinstance(error, CheckFailure) or error.kind == FAILED


def failure(
    item: pytest.Item, error: BaseException, inputs: int, shrunk: dict[str, object] | None = None
) -> tuple[str, str, str]:
    """(message, kind, values) of a failed test: the kit's own line, an assert's message, or what went wrong reading
    the value.

    A failure about the input names it (shrunk: the smallest input found to fail) and, when it names one,
    shows a small result next to the expected one: values is that end of message ("" when there is none).
    """
    if _is_group(error):  # hypothesis, when the same input failed two ways (a child that stopped)
        found = [e for e in _leaves(error) if isinstance(e, CheckFailure)] or list(_leaves(error))
        error = found[0]
    about_input = _about_input(error)
    if isinstance(error, CheckFailure):
        message, kind = error.message, error.kind
    elif isinstance(error, AssertionError):
        text = str(error).strip()
        if not text or text.startswith("assert "):  # a bare assert: pytest's text would show the expected value
            text = _("the result differs from what this check expects")
        message, kind = text.splitlines()[0], FAILED
    else:
        message, kind = (
            _("returned something the grader cannot read as an answer ({error})").format(error=type(error).__name__),
            FAILED,
        )
    values = ""
    if about_input:
        named = _failing_input(item, error, inputs, shrunk)
        message += named
        values = _side_by_side(error) if named else ""  # inputs the message names are public: show the values
    shown, whole = one_line(message, 800), one_line(message + values, 800)
    return whole, kind, (whole[len(shown) :] if whole.startswith(shown) else "")


def failed_result(question: Question, trace: str, checks: list[Check] | None = None) -> QuestionResult:
    """The result of a question the grader itself failed on: an error with 0 points (every check recorded failed) and
    the grader-failed line; trace goes to the log."""
    reason = grader_failed(trace)
    tests = [CaseResult(check.name, False, reason, check.points) for check in checks or []] or [
        CaseResult(question.title, False, reason)
    ]
    return QuestionResult(question.number, question.title, question.points, ERROR, tests, reason)


def _from_grader(error: BaseException, when: str) -> bool:
    """True when error is the grader's own failure, not the student's: an exception other than a check's failure or a
    skip raised outside the check's body (a hook, a fixture), or below it in the kit's own code (the proxy, the
    sandbox)."""
    leaves = _leaves(error) if _is_group(error) else [error]
    if len(leaves) != 1:
        return any(_from_grader(leaf, when) for leaf in leaves)
    error = leaves[0]
    # a check's own verdict (CheckFailure too)
    if isinstance(error, (AssertionError, pytest.skip.Exception, pytest.fail.Exception)):
        return False
    if when != "call":
        return True  # setup and teardown are the kit's fixtures: a student's fault there is a CheckFailure
    files = [frame.f_code.co_filename for frame, _line in traceback.walk_tb(error.__traceback__)]
    suites = [index for index, file in enumerate(files) if file.startswith(str(SUITES))]
    if not suites:
        return True  # not raised in a check's body: a hook of the kit's
    return any(file.startswith(GRADER_CODE) for file in files[suites[0] + 1 :])


class KitPlugin:
    """Runs each question's tests against one sandboxed child and keeps their outcomes."""

    def __init__(
        self,
        course: Course,
        package: Path,
        sandbox: Sandbox,
        notes: bool = True,
        first_failure_only: bool = False,
        hidden: tuple[Path, ...] = (),
    ) -> None:
        """package: the exercises-like folder graded; first_failure_only: skip a check's later inputs once one fails;
        hidden: folders the student's code may not read (where other students' packages are)."""
        self.course, self.package, self.notes, self.first_failure_only = (
            course,
            package.resolve(),
            notes,
            first_failure_only,
        )
        self.sandbox, self.hidden = sandbox, hidden
        self.runs: dict[int, QuestionRun] = {}
        self.suites: dict[str, Question] = {}  # suite module name -> its question
        self.inputs: dict[tuple[str, str], int] = {}  # (suite module, test function) -> how many inputs it is run on
        self.static: dict[tuple[int, tuple[str, ...]], dict[str, tuple[str, str]]] = {}
        # tracebacks of the grader's own failures on this package: the questions they hit get nothing
        self.grader_errors: list[str] = []
        self.adopted: dict[int, QuestionResult] = {}  # question number -> its result, graded by a lane (adopt)

    def reset(self, package: Path, hidden: tuple[Path, ...] = ()) -> None:
        """Grade package next, from a clean slate (the collected suites and their inputs are kept), its questions
        forked from a zygote no earlier package's code touched (the Linux backend forks one from its pristine
        process: milliseconds)."""
        self.package, self.hidden, self.runs, self.static, self.grader_errors = package.resolve(), hidden, {}, {}, []
        self.adopted = {}
        self.sandbox.renew()

    def adopt(self, results: list[QuestionResult], errors: list[str]) -> None:
        """Take the results of questions a lane graded (engine/lanes.py), and the grader errors it met, as this
        package's."""
        self.adopted.update((result.number, result) for result in results)
        self.grader_errors.extend(errors)

    def fault(self, trace: str, question: Question | None = None) -> None:
        """Record a failure of the grader's own: question (every question when None) will be an error with 0 points."""
        self.grader_errors.append(trace)
        for run in [self.run_of(question)] if question is not None else [self.run_of(q) for q in self.course.questions]:
            run.fault = run.fault or trace

    def question_of(self, module: object) -> Question:
        """The question whose suite is module (test_q03_attention.py -> q03_attention)."""
        found = self.suites.get(module.__name__)
        if found is None:
            stem = Path(module.__file__).stem.removeprefix("test_")
            found = next((question for question in self.course.questions if question.module == stem), None)
            if found is None:
                raise LookupError(f"{Path(module.__file__).name} matches no question's module in course.yaml")
            self.suites[module.__name__] = found
        return found

    def run_of(self, question: Question) -> QuestionRun:
        """The QuestionRun of question, made on first use."""
        return self.runs.setdefault(question.number, QuestionRun(question))

    # -- the student fixture's work ---------------------------------------------------------------

    def start(self, question: Question, preload: tuple[str, ...] = ()) -> Student:
        """Open the question's child and return the proxy; CheckFailure when the module is missing or does not import.

        preload: the modules of the suite's preload marker, imported by the sandbox before it forks the child."""
        __tracebackhide__ = True
        run = self.run_of(question)
        source = self.package / Path(question.file).name
        if not source.exists():
            run.status, run.reason = ERROR, missing_file(source.name, Path(question.file).parent.as_posix() + "/")
            raise CheckFailure(run.reason, ERROR)
        reach = reaches(source.read_text(encoding="utf-8", errors="replace"))
        if reach:
            run.status, run.reason = FLAGGED, Flagged(reach).message  # read, never run: the reach is the verdict
            raise CheckFailure(run.reason, FLAGGED)
        run.preload = preload
        try:
            imported = self.first(question, self.package, preload)
            broken = (
                None
                if imported["ok"] or imported["refused"] or imported.get("tampered")
                else broken_earlier(self.course, question, imported["error"])
            )
            if broken is not None:  # only an earlier question's module fails: grade the checks that do not call it
                frame = imported["error"]["where"][-1]
                code = one_line(frame.get("code") or "", 120).strip()
                reason = (
                    _("{file} does not import ({kind} at line {line}: {code}): fix it first, `check {number}`")
                    if code
                    else _("{file} does not import ({kind} at line {line}): fix it first, `check {number}`")
                ).format(
                    file=broken.file,
                    kind=one_line(imported["error"]["type"], 60),
                    line=frame["line"],
                    code=code,
                    number=broken.number,
                )
                run.child.close()
                run.stand_in = stand_in_package(self.package, broken, one_line(reason, 400), self.sandbox.folder)
                imported = self.first(question, run.stand_in, preload)
            if imported.get("tampered"):  # its import reached into the grader (a frame, a trace hook)
                run.status, run.reason = FLAGGED, Flagged(one_line(str(imported["tampered"]), 100)).message
            elif not imported["ok"] or imported["refused"]:
                run.status = ERROR
                run.reason = (
                    refusal(imported["refused"][0]) if imported["refused"] else explain(imported["error"], question)
                )
        except ChildStopped as stopped:
            run.status, run.reason = (
                stopped.status,
                stopped.reason
                if stopped.environment
                else _("{reason} (while importing your module)").format(reason=stopped.reason),
            )
        except Exception as error:  # noqa: BLE001 - the child's first word is the student's process speaking
            run.status, run.reason = (
                ERROR,
                _("sent back data the grader cannot read while importing your module ({error})").format(
                    error=type(error).__name__
                ),
            )
        if run.status:
            self.finish(question)
            raise CheckFailure(run.reason, ERROR)
        run.student = Student(run.child, question, lambda: self.reopen(question))
        return run.student

    def reopen(self, question: Question) -> Child | None:
        """After the question's child stopped (a time limit, a crash): close it, keep its stop, output and orphans,
        and open a fresh child on the same package for the question's other functions, through first() (a child
        that ends before its first word in a touched zygote or spare is asked again, as at the question's start);
        None when it cannot start or import."""
        run = self.run_of(question)
        old = run.child
        ending = old.close()
        run.stop = run.stop or old.stopped
        run.earlier_output += ending.output
        run.orphans += ending.orphans
        try:
            imported = self.first(question, run.stand_in or self.package, run.preload)  # run.child: closed by finish()
        except Exception:  # noqa: BLE001 - no fresh child (the sandbox is gone), or the student's process spoke so
            return None
        ok = imported["ok"] and not imported["refused"] and not imported.get("tampered")
        return run.child if ok else None

    def first(self, question: Question, package: Path, preload: tuple[str, ...]) -> dict:
        """Open the question's child on package and return its first word. The grader never takes a child's word for
        its own health: a child that ended before its first word, forked from a zygote an earlier child touched (a
        portable spare that waited beside another child, whether it ended before or after its question started), is
        the grader's problem; the question is asked again, once, of a child of a fresh zygote (a freshly spawned
        child), whose verdict stands (the same code ending there too is the code's own doing), and a fresh zygote
        that dies or cannot start, or a fresh child that ends before the code is loaded, is the grader's own failure
        (the submission's report is then a grader_error)."""
        run = self.run_of(question)
        run.child = self.sandbox.open(package, question.module, question.time_limit, self.hidden, preload)
        try:
            return run.child.first()
        except ChildStopped as stopped:
            if not (stopped.ended and run.child.touched):
                raise
        run.child.close()
        self.sandbox.renew()
        run.child = self.sandbox.open(package, question.module, question.time_limit, self.hidden, preload)
        try:
            return run.child.first()
        except ChildStopped as stopped:
            if stopped.ended == "zygote" or stopped.environment:
                fresh = "zygote" if self.sandbox.backend == "linux" else "child"
                self.fault(
                    f"a fresh {fresh} failed while question {question.number}'s child imported the module again: "
                    f"{stopped.reason}",
                    question,
                )
            raise

    def finish(self, question: Question) -> None:
        """Close the question's child; processes it left running make the whole question an error."""
        run = self.run_of(question)
        if run.child is None:
            return
        if run.student is not None:
            run.student._reopen = None  # shrinking never starts a fresh child
        shrinking = run.failing if not run.status and not run.child.ended() else []
        for failing in shrinking:
            self.shrink(run, failing)
        ending = run.child.close()
        if run.stand_in is not None:
            remove(run.stand_in)
            run.stand_in = None
        run.output = run.earlier_output + ending.output
        # alive when its checks ended: a stop while shrinking changes no score
        stopped = run.stop or (None if shrinking else run.child.stopped)
        if stopped and not run.status:
            run.status, run.reason = stopped.status, stopped.reason
        if ending.orphans + run.orphans:
            run.status = ERROR
            run.reason = _(
                "started {count} process(es) still running when it ended (the grader killed them): an answer may not "
                "start processes"
            ).format(count=ending.orphans + run.orphans)
        run.child = None

    def shrink(self, run: QuestionRun, failing: Failing) -> None:
        """Name the smallest input found that fails a drawn check the same way: its body re-run on shrunk inputs, in
        the child.

        Only the message changes: the check has failed already, and re-runs come after the question's other checks.
        """
        item = failing.item
        make_one, choices, order = item.get_closest_marker("drawn").args
        names = list(item.callspec.params)
        last: list[BaseException] = []

        def fails(values: dict[str, object]) -> BaseException | None:
            """The failure of the check's body on values, None when it passes or the child cannot take more."""
            if run.child.stopped or len(values) != len(names):
                return None
            run.student.forbid(failing.labels)
            try:
                item.obj(**{**failing.arguments, **dict(zip(names, values.values()))})
            except Exception as error:  # noqa: BLE001 - any failure of the check's body, compared by its kind
                return error
            return None

        def still_fails(values: dict[str, object]) -> bool:
            error = fails(values)
            if error is not None and _signature(error) == wanted:
                last.append(error)
                return True
            return False

        # failures are compared by their English wording, the same in every language (plurals included)
        with in_english():
            original = fails(dict(item.callspec.params))
            wanted = _signature(original if original is not None else failing.error)
            shrunk = shrink(make_one, choices, still_fails, order)
        # The budget is work, SHRINK_TRIES re-runs, never seconds: the same input on every run, however busy the
        # machine. A child stopped at its time limit (charged time, not the wait for a core) on the way keeps the input
        # the check failed on.
        if shrunk is not None and not run.child.stopped:
            error = fails(shrunk) or last[-1]  # once more, in the student's language
            inputs = self.inputs.get((item.module.__name__, item.originalname), 1)
            failing.check.message, failing.check.kind, failing.check.values = failure(item, error, inputs, shrunk)

    def static_uses(
        self, question: Question, called: tuple[str, ...], labels: tuple[str, ...]
    ) -> dict[str, tuple[str, str]]:
        """forbidden_uses of the question's source by the functions a check called, for labels; once per question,
        calls and labels."""
        key = (question.number, called, labels)
        if key not in self.static:
            source = (self.package / Path(question.file).name).read_text(encoding="utf-8", errors="replace")
            self.static[key] = forbidden_uses(source, called, labels)
        return self.static[key]

    # -- pytest hooks -----------------------------------------------------------------------------

    def pytest_configure(self, config: pytest.Config) -> None:
        """Declare the kit's markers."""
        for marker in MARKERS:
            config.addinivalue_line("markers", marker)

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Leave out ungraded notes unless notes are wanted; count each check's inputs; keep hypothesis's storage in
        the sandbox when a suite uses hypothesis (it writes there only while a check runs); tell the sandbox which
        modules the suites' children preload, so that it can import them ahead, beside the questions graded first, and
        how many questions a package has."""
        if "hypothesis" in sys.modules:
            keep_hypothesis_in(self.sandbox.folder)
        if not self.notes:
            kept = [item for item in items if item.get_closest_marker("ungraded") is None]
            config.hook.pytest_deselected(items=[item for item in items if item not in kept])
            items[:] = kept
        for item in items:
            key = (item.module.__name__, item.originalname)
            self.inputs[key] = self.inputs.get(key, 0) + 1
        wanted = (name for item in items for marker in item.iter_markers("preload") for name in marker.args)
        self.sandbox.prepare(
            tuple(dict.fromkeys(wanted)),  # in the order the questions want them: the first question's first
            len({item.module.__name__ for item in items}),
        )

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """Under `check`, a check whose earlier (smaller) input failed is not run again on a larger one."""
        if self.first_failure_only and item.get_closest_marker("ungraded") is None:
            check = self.run_of(self.question_of(item.module)).checks.get(item.originalname)
            if check is not None and not check.passed and check.settled:
                pytest.skip(_("an earlier input of this check already failed"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> object:
        """Tell the proxy which work is forbidden; after a pass, read the source of what the check called for
        forbidden calls too."""
        labels = forbid_labels(item)
        student = item.funcargs.get("student")
        if isinstance(student, Student):
            student.forbid(labels)
            student.called.clear()
        result = yield
        if labels:
            question = self.question_of(item.module)
            called = tuple(sorted(student.called)) if isinstance(student, Student) else question.functions
            uses = self.static_uses(question, called, labels)
            if uses:
                label, where = next(iter(uses.values()))
                raise Refused(
                    _("{where}, which question {number} asks you to do without: write it by hand").format(
                        where=where, number=question.number
                    )
                )
        return result

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
        """Record the outcome of each graded test in its question's check; a failure of the grader's own (here or in
        the run of the check) makes its question an error with 0 points."""
        report = yield
        try:
            self._record(item, call, report)
        except Exception:  # noqa: BLE001 - the kit's own bug: fail closed, never leave the checks recorded so far standing
            try:
                question = self.question_of(item.module)
            except Exception:  # noqa: BLE001 - not even the question is known: every question fails
                question = None
            self.fault(traceback.format_exc(), question)
        return report

    def _record(self, item: pytest.Item, call: pytest.CallInfo, report: pytest.TestReport) -> None:
        """The body of pytest_runtest_makereport: report's outcome into its question's check."""
        error = call.excinfo.value if call.excinfo else None
        if error is not None and report.failed and _from_grader(error, call.when):
            self.fault(
                "".join(traceback.format_exception(type(error), error, error.__traceback__)),
                self.question_of(item.module),
            )
            return
        if item.get_closest_marker("ungraded") is not None or (call.when == "teardown" and report.passed):
            return
        run = self.run_of(self.question_of(item.module))
        check = run.checks.get(item.originalname)
        if check is None:  # the check's first report: its name (translated) and points are read once
            points = item.get_closest_marker("points")
            check = run.checks[item.originalname] = Check(check_name(item), float(points.args[0]) if points else 1.0)
        if not report.failed:
            return
        error = call.excinfo.value if call.excinfo else AssertionError("failed")
        judged, named = getattr(error, "naming", ""), getattr(error, "named", "")
        # a later input on which the named mistake would not give the student's result: the name was the first input's
        # coincidence
        refuted = bool(check.named) and check.named in getattr(error, "refutes", ())
        if not check.passed and check.settled:
            return
        if refuted:
            error, judged, named = error.unnamed(), "", ""
        if check.passed or refuted or (judged == "named" and not check.named):  # the first failure, or better evidence
            check.passed = False
            check.named = named
            check.message, check.kind, check.values = failure(
                item, error, self.inputs.get((item.module.__name__, item.originalname), 1)
            )
            run.failing = [failing for failing in run.failing if failing.check is not check]
            if check.kind == FLAGGED and run.status != FLAGGED:
                run.status, run.reason = FLAGGED, check.message
            if (
                self.first_failure_only
                and call.when == "call"
                and item.get_closest_marker("drawn")
                and _about_input(error)
                and isinstance(item.funcargs.get("student"), Student)
            ):
                arguments = {name: item.funcargs[name] for name in item._fixtureinfo.argnames}
                run.failing.append(Failing(item, check, error, arguments, forbid_labels(item)))
            # a named mistake is tried on every later input, which may rule it out
            check.settled = judged == "" or refuted
        else:
            check.settled = judged != "unsettled" and not check.named

    # -- results ----------------------------------------------------------------------------------

    def report(self, numbers: list[int]) -> Report:
        """The Report of the package graded, over the questions numbers; a question whose result the grader fails to
        build is an error with 0 points."""
        results = []
        for number in numbers:
            question = self.course.question(number)
            try:
                results.append(self.adopted.get(number) or self.result(question))
            except Exception:  # noqa: BLE001 - the kit's own bug: fail closed
                self.fault(traceback.format_exc(), question)
                results.append(failed_result(question, self.run_of(question).fault))
        return Report(results)

    def result(self, question: Question) -> QuestionResult:
        """The QuestionResult of question from its recorded checks (every check failed with the reason when it ended
        early)."""
        run = self.run_of(question)
        if run.fault:
            return failed_result(question, run.fault, list(run.checks.values()))
        result = QuestionResult(
            question.number,
            question.title,
            question.points,
            PASSED,
            output=run.output,
            notes=run.notes,
            output_from=run.student.printed_first if run.student is not None and run.output.strip() else "",
        )
        checks = list(run.checks.values())
        if not checks and not run.status:
            run.status, run.reason = (
                ERROR,
                _(
                    "no check of question {number} ran: its suite autograder/suites/test_{module}.py is missing or "
                    "empty"
                ).format(number=question.number, module=question.module),
            )
        if run.status in (ERROR, FLAGGED):
            result.status, result.reason = run.status, run.reason
            result.tests = [CaseResult(c.name, False, run.reason, c.points) for c in checks]
            return result
        result.tests = [
            CaseResult(
                c.name, c.passed, c.message, c.points, mistake=named_in(question.number, c.message), values=c.values
            )
            for c in checks
        ]
        if run.status:
            result.status, result.reason = run.status, run.reason
        elif checks and all(c.kind == NOT_ATTEMPTED for c in checks):
            result.status, result.reason = (
                NOT_ATTEMPTED,
                _("not attempted yet: every function still raises NotImplementedError"),
            )
        elif not all(c.passed for c in checks):
            result.status = FAILED
        return result


class EachSubmission:
    """pytest plugin: run the collected checks once per submission, in one session, so that the suites are collected
    once."""

    def __init__(
        self, kit: KitPlugin, numbers: list[int], submissions: Iterable[Submission], beside: bool = False
    ) -> None:
        self.kit, self.numbers, self.submissions = kit, numbers, submissions
        self.beside = beside  # one student's check: the questions marked `beside` may be graded in a lane
        self.started = False  # the loop ran (pytest did not stop before it)
        self.graded: list[Submission] = []  # the submissions given a report, in order
        self.broke = False  # grading one of them raised (pytest's loop stopped there)
        self.error: BaseException | None = None  # what drawing the next submission raised (the caller's own stream)
        self.given: dict[str, dict[str, object]] = {}  # a check's node id -> its direct parameters' values (its input)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        """For each submission: the kit's state reset to its package, every item's protocol (as pytest's own loop runs
        them), its report. A suite that failed to import runs no check, as in pytest's loop."""
        self.started = True
        not_imported = session.testsfailed  # before the loop: collection errors only (each failed check adds one later)
        items = [] if not_imported else session.items
        submissions = iter(self.submissions)
        while True:
            try:
                submission = next(submissions)
            except StopIteration:
                return True
            except BaseException as error:  # noqa: BLE001 - the caller's stream failed: run_each raises it once pytest is done
                self.error = error
                return True
            lane = None
            try:
                self.kit.reset(submission.package, submission.hidden)
                # a suite of the kit's that does not import: the grader's failure, graded again next run
                if not_imported:
                    self.kit.fault(f"{not_imported} of the suites failed to import (pytest's collection errors)")
                beside = lane_items(items) if self.beside else []
                if beside and len(beside) < len(items):
                    lane = Lane.start(self.kit, beside, sorted({self.kit.question_of(i.module).number for i in beside}))
                own = [item for item in items if item not in beside] if lane is not None else items
                run_items(own)
                if lane is not None:
                    graded, lane = lane.results(), None
                    if graded is None:  # the lane ended without its results: graded here, as without a lane
                        run_items(beside)
                    else:
                        self.kit.adopt(*graded)
            # pytest's internal error, a hook's, Ctrl-C: no question of this submission keeps a point
            except BaseException:
                submission.failed, self.broke = traceback.format_exc(), True
                self.kit.fault(submission.failed)
                raise
            finally:
                if lane is not None:
                    lane.stop()
                submission.report = self.kit.report(self.numbers)
                submission.failed = submission.failed or (self.kit.grader_errors[0] if self.kit.grader_errors else "")
                self.graded.append(submission)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """A check's own inputs (its direct parametrize arguments) handed to it as they are, before pytest's setup:
        pytest would make each of them a fixture, set up and torn down for every input (two `request` fixtures and
        their signatures each: about 50 ms of CPU a submission); the fixtures it still runs (student) are
        unchanged."""
        given = self.given.get(item.nodeid)
        if given is None:
            params = getattr(getattr(item, "callspec", None), "params", {})
            given = self.given[item.nodeid] = {
                name: params[name] for name in _direct(item) if name in params and name in item.fixturenames
            }
        item.funcargs.update(given)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport | None:
        """A failure's report without pytest's formatted traceback, which the kit never shows (it words its own
        message) and which costs about 5 ms a failure (pytest parses the source of every frame); None: pytest's own
        report (a pass, a skip)."""
        if (
            call.excinfo is None
            or isinstance(call.excinfo.value, pytest.skip.Exception)
            or _is_group(call.excinfo.value)
        ):
            return None
        return pytest.TestReport(
            item.nodeid,
            item.location,
            dict.fromkeys(item.keywords, 1),
            "failed",
            call.excinfo.exconly(),
            call.when,
            [],
            call.duration,
            call.start,
            call.stop,
            user_properties=item.user_properties,
        )


def _direct(item: pytest.Item) -> set[str]:
    """The names item's parametrize marks give it directly, not through a fixture of that name (indirect)."""
    names: set[str] = set()
    for mark in item.iter_markers("parametrize"):
        given = mark.args[0] if mark.args else mark.kwargs.get("argnames", ())
        given = [name.strip() for name in given.split(",")] if isinstance(given, str) else list(given)
        indirect = mark.kwargs.get("indirect", False)
        names.update(
            name
            for name in given
            if not (indirect is True or (isinstance(indirect, (list, tuple)) and name in indirect))
        )
    return names


def kit(config: pytest.Config) -> KitPlugin | None:
    """The registered KitPlugin of this pytest run, if any."""
    return next((plugin for plugin in config.pluginmanager.get_plugins() if isinstance(plugin, KitPlugin)), None)
