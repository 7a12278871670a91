"""What class grading hands back to a student, by course.yaml's `feedback:` setting: one filter for every path.

nbgrader's test cells (hence its feedback HTML), `grade DIR`'s per-student feedback file and Gradescope's
results.json all pass their reports through here, so that the same setting decides, everywhere, whether a failed
check shows its reason (with the known mistake it matches), whether that reason ends with the student's small
result next to the expected one, and whether the self-test answers of the questions at full marks are shown.
`check` on the student's own machine is not filtered: it always shows everything.
"""
import dataclasses

from .manifest import Course, Feedback, decode_answer
from .results import FAILED, PASSED, QuestionResult, Report
from ..i18n import _


def shown_message(message: str, values: str, feedback: Feedback) -> str:
    """A failed check's message as feedback shows it: "" without reasons, its values cut off without values."""
    if not feedback.reasons:
        return ""
    if not feedback.values and values and message.endswith(values):
        return message[: len(message) - len(values)]
    return message


def shown_question(result: QuestionResult, feedback: Feedback) -> QuestionResult:
    """result with each check's message as feedback shows it (the question's own reason, a stop or a missing file, kept)."""
    tests = [dataclasses.replace(test, message=shown_message(test.message, test.values, feedback) if not test.passed else test.message,
                                 values=test.values if feedback.values else "")
             for test in result.tests]
    return dataclasses.replace(result, tests=tests)


def shown_report(report: Report, feedback: Feedback) -> Report:
    """report with every question as feedback shows it."""
    return Report([shown_question(result, feedback) for result in report.questions])


def selftest_lines(course: Course, number: int) -> list[str]:
    """The self-test questions and model answers of question number, as lines (none when the question has none)."""
    items = course.question(number).selftest
    if not items:
        return []
    lines = [_("Self-test for question {number} (you earned the answers):").format(number=number)]
    for index, item in enumerate(items, start=1):
        lines += [f"Q{index}. {item.question}", f"A{index}. {decode_answer(item.answer)}"]
    return lines


def _cell(text: object) -> str:
    """text made safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(course: Course, report: dict, student: str) -> str:
    """The feedback file of one student of `grade DIR` (OUT/<student>.feedback.md), from the report's JSON object.

    It holds what the course's feedback setting lets students see, and nothing of the grader: no paths, no traceback.
    """
    feedback = course.feedback
    lines = [f"# {course.title}: {student}", ""]
    if report.get("grader_error"):
        lines += [_("The grader failed on your submission, so this is not a grade yet: your instructor will grade it again."), ""]
    elif report.get("problem"):
        lines += [_("Your submission could not be graded: {problem}").format(problem=report["problem"]), ""]
    total, top = report.get("score", 0), report.get("max_score", course.max_score)
    lines += [_("Total: {score} / {max}").format(score=f"{total:g}", max=f"{top:g}"), "",
              "| # | " + _("Question") + " | " + _("Score") + " | " + _("Status") + " |", "|---|---|---|---|"]
    questions = [q for q in report.get("questions", []) if isinstance(q, dict)]
    for question in questions:
        status = str(question.get("status", ""))  # one of the results' statuses, which the catalogue holds
        lines.append(f"| {question.get('number')} | {_cell(question.get('title', ''))} | {question.get('score', 0):g} / "
                     f"{question.get('max_score', 0):g} | {_cell(_(status))} |")
    for question in [] if report.get("problem") else questions:  # an entry not graded: its one reason is said above
        failed = [test for test in question.get("tests", []) if not test.get("passed")]
        if question.get("status") == PASSED or not (failed or question.get("reason")):
            continue
        lines += ["", "## " + _("Question {number}: {title}").format(number=question.get("number"), title=question.get("title", ""))]
        if question.get("reason"):
            lines += ["", question["reason"]]
        if question.get("status") in (PASSED, FAILED):
            lines.append("")
            for test in failed:
                message = shown_message(str(test.get("message", "")), str(test.get("values", "")), feedback)
                lines.append(f"- {_('FAILED')}: {test.get('name', '')}" + (f" -- {message}" if message else ""))
    if feedback.selftest:
        for question in questions:
            number = question.get("number")
            if question.get("status") == PASSED and number in course.numbers and course.question(number).selftest:
                lines += ["", "## " + selftest_lines(course, number)[0], ""] + [f"- {line}" for line in selftest_lines(course, number)[1:]]
    return "\n".join(lines) + "\n"
