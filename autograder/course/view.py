"""One view of a report, made once from the result model, that every renderer draws: the terminal's text
(course/text.py: the CLI's table and Gradescope's results.json), the notebook's HTML (notebook.py) and the feedback
file's markdown (course/feedback.py).

A view says what the student is told, in the current language (numbers with its decimal separator), and nothing of
how it is drawn: per question its score, its status and its lines (notes, picture, reason, failures grouped by error,
earlier questions to check first, printed output), then the total and the self-tests. A new kind of report line is
one more Line made here; each renderer draws every line, and at most picks an indent or a style by its kind.
"""
import dataclasses
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ..i18n import _, ngettext, number_text
from .manifest import Course, decode_answer
from .results import FAILED, PASSED, CaseResult, QuestionResult, Report, without_input

# a Line's kinds
NOTE, PICTURE, REASON, FAILURE, EARLIER, PRINTED = "note", "picture", "reason", "failure", "earlier", "printed"


@dataclass(frozen=True)
class Line:
    """One line of what a question's report says; a failure met by several checks lists their inputs in items."""

    kind: str
    text: str
    items: tuple[str, ...] = ()


@dataclass(frozen=True)
class QuestionView:
    """One question as the report shows it: its row of the table and the lines below it."""

    number: int
    title: str
    score: str  # `7,5 / 10`, in the current language
    status: str  # the contract's status, in English (renderers colour by it)
    status_text: str  # the status in the current language
    lines: tuple[Line, ...] = ()


@dataclass(frozen=True)
class SelfTest:
    """A question's self-test questions, each with its model answer, under a heading."""

    heading: str
    items: tuple[tuple[str, str], ...]  # (`Q1. ...`, `A1. ...`)


@dataclass(frozen=True)
class ReportView:
    """A whole report as every renderer shows it."""

    heading: str  # `Attention: grading exercises/ (sandbox: linux)`
    columns: tuple[str, str, str]  # the table's headings after `#`: question, score, status
    questions: tuple[QuestionView, ...]
    total: str  # `Total: 37,5 / 100`
    selftests: tuple[SelfTest, ...] = ()  # those whose answers are shown
    unlocked: str = ""  # the sentence naming the other self-tests now open, "" when there are none


@dataclass(frozen=True)
class Local:
    """What the report adds where the student's own kit is (`check`): facts that the result model does not hold."""

    # question -> what `plot N` draws (untranslated)
    pictures: Mapping[int, str] = dataclasses.field(default_factory=dict)
    # question -> earlier questions to check first
    earlier: Mapping[int, Sequence[int]] = dataclasses.field(default_factory=dict)
    kept: Mapping[int, str] = dataclasses.field(default_factory=dict)  # question -> the file holding all it printed


def known_sentences(text: str) -> list[str]:
    """Each `; this matches a known mistake: ... (see `python -m autograder hint N`, hint M)` in text, in the current
    language."""
    template = _("; {mistake}").format(
        mistake=_(
            "this matches a known mistake: {explanation} (see `python -m autograder hint {question}`, hint {hint})"
        )
    )
    parts = re.split(r"\{(explanation|question|hint)\}", template)
    pattern = "".join(
        re.escape(part) if i % 2 == 0 else (".+?" if part == "explanation" else r"\d+") for i, part in enumerate(parts)
    )
    return re.findall(pattern, text)


def failure_lines(tests: Sequence[CaseResult]) -> list[Line]:
    """A line per failed check; an error met by several checks (the same exception, a forbidden call) said once, with
    their inputs as items; a known mistake named once, in the first check that met it."""
    groups: dict[str, list[CaseResult]] = {}
    said: set[str] = set()
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
        # one line: the checks named, then the message
        if len(same) == 1 or all(test.message == error for test in same):
            # TRANSLATORS: between the names of checks that failed the same way (French: a no-break space before the
            # semicolon)
            names = _("; ").join(test.name for test in same)
            # no reason: course.yaml's feedback leaves them out
            reason = f" -- {same[0].message}" if same[0].message else ""
            lines.append(Line(FAILURE, f"x {names}{reason}"))
        else:
            lines.append(
                Line(
                    FAILURE,
                    _("x {count} checks -- {error}, on these inputs:").format(count=len(same), error=error),
                    tuple(f"{test.name}{test.message[len(error) :]}" for test in same),
                )
            )
    return lines


def listed(numbers: Sequence[int]) -> str:
    """`1, 2 and 4`: question numbers in a sentence, in the current language."""
    if len(numbers) == 1:
        return str(numbers[0])
    return _("{some} and {last}").format(some=", ".join(str(n) for n in numbers[:-1]), last=numbers[-1])


