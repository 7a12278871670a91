"""Render a Report as the table a student reads in the terminal."""
import ast
import re
import shutil
import textwrap
from collections.abc import Collection
from pathlib import Path

from ..course.manifest import Course
from ..course.results import FAILED, PASSED, CaseResult, QuestionResult, Report
from ..course.view import REASON, Line, Local, ReportView, failure_lines, report_view
from ..plots import PICTURES
from .progress import OUTPUT_FILE, last_status


def wrap(text: str, indent: str = "  ", width: int | None = None) -> str:
    """text wrapped to the terminal (at most 110 columns), first line at indent, the rest 2 further in; never at a
    hyphen."""
    width = width or min(shutil.get_terminal_size((100, 20)).columns, 110)
    return "\n".join(textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=indent + "  ",
                                   break_on_hyphens=False)) or indent


def failed_lines(tests: list[CaseResult], width: int) -> list[str]:
    """A line per failed check, as the table shows them under a question (an error met by several checks said once)."""
    return [row for line in failure_lines(tests) for row in _line_text(line, width)]


def _imports(course: Course, number: int) -> dict[int, set[str]] | None:
    """{other question: the names the student's file of question number imports from its file ("*" for a whole module)};
    None when the file cannot be read or parsed."""
    try:
        tree = ast.parse((course.root / course.question(number).file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    stems = {Path(q.file).stem: q.number for q in course.questions if q.number != number}
    found: dict[int, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[-1] in stems:
            found.setdefault(stems[node.module.split(".")[-1]], set()).update(alias.name for alias in node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name.split(".")[-1] in stems:
                    found.setdefault(stems[alias.name.split(".")[-1]], set()).add("*")
    return found


def reached(course: Course, number: int) -> dict[int, set[str]]:
    """{earlier question: the names of its file that the code of question number may run}, through every file on the way
    (question 10 -> 5 -> 4); a file that cannot be parsed counts as using all of its course.yaml requires."""
    seen: dict[int, set[str]] = {}
    stack = [number]
    while stack:
        current = stack.pop()
        imports = _imports(course, current)
        if imports is None:
            imports = {required: {"*"} for required in course.question(current).requires}
        for other, names in imports.items():
            if other not in seen and other != number:
                stack.append(other)
            seen.setdefault(other, set()).update(names)
    seen.pop(number, None)
    return seen


def _broken(course: Course, result: QuestionResult | None) -> set[str]:
    """The functions of the question whose checks failed in result, as far as the checks' names tell; {"*"} when
    unknown."""
    if result is None or result.status not in (FAILED, PASSED):
        return {"*"}
    failed = [test.name for test in result.tests if not test.passed]
    named = {function for function in course.question(result.number).functions for name in failed
             if re.search(rf"\b{re.escape(function)}\b", name)}
    return named or {"*"}


def earlier_implicated(question: QuestionResult, report: Report, course: Course) -> list[int]:
    """The earlier questions whose code may explain the failures: one the question's code reaches (through the files
    on the way: 10 -> 5 -> 4) whose file a failure names, or that is known not to be at full marks and whose broken
    functions (as far as this report's checks tell) are among the names reached; never one at full marks."""
    failures = [question.reason] + [test.message for test in question.tests if not test.passed]
    results = {result.number: result for result in report.questions}
    implicated = []
    for number, names in sorted(reached(course, question.number).items()):
        name = course.question(number).file.split("/")[-1]
        result = results.get(number)
        status = result.status if result is not None else last_status(course, course.question(number))
        if status == PASSED:
            continue
        broken = _broken(course, result)
        if any(name in failure for failure in failures) or (
            status is not None and ("*" in names or "*" in broken or names & broken)
        ):
            implicated.append(number)
    return implicated


def local_facts(report: Report, course: Course) -> Local:
    """What the student's own kit adds to report: the pictures `plot N` draws, the earlier questions to check first,
    the files that kept what the code printed."""
    kept = {q.number: OUTPUT_FILE.format(number=q.number) for q in report.questions if q.output.strip()}
    return Local(
        PICTURES,
        {q.number: earlier_implicated(q, report, course) for q in report.questions if q.status == FAILED},
        {number: file for number, file in kept.items() if (course.root / file).exists()},
    )


INDENTS = {REASON: "        "}  # a line's indent under its question's row, by kind; the others get DEFAULT_INDENT
DEFAULT_INDENT, ITEM_INDENT = "      ", "          "


def _line_text(line: Line, width: int) -> list[str]:
    """One line of the view as the terminal shows it, wrapped; a grouped failure's inputs below it, one a line."""
    return [wrap(line.text, INDENTS.get(line.kind, DEFAULT_INDENT), width)] + [
        wrap(f"- {item}", ITEM_INDENT, width) for item in line.items
    ]


def text(view: ReportView, width: int | None = None) -> str:
    """The view as the table a student reads in the terminal."""
    width = width or min(shutil.get_terminal_size((100, 20)).columns, 110)
    title_width = max((len(q.title) for q in view.questions), default=10)
    question_heading, score_heading, status_heading = view.columns
    lines = [view.heading, "", f"  {'#':>2}  {question_heading:<{title_width}}  {score_heading:>11}  {status_heading}"]
    for question in view.questions:
        lines.append(
            f"  {question.number:>2}  {question.title:<{title_width}}  {question.score:>11}  {question.status_text}"
        )
        lines += [row for line in question.lines for row in _line_text(line, width)]
    lines += ["", "  " + view.total]
    for item in view.selftests:
        lines += ["", "  " + item.heading] + [wrap(row, "    ", width) for pair in item.items for row in pair]
    if view.unlocked:
        lines += ["", wrap(view.unlocked, "  ", width)]
    return "\n".join(lines)


def render(report: Report, course: Course, label: str, answers: Collection[int] | None = None) -> str:
    """Per-question table, a line or two per failed check, then the self-tests of questions at full marks.

    answers: the questions at full marks whose self-test questions and answers are printed in full; the others at full
    marks get one line saying their self-tests are unlocked. None prints them all (a report read where the student
    cannot run `selftest N`, such as Gradescope's).
    """
    return text(report_view(report, course, label, answers, local_facts(report, course)))
