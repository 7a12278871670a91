"""What class grading hands back to a student, by course.yaml's `feedback:` setting: one filter for every path.

nbgrader's test cells (hence its feedback HTML), `grade DIR`'s per-student feedback file and Gradescope's
results.json all pass their reports through here, so that the same setting decides, everywhere, whether a failed
check shows its reason (with the known mistake it matches), whether that reason ends with the student's small
result next to the expected one, and whether the self-test answers of the questions at full marks are shown.
`check` on the student's own machine is not filtered: it always shows everything.
"""
import dataclasses

from .manifest import Course, Feedback
from .results import QuestionResult, Report, question_from_dict
from .view import Line, report_view, selftest
from ..i18n import _


def shown_message(message: str, values: str, feedback: Feedback) -> str:
    """A failed check's message as feedback shows it: "" without reasons, its values cut off without values."""
    if not feedback.reasons:
        return ""
    if not feedback.values and values and message.endswith(values):
        return message[: len(message) - len(values)]
    return message


def shown_question(result: QuestionResult, feedback: Feedback) -> QuestionResult:
    """result with each check's message as feedback shows it (the question's own reason, a stop or a missing file,
    kept), and without what the code printed, which could echo the hidden inputs."""
    tests = [
        dataclasses.replace(
            test,
            message=shown_message(test.message, test.values, feedback) if not test.passed else test.message,
            values=test.values if feedback.values else "",
        )
        for test in result.tests
    ]
    return dataclasses.replace(result, tests=tests, output="", output_from="")


def shown_report(report: Report, feedback: Feedback) -> Report:
    """report with every question as feedback shows it."""
    return Report([shown_question(result, feedback) for result in report.questions])


def selftest_lines(course: Course, number: int) -> list[str]:
    """The self-test questions and model answers of question number, as lines (none when the question has none)."""
    if not course.question(number).selftest:
        return []
    shown = selftest(course, number)
    return [shown.heading] + [row for pair in shown.items for row in pair]


def _cell(text: object) -> str:
    """text made safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _line(line: Line) -> list[str]:
    """One line of the view as a Markdown list item; a grouped failure's inputs as a list inside it."""
    return [f"- {line.text}"] + [f"  - {item}" for item in line.items]


def markdown(course: Course, report: dict, student: str) -> str:
    """The feedback file of one student of `grade DIR` (OUT/<student>.feedback.md), from the report's JSON object.

    It holds what the course's feedback setting lets students see, and nothing of the grader: no paths, no traceback.
    """
    feedback = course.feedback
    lines = [f"# {course.title}: {student}", ""]
    if report.get("grader_error"):
        lines += [
            _("The grader failed on your submission, so this is not a grade yet: your instructor will grade it again."),
            "",
        ]
    elif report.get("problem"):
        lines += [_("Your submission could not be graded: {problem}").format(problem=report["problem"]), ""]
    graded = Report([question_from_dict(q) for q in report.get("questions", []) if isinstance(q, dict)])
    view = report_view(shown_report(graded, feedback), course, student, answers=None if feedback.selftest else ())
    lines += [view.total, "", "| # | " + " | ".join(view.columns) + " |", "|---|---|---|---|"]
    lines += [f"| {q.number} | {_cell(q.title)} | {_cell(q.score)} | {_cell(q.status_text)} |" for q in view.questions]
    # an entry not graded: its one reason is said above
    for question in [] if report.get("problem") else view.questions:
        if question.lines:
            lines += [
                "",
                "## " + _("Question {number}: {title}").format(number=question.number, title=question.title),
                "",
            ]
            lines += [text for line in question.lines for text in _line(line)]
    for item in view.selftests:
        lines += ["", "## " + item.heading, ""] + [f"- {row}" for pair in item.items for row in pair]
    if view.unlocked:
        lines += ["", view.unlocked]
    return "\n".join(lines) + "\n"