def printed_line(question: QuestionResult, kept: str = "") -> str:
    """`your code printed 3 lines; the first, during causal_mask(T=1): DEBUG ... (all of it, as kept:
    .autograder/output-q01.txt)`."""
    shown = question.output.strip().splitlines()
    line = (
        ngettext(
            "your code printed {count} line; the first, during {call}: {line}",
            "your code printed {count} lines; the first, during {call}: {line}",
            len(shown),
        )
        if question.output_from
        else ngettext(
            "your code printed {count} line; the first: {line}",
            "your code printed {count} lines; the first: {line}",
            len(shown),
        )
    )
    line = line.format(count=len(shown), call=question.output_from, line=shown[0][:80])
    return line + (" " + _("(all of it, as kept: {file})").format(file=kept) if kept else "")


def question_lines(question: QuestionResult, local: Local) -> list[Line]:
    """What the report says under a question's row, in order."""
    lines = [Line(NOTE, _("note: {note}").format(note=note)) for note in question.notes]
    if question.number in local.pictures and question.status in (PASSED, FAILED):
        lines.append(
            Line(
                PICTURE,
                _("picture: `python -m autograder plot {number}` draws {what}").format(
                    number=question.number, what=_(local.pictures[question.number])
                ),
            )
        )
    if question.status == PASSED:
        return lines
    if question.reason:
        lines.append(Line(REASON, question.reason))
    if question.status == FAILED:
        lines += failure_lines(question.tests)
        implicated = list(local.earlier.get(question.number, ()))
        if implicated:
            lines.append(
                Line(
                    EARLIER,
                    ngettext(
                        "(question {number} runs your code from question(s) {listed}: `check {numbers}` first)",
                        "(question {number} runs your code from question(s) {listed}: `check {numbers}` first)",
                        len(implicated),
                    ).format(number=question.number, listed=listed(implicated), numbers=" ".join(map(str, implicated))),
                )
            )
    if question.output.strip():
        lines.append(Line(PRINTED, printed_line(question, local.kept.get(question.number, ""))))
    return lines


def selftest(course: Course, number: int) -> SelfTest:
    """The self-test questions of question number with their model answers."""
    items = course.question(number).selftest
    pairs = tuple(
        (f"Q{index}. {item.question}", f"A{index}. {decode_answer(item.answer)}")
        for index, item in enumerate(items, start=1)
    )
    return SelfTest(_("Self-test for question {number} (you earned the answers):").format(number=number), pairs)


def _unlocked(numbers: list[int]) -> str:
    """One sentence naming the questions whose self-tests are open, and the command that opens them."""
    if not numbers:
        return ""
    if len(numbers) == 1:
        return _("Self-test of question {number} unlocked: `python -m autograder selftest {number}` opens it.").format(
            number=numbers[0]
        )
    return _("Self-tests unlocked (`python -m autograder selftest N` opens one): questions {listed}.").format(
        listed=listed(numbers)
    )


def score_text(score: float, points: float) -> str:
    """`7,5 / 10`: a score out of its points, in the current language."""
    return f"{number_text(score)} / {number_text(points)}"


def report_view(
    report: Report, course: Course, label: str, answers: Collection[int] | None = None, local: Local | None = None
) -> ReportView:
    """The view of report, graded from label (`exercises/`, a notebook), as every renderer shows it.

    answers: the questions at full marks whose self-test answers are shown; the others at full marks get one sentence
    saying their self-tests are unlocked. None shows them all. local: what only the student's own kit knows.
    """
    local = local or Local()
    heading = _("{title}: grading {label}").format(title=course.title, label=label)
    if report.sandbox:
        heading += " " + _("(sandbox: {backend})").format(backend=report.sandbox["backend"])
    questions = tuple(
        QuestionView(
            q.number, q.title, score_text(q.score, q.max_score), q.status, _(q.status), tuple(question_lines(q, local))
        )
        for q in report.questions
    )
    earned = [
        q.number
        for q in report.questions
        if q.status == PASSED and q.number in course.numbers and course.question(q.number).selftest
    ]
    opened = [n for n in earned if answers is None or n in answers]
    return ReportView(
        heading,
        (_("Question"), _("Score"), _("Status")),
        questions,
        _("Total: {score} / {max}").format(score=number_text(report.score), max=number_text(report.max_score)),
        tuple(selftest(course, n) for n in opened),
        _unlocked([n for n in earned if n not in opened]),
    )
