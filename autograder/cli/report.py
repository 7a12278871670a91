"""Render a Report as the table a student reads in the terminal."""
import ast
import dataclasses
import re
import shutil
import textwrap
from collections.abc import Collection
from pathlib import Path

from ..course.manifest import Course, decode_answer
from ..course.results import FAILED, PASSED, CaseResult, QuestionResult, Report
from ..i18n import _, ngettext, number_text
from ..plots import PICTURES
from .progress import last_status


def wrap(text: str, indent: str = "  ", width: int | None = None) -> str:
    """text wrapped to the terminal (at most 110 columns), first line at indent, the rest 2 further in; never at a hyphen."""
    width = width or min(shutil.get_terminal_size((100, 20)).columns, 110)
    return "\n".join(textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=indent + "  ",
                                   break_on_hyphens=False)) or indent


def selftest_text(course: Course, number: int, width: int) -> str:
    """A question's self-test questions, each followed by its model answer."""
    lines = ["  " + _("Self-test for question {number} (you earned the answers):").format(number=number)]
    for index, item in enumerate(course.question(number).selftest, start=1):
        lines.append(wrap(f"Q{index}. {item.question}", "    ", width))
        lines.append(wrap(f"A{index}. {decode_answer(item.answer)}", "    ", width))
    return "\n".join(lines)


def known_sentences(text: str) -> list[str]:
    """Each `; this matches a known mistake: ... (see `python -m autograder hint N`, hint M)` in text, in the current language."""
    template = _("; {mistake}").format(mistake=_("this matches a known mistake: {explanation} (see `python -m autograder hint {question}`, hint {hint})"))
    parts = re.split(r"\{(explanation|question|hint)\}", template)
    pattern = "".join(re.escape(part) if i % 2 == 0 else (".+?" if part == "explanation" else r"\d+") for i, part in enumerate(parts))
    return re.findall(pattern, text)


def failed_lines(tests: list[CaseResult], width: int) -> list[str]:
    """A line per failed check; an error met by several checks (the same exception, a forbidden call) said once, with them."""
    from ..engine.inputs import without_input  # here, not at the top: `list` and `hint` import this module without torch

    groups: dict[str, list[CaseResult]] = {}
    said: set[str] = set()  # the known-mistake sentences already printed: each is said once, in the first check that met it
    for test in tests:
        if not test.passed:
            message = test.message
            for sentence in known_sentences(message):
                if sentence in said:
                    message = message.replace(sentence, _("; the same known mistake as above"), 1)
                said.add(sentence)
            test = dataclasses.replace(test, message=message)
            groups.setdefault(without_input(test.message), []).append(test)
    lines = []
    for error, same in groups.items():
        if len(same) == 1 or all(test.message == error for test in same):  # one line: the checks named, then the message
            # TRANSLATORS: between the names of checks that failed the same way (French: a no-break space before the semicolon)
            names = _("; ").join(test.name for test in same)
            said = f" -- {same[0].message}" if same[0].message else ""  # no reason: course.yaml's feedback leaves them out
            lines.append(wrap(f"x {names}{said}", "      ", width))
            continue
        lines.append(wrap(_("x {count} checks -- {error}, on these inputs:").format(count=len(same), error=error), "      ", width))
        lines += [wrap(f"- {test.name}{test.message[len(error):]}", "          ", width) for test in same]
    return lines


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
    """The functions of the question whose checks failed in result, as far as the checks' names tell; {"*"} when unknown."""
    if result is None or result.status not in (FAILED, PASSED):
        return {"*"}
    failed = [test.name for test in result.tests if not test.passed]
    named = {function for function in course.question(result.number).functions for name in failed
             if re.search(rf"\b{re.escape(function)}\b", name)}
    return named or {"*"}


def earlier_implicated(question: QuestionResult, report: Report, course: Course) -> list[int]:
    """The earlier questions whose code may explain the failures: one the question's code reaches (through the files on the
    way: 10 -> 5 -> 4) whose file a failure names, or that is known not to be at full marks and whose broken functions (as far
    as this report's checks tell) are among the names reached; never one at full marks."""
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
        if any(name in failure for failure in failures) or (status is not None and ("*" in names or "*" in broken or names & broken)):
            implicated.append(number)
    return implicated


