"""Render a Report as the table a student reads in the terminal."""
import shutil
import textwrap

from ..course.manifest import Course, decode_answer
from ..course.results import PASSED, CaseResult, QuestionResult, Report
from .progress import last_status


def wrap(text: str, indent: str = "  ", width: int | None = None) -> str:
    """text wrapped to the terminal (at most 110 columns), first line at indent, the rest 2 further in."""
    width = width or min(shutil.get_terminal_size((100, 20)).columns, 110)
    return "\n".join(textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=indent + "  ")) or indent


def selftest_text(course: Course, number: int, width: int) -> str:
    """A question's self-test questions, each followed by its model answer."""
    lines = [f"  Self-test for question {number} (you earned the answers):"]
    for index, item in enumerate(course.question(number).selftest, start=1):
        lines.append(wrap(f"Q{index}. {item.question}", "    ", width))
        lines.append(wrap(f"A{index}. {decode_answer(item.answer)}", "    ", width))
    return "\n".join(lines)


def failed_lines(tests: list[CaseResult], width: int) -> list[str]:
    """A line per failed check; an error met by several checks (the same exception, a forbidden call) said once, with them."""
    from ..engine.inputs import without_input  # here, not at the top: `list` and `hint` import this module without torch

    groups: dict[str, list[CaseResult]] = {}
    for test in tests:
        if not test.passed:
            groups.setdefault(without_input(test.message), []).append(test)
    lines = []
    for error, same in groups.items():
        if len(same) == 1 or all(test.message == error for test in same):  # one line: the checks named, then the message
            lines.append(wrap(f"x {'; '.join(test.name for test in same)} -- {same[0].message}", "      ", width))
            continue
        lines.append(wrap(f"x {len(same)} checks -- {error}, on these inputs:", "      ", width))
        lines += [wrap(f"- {test.name}{test.message[len(error):]}", "          ", width) for test in same]
    return lines


def earlier_implicated(question: QuestionResult, report: Report, course: Course) -> list[int]:
    """The required questions whose code may explain the failures: named in a failure, or known not to be at full marks."""
    failures = [question.reason] + [test.message for test in question.tests if not test.passed]
    known = {result.number: result.status for result in report.questions}
    implicated = []
    for number in course.question(question.number).requires:
        name = course.question(number).file.split("/")[-1]
        status = known.get(number) or last_status(course, course.question(number))
        if any(name in failure for failure in failures) or status not in (None, PASSED):
            implicated.append(number)
    return implicated


def render(report: Report, course: Course, label: str, selftests: bool = True) -> str:
    """Per-question table, a line or two per failed check, then self-tests of questions at full marks."""
    width = min(shutil.get_terminal_size((100, 20)).columns, 110)
    title_width = max(len(q.title) for q in report.questions) if report.questions else 10
    lines = [f"{course.title}: grading {label}", ""]
    lines.append(f"  {'#':>2}  {'Question':<{title_width}}  {'Score':>11}  Status")
    for question in report.questions:
        score = f"{question.score:g} / {question.max_score:g}"
        lines.append(f"  {question.number:>2}  {question.title:<{title_width}}  {score:>11}  {question.status}")
        lines += [wrap(f"note: {note}", "      ", width) for note in question.notes]
        if question.status == PASSED:
            continue
        if question.reason:
            lines.append(wrap(question.reason, "        ", width))
        if question.status in ("passed", "failed"):
            lines += failed_lines(question.tests, width)
            numbers = [str(n) for n in earlier_implicated(question, report, course)]
            if numbers:
                lines.append(wrap(f"(question {question.number} runs your code from question(s) {', '.join(numbers)}: "
                                  f"`check {' '.join(numbers)}` first)", "      ", width))
        if question.output.strip():
            shown = question.output.strip().splitlines()
            lines.append(f"      your code printed {len(shown)} line(s); the first: {shown[0][:80]}")
    lines += ["", f"  Total: {report.score:g} / {report.max_score:g}"]
    if selftests:
        for question in report.questions:
            if question.status == PASSED and course.question(question.number).selftest:
                lines += ["", selftest_text(course, question.number, width)]
    return "\n".join(lines)
