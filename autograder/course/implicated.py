"""Which earlier questions may explain a failure: the files a question's code reaches (10 -> 5 -> 4) and what failed
there."""
import ast
import re
from collections.abc import Callable
from pathlib import Path

from .manifest import Course, Question
from .results import FAILED, PASSED, QuestionResult, Report

LastStatus = Callable[[Course, Question], "str | None"] | None


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


def earlier_implicated(
    question: QuestionResult, report: Report, course: Course, last_status: LastStatus = None
) -> list[int]:
    """The earlier questions whose code may explain the failures: one the question's code reaches (through the files
    on the way: 10 -> 5 -> 4) whose file a failure names, or that is known not to be at full marks and whose broken
    functions (as far as this report's checks tell) are among the names reached; never one at full marks.

    last_status: the status a question not in report had at the student's last `check` (their own kit only)."""
    failures = [question.reason] + [test.message for test in question.tests if not test.passed]
    results = {result.number: result for result in report.questions}
    found = []
    for number, names in sorted(reached(course, question.number).items()):
        name = course.question(number).file.split("/")[-1]
        result = results.get(number)
        if result is not None:
            status = result.status
        else:
            status = last_status(course, course.question(number)) if last_status else None
        if status == PASSED:
            continue
        broken = _broken(course, result)
        if any(name in failure for failure in failures) or (
            status is not None and ("*" in names or "*" in broken or names & broken)
        ):
            found.append(number)
    return found


def implicated(report: Report, course: Course, last_status: LastStatus = None) -> dict[int, list[int]]:
    """{failed question: the earlier questions whose code may explain its failures}, for every failed question."""
    failed = [q for q in report.questions if q.status == FAILED]
    return {q.number: earlier_implicated(q, report, course, last_status) for q in failed}
