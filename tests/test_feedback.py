"""course.yaml's `feedback:` setting decides what every class-grading path hands back, and the manifest checks it.

The reports here are built by hand (no grading: cheap): question 2 fails a check whose message names a known
mistake and ends with the student's values next to the expected ones; question 1 is at full marks.
"""
import dataclasses
from pathlib import Path

import pytest

from autograder.classroom.gradescope import Found, results_json
from autograder.course.feedback import markdown, shown_message
from autograder.course.manifest import Feedback, ManifestError, load_course
from autograder.course.results import FAILED, PASSED, CaseResult, QuestionResult, Report
from autograder.nbgrader.course import cell_timeout, config_text
from autograder.nbgrader.package import summary_text
from autograder.sandbox import STARTUP_SECONDS, WALL_FACTOR

KIT = Path(__file__).resolve().parent.parent
COURSE = load_course(KIT)
VALUES = "; your output [[0.0653]] vs expected [[0.0923]]"
REASON = "the output differs at [0, 0]; this matches a known mistake: the scores are divided by d instead of sqrt(d)"


def _report() -> Report:
    q1 = QuestionResult(1, COURSE.question(1).title, 8, PASSED, [CaseResult("mask", True, "", 1.0)])
    q2 = QuestionResult(
        2,
        COURSE.question(2).title,
        8,
        FAILED,
        [
            CaseResult("toy", True, "", 1.0),
            CaseResult("scaled_scores divides by sqrt(d)", False, REASON + VALUES, 1.0, values=VALUES),
        ],
    )
    return Report([q1, q2])


def _course(**settings: object) -> object:
    return dataclasses.replace(COURSE, feedback=Feedback(**settings))


def _gradescope(course: object) -> tuple[str, dict]:
    results = results_json(course, _report(), Found("the modules at the top level of your submission"), 1.0)
    failed = next(test for test in results["tests"] if test["status"] == "failed")
    return " ".join(results["output"].split()), failed | {"visibility_of_results": results["visibility"]}


def test_the_default_shows_what_check_shows_everywhere() -> None:
    """By default the reason, the known mistake, the values and the self-test answers reach every path."""
    report = _report()
    text = summary_text(report.questions[1], COURSE)
    assert f"[FAILED] scaled_scores divides by sqrt(d) -- {REASON}{VALUES}" in text
    assert "A1." in summary_text(report.questions[0], COURSE)
    output, failed = _gradescope(COURSE)
    assert failed["output"] == REASON + VALUES and failed["visibility"] == "visible"
    assert "A1." in output
    handed = markdown(COURSE, report.to_dict(), "ada")
    assert REASON + VALUES in handed and "A1." in handed


def test_values_false_cuts_the_values_from_every_path() -> None:
    """values: false leaves the expected values out of nbgrader's cells, Gradescope's tests and report, and the
    feedback file."""
    course = _course(values=False)
    report = _report()
    assert "vs expected" not in summary_text(report.questions[1], course)
    output, failed = _gradescope(course)
    assert failed["output"] == REASON and "vs expected" not in output and "known mistake" in output
    handed = markdown(course, report.to_dict(), "ada")
    assert REASON in handed and "vs expected" not in handed


def test_reasons_and_selftest_false_and_gradescope_visibility() -> None:
    """reasons: false names the failed check only; selftest: false keeps the answers back; visibility reaches every
    test."""
    course = _course(reasons=False, selftest=False, visibility="after_due_date")
    report = _report()
    text = summary_text(report.questions[1], course)
    assert "[FAILED] scaled_scores divides by sqrt(d)\n" in text and "known mistake" not in text
    assert "A1." not in summary_text(report.questions[0], course)
    output, failed = _gradescope(course)
    assert failed["output"] == "failed" and "known mistake" not in output and "A1." not in output
    assert failed["visibility"] == failed["visibility_of_results"] == "after_due_date"
    handed = markdown(course, report.to_dict(), "ada")
    assert "known mistake" not in handed and "A1." not in handed and "scaled_scores divides by sqrt(d)" in handed


def test_shown_message_keeps_a_message_whose_values_were_cut_short() -> None:
    """Values are cut only where the message ends with them."""
    hidden = Feedback(values=False)
    assert shown_message(REASON + VALUES, VALUES, hidden) == REASON
    assert shown_message(REASON, "", hidden) == REASON
    assert shown_message(REASON + VALUES, VALUES, Feedback(reasons=False)) == ""


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("  values: false ", None),
        ("  values: sometimes ", "must be a bool"),
        ("  value: true ", "is not a feedback setting"),
        ("  visibility: later ", "after_due_date"),
    ],
)
def test_the_manifest_reads_and_checks_the_setting(tmp_path: Path, line: str, problem: str | None) -> None:
    """The key is optional (the kit's course.yaml spells out the defaults); a wrong setting or value is refused by
    name."""
    assert COURSE.feedback == Feedback()
    key = "visibility" if "visibility" in line else "values"  # the line of course.yaml that the edit replaces
    text = (KIT / "course.yaml").read_text()
    original = next(row for row in text.splitlines() if row.startswith(f"  {key}") and ":" in row)
    (tmp_path / "course.yaml").write_text(text.replace(original, line + "# changed", 1))
    if problem is None:
        assert load_course(tmp_path).feedback == Feedback(values=False)
    else:
        with pytest.raises(ManifestError, match=problem):
            load_course(tmp_path)


def test_nbgrader_config_names_the_exchange_and_a_timeout_the_sandbox_fits_in(tmp_path: Path) -> None:
    """The generated config names the course id and an exchange folder; its cell timeout covers what the sandbox may
    take."""
    text = config_text(COURSE, tmp_path / "my course")
    assert "c.CourseDirectory.course_id = 'my-course'" in text
    assert f"c.Exchange.root = {str(tmp_path / 'my course' / 'exchange')!r}" in text
    longest = max(q.time_limit for q in COURSE.questions)
    assert cell_timeout(COURSE) >= STARTUP_SECONDS + WALL_FACTOR * longest
    assert f"c.Execute.timeout = {cell_timeout(COURSE)}" in text