def printed_line(question: QuestionResult, course: Course) -> str:
    """`your code printed 3 lines; the first, during causal_mask(T=1): DEBUG ... (all of them: .autograder/output-q01.txt)`."""
    from .progress import OUTPUT_FILE

    shown = question.output.strip().splitlines()
    first = shown[0][:80]
    line = (ngettext("your code printed {count} line; the first, during {call}: {line}",
                     "your code printed {count} lines; the first, during {call}: {line}", len(shown)) if question.output_from else
            ngettext("your code printed {count} line; the first: {line}", "your code printed {count} lines; the first: {line}", len(shown)))
    line = line.format(count=len(shown), call=question.output_from, line=first)
    kept = OUTPUT_FILE.format(number=question.number)
    if (course.root / kept).exists():
        line += " " + _("(all of it, as kept: {file})").format(file=kept)
    return line


def listed(numbers: list[int]) -> str:
    """`1, 2 and 4`: question numbers in a sentence, in the current language."""
    if len(numbers) == 1:
        return str(numbers[0])
    return _("{some} and {last}").format(some=", ".join(str(n) for n in numbers[:-1]), last=numbers[-1])


def _unlocked(numbers: list[int]) -> str:
    """One sentence naming the questions whose self-tests are open, and the command that opens them."""
    if len(numbers) == 1:
        return _("Self-test of question {number} unlocked: `python -m autograder selftest {number}` opens it.").format(number=numbers[0])
    return _("Self-tests unlocked (`python -m autograder selftest N` opens one): questions {listed}.").format(listed=listed(numbers))  # the command first: never wrapped


def render(report: Report, course: Course, label: str, answers: Collection[int] | None = None) -> str:
    """Per-question table, a line or two per failed check, then the self-tests of questions at full marks.

    answers: the questions at full marks whose self-test questions and answers are printed in full; the others at full
    marks get one line saying their self-tests are unlocked. None prints them all (a report read where the student
    cannot run `selftest N`, such as Gradescope's).
    """
    width = min(shutil.get_terminal_size((100, 20)).columns, 110)
    title_width = max(len(q.title) for q in report.questions) if report.questions else 10
    lines = [_("{title}: grading {label}").format(title=course.title, label=label), ""]
    if report.sandbox:
        lines[0] += " " + _("(sandbox: {backend})").format(backend=report.sandbox["backend"])
    question_heading, score_heading, status_heading = _("Question"), _("Score"), _("Status")
    lines.append(f"  {'#':>2}  {question_heading:<{title_width}}  {score_heading:>11}  {status_heading}")
    for question in report.questions:
        score = f"{number_text(question.score)} / {number_text(question.max_score)}"
        lines.append(f"  {question.number:>2}  {question.title:<{title_width}}  {score:>11}  {_(question.status)}")
        lines += [wrap(_("note: {note}").format(note=note), "      ", width) for note in question.notes]
        if question.number in PICTURES and question.status in (PASSED, FAILED):
            lines.append(wrap(_("picture: `python -m autograder plot {number}` draws {what}").format(
                number=question.number, what=_(PICTURES[question.number])), "      ", width))
        if question.status == PASSED:
            continue
        if question.reason:
            lines.append(wrap(question.reason, "        ", width))
        if question.status in (PASSED, FAILED):
            lines += failed_lines(question.tests, width)
            implicated = earlier_implicated(question, report, course)
            numbers = [str(n) for n in implicated]
            if numbers:
                lines.append(wrap(ngettext("(question {number} runs your code from question(s) {listed}: `check {numbers}` first)",
                                           "(question {number} runs your code from question(s) {listed}: `check {numbers}` first)",
                                           len(numbers)).format(
                    number=question.number, listed=listed(implicated), numbers=" ".join(numbers)), "      ", width))
        if question.output.strip():
            lines.append(wrap(printed_line(question, course), "      ", width))
    lines += ["", "  " + _("Total: {score} / {max}").format(score=number_text(report.score), max=number_text(report.max_score))]
    earned = [q.number for q in report.questions if q.status == PASSED and course.question(q.number).selftest]
    opened = [n for n in earned if answers is None or n in answers]
    for number in opened:
        lines += ["", selftest_text(course, number, width)]
    if len(opened) < len(earned):
        lines += ["", wrap(_unlocked([n for n in earned if n not in opened]), "  ", width)]
    return "\n".join(lines)
