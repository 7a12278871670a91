"""The grader fails closed: a failure planted in each of the kit's own pieces (every pytest hook of its plugins, the
`student` fixture's work, the proxy, the sandbox's parent side, the report builder, pytest itself) leaves the question
graded with 0 points, status error and the line saying the grader failed, never the points of the checks run before."""
import shutil
from pathlib import Path

import pytest

from autograder.classroom import work
from autograder.classroom.intake import Entry
from autograder.course.manifest import load_course
from autograder.engine import plugin, proxy
from autograder.engine.grader_errors import grader_log
from autograder.engine.run import Submission, run_each
from autograder.sandbox import Sandbox
from autograder.sandbox.linux.parent import LinuxChild
from autograder.sandbox.portable.parent import PortableChild

ROOT = Path(__file__).resolve().parent.parent
COURSE = load_course(ROOT)
GRADER_FAILED = "the grader itself failed on this question, not your code"
PLANTED = [  # (owner, attribute): each replaced by a function that raises
    (plugin.KitPlugin, "pytest_configure"),
    (plugin.KitPlugin, "pytest_collection_modifyitems"),
    (plugin.KitPlugin, "pytest_runtest_setup"),
    (plugin.KitPlugin, "pytest_runtest_call"),
    (plugin.KitPlugin, "pytest_runtest_makereport"),
    (plugin.EachSubmission, "pytest_runtestloop"),
    (plugin.EachSubmission, "pytest_runtest_makereport"),  # where Python 3.10 met BaseExceptionGroup, a NameError
    (plugin.KitPlugin, "start"),  # the student fixture's setup
    (plugin.KitPlugin, "finish"),  # its teardown
    (plugin.KitPlugin, "static_uses"),  # read after a forbid check passed
    (plugin.KitPlugin, "result"),  # the report builder
    (plugin, "check_name"),  # the name of a check, read at its first report
    (proxy.Student, "_ask"),  # the proxy, between a check and the child
    (proxy.Student, "_decode"),
    (LinuxChild, "ask"),  # the sandbox's parent side, in the backend the probes chose
    (PortableChild, "ask"),
]


class Planted(RuntimeError):
    """The grader's own bug, planted by a test."""


def _raise(*_args: object, **_kwargs: object) -> None:
    raise Planted("planted in the grader")


@pytest.fixture()
def sandbox(session_sandbox: Sandbox) -> Sandbox:
    """The session's sandbox, which run_each leaves open."""
    return session_sandbox


def _grade(sandbox: Sandbox, numbers: list[int]) -> Submission:
    submission = Submission(ROOT / "solutions")
    run_each(COURSE, sandbox, numbers, [submission])
    return submission


def test_control_full_marks(sandbox):
    """Nothing planted: the same grading gives full marks, so each test below fails for the planted fault alone."""
    report = _grade(sandbox, [1, 3]).report
    assert report.score == report.max_score and report.all_passed


@pytest.mark.parametrize(("owner", "name"), PLANTED, ids=[f"{getattr(o, '__name__', o)}.{n}" for o, n in PLANTED])
def test_a_fault_of_the_grader_gives_no_point(sandbox, monkeypatch, owner, name):
    """Solutions of questions 1 and 3 (3 forbids work: the static reading runs) graded with the planted fault."""
    if (
        owner in (LinuxChild, PortableChild)
        and owner is not {"linux": LinuxChild, "portable": PortableChild}[sandbox.backend]
    ):
        pytest.skip(f"the sandbox here is the {sandbox.backend} backend")
    monkeypatch.setattr(owner, name, _raise)
    submission = _grade(sandbox, [1, 3])
    hit = [question for question in submission.report.questions if question.status != "passed"]
    # static_uses runs for question 3 only: question 1 keeps the marks it earned
    assert hit, submission.report.to_dict()
    assert name == "static_uses" or len(hit) == 2
    for question in hit:
        assert question.status == "error" and question.score == 0
        assert question.reason.startswith(GRADER_FAILED) and str(grader_log()) in question.reason
        assert all(not test.passed for test in question.tests)
    assert submission.failed  # the class grader's grader_error
    assert "Planted" in submission.failed or "Planted" in grader_log().read_text()


def test_a_students_lying_object_is_not_the_graders_fault(sandbox, tmp_path):
    """A value that breaks the check's own body (a list where a tensor is read) costs the check, as the student's
    fault."""
    package = tmp_path / "package"
    shutil.copytree(ROOT / "solutions", package, ignore=shutil.ignore_patterns("__pycache__"))
    source = package / "q01_causal_mask.py"
    source.write_text(source.read_text() + "\n\ndef causal_mask(T):\n    return [[True] * T] * T\n")
    submission = Submission(package)
    run_each(COURSE, sandbox, [1], [submission])
    question = submission.report.questions[0]
    assert not submission.failed and question.status == "failed" and GRADER_FAILED not in str(question.to_dict())


def test_class_grading_marks_a_grader_fault_for_a_rerun(sandbox, monkeypatch, tmp_path):
    """grade DIR: the student the grader failed on is reported with grader_error (graded again next run) and 0
    points."""
    folder = tmp_path / "class" / "ann"
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(proxy.Student, "_ask", _raise)
    report = work.grade_entry(COURSE, Entry("ann", folder, "folder"), sandbox, tmp_path / "scratch").to_dict()
    assert report["grader_error"] and report["score"] == 0


def test_a_suite_that_does_not_import_gives_no_point(sandbox, monkeypatch, tmp_path):
    """A hidden suite broken by the kit (a syntax error) grades nothing: every question an error, the grader-failed
    line."""
    from autograder.engine import suite_run

    suites = tmp_path / "suites"
    shutil.copytree(suite_run.SUITES, suites, ignore=shutil.ignore_patterns("__pycache__"))
    (suites / "test_q01_causal_mask.py").write_text("def broken(:\n")
    monkeypatch.setattr(suite_run, "SUITES", suites)
    submission = _grade(sandbox, [1, 3])
    assert submission.failed and [q.status for q in submission.report.questions] == ["error", "error"]
    assert submission.report.score == 0 and all(q.reason.startswith(GRADER_FAILED) for q in submission.report.questions)


def test_failed_checks_of_one_package_are_no_fault_for_the_next(sandbox):
    """One run grading the stubs, then the solutions: the stubs' failed checks are theirs, the solutions keep full
    marks."""
    first, second = Submission(ROOT / "exercises"), Submission(ROOT / "solutions")
    run_each(COURSE, sandbox, [1], [first, second])
    assert first.report.questions[0].status == "not attempted" and not first.failed
    assert second.report.all_passed and not second.failed
