"""The class at a glance, from the students' reports alone: what to teach again.

summarise() reads the per-student report dicts (OUT/<student>.json: check --json's object plus student, problem,
grader_error, late_hours ...) and counts, per question, the mean, median and spread of the scores and how many
students are at full marks, partial, at zero, not attempted, in error or flagged; the known mistakes met (each test's
"mistake" id) with who made them; the checks failed most often, each failure counted in the question where it starts
(with the course's requires); who was late; and the answers that look alike (similarity.py). It is pure: the same
dicts always give the same Summary. markdown(), html() and picture() write it out; lines() is what `grade` prints at
its end; write() puts summary.md, summary.html (self-contained, the picture embedded), summary.png and
summary-public.html (the same for the class: no student named) beside grades.csv.

Only graded entries are counted: an unreadable entry or the grader's own failure is listed, never averaged in as a 0.
"""
import base64
import html as markup
import io
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..course.class_report import EntryReport
from ..i18n import _
from ..statuses import ERROR, FAILED, FLAGGED, GRADER_ERROR, LATE, NOT_ATTEMPTED, PASSED, STOPPED, UNREADABLE
from . import similarity

FULL, PARTIAL, ZERO = "full", "partial", "zero"  # besides NOT_ATTEMPTED, ERROR (any of STOPPED) and FLAGGED
OUTCOMES = (FULL, PARTIAL, ZERO, NOT_ATTEMPTED, ERROR, FLAGGED)  # what one question of one student is, in this order
MOST_FAILED = 10  # checks listed under "failed most often"
FILES = ("summary.md", "summary.html", "summary.png", "summary-public.html")  # the last one names no student


def entry_status(report: dict) -> str:
    """What a report read as JSON is (EntryReport.status): graded, late, unreadable, or grader_error."""
    return EntryReport.from_dict(report).status


def outcome(question: dict) -> str:
    """One of OUTCOMES for a question entry of a report."""
    status = question.get("status")
    if status == FLAGGED:
        return FLAGGED
    if status in STOPPED:
        return ERROR
    if status == NOT_ATTEMPTED:
        return NOT_ATTEMPTED
    score, top = float(question.get("score", 0)), float(question.get("max_score", 0))
    return FULL if score >= top > 0 else PARTIAL if score > 0 else ZERO


@dataclass
class QuestionSummary:
    """One question across the class."""

    number: int
    title: str
    max_score: float
    scores: list[float] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)  # outcome -> students

    @property
    def mean(self) -> float:
        """The mean score (0 when nobody was graded)."""
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def median(self) -> float:
        """The median score."""
        return statistics.median(self.scores) if self.scores else 0.0

    @property
    def spread(self) -> float:
        """The standard deviation of the scores (population)."""
        return statistics.pstdev(self.scores) if len(self.scores) > 1 else 0.0


@dataclass
class Summary:
    """The class: its questions, the known mistakes met, the checks failed most often, the entries left out."""

    students: int
    graded: list[str]
    questions: list[QuestionSummary]
    totals: list[float]
    max_score: float
    mistakes: dict[str, list[str]]  # mistake id -> students who made it, most common first
    # (question, check, students), most failed first, each failure where it starts
    failed: list[tuple[int, str, list[str]]]
    left_out: dict[str, tuple[str, str]]  # student -> (status, why) for the entries not graded
    late: dict[str, float]  # student -> hours late
    similar: list[similarity.Pair] = field(default_factory=list)  # answers that look alike, per question
    # (where it starts, later question) -> students
    downstream: dict[tuple[int, int], list[str]] = field(default_factory=dict)


def _builds_on(requires: dict[int, tuple[int, ...]]) -> dict[int, list[int]]:
    """Question -> every earlier question whose code it runs (course.yaml's requires, followed through), first first."""
    def below(number: int, seen: set[int]) -> set[int]:
        for earlier in requires.get(number, ()):
            if earlier not in seen:
                seen.add(earlier)
                below(earlier, seen)
        return seen

    return {number: sorted(below(number, set())) for number in requires}


def summarise(reports: dict[str, dict], requires: dict[int, tuple[int, ...]] | None = None) -> Summary:
    """The Summary of the reports (student -> report dict). requires: question -> the earlier questions whose code it
    runs (course.yaml's); a check failed in a question whose earlier question also went wrong for that student is
    counted there, where it starts, and listed once under downstream."""
    builds_on = _builds_on(requires or {})
    questions: dict[int, QuestionSummary] = {}
    mistakes: dict[str, set[str]] = {}
    failed: dict[tuple[int, str], set[str]] = {}
    downstream: dict[tuple[int, int], set[str]] = {}
    graded, totals, left_out, late, max_score = [], [], {}, {}, 0.0
    for student in sorted(reports):
        report = reports[student]
        status = entry_status(report)
        if status in (UNREADABLE, GRADER_ERROR):
            left_out[student] = (status, str(report.get("problem", "")))
            continue
        graded.append(student)
        if status == LATE:
            late[student] = float(report.get("late_hours") or 0)
        totals.append(float(report.get("score", 0)))
        max_score = max(max_score, float(report.get("max_score", 0)))
        wrong = {int(q.get("number", 0)) for q in report.get("questions", []) if q.get("status") != PASSED}
        for question in report.get("questions", []):
            number = int(question.get("number", 0))
            starts = next((earlier for earlier in builds_on.get(number, ()) if earlier in wrong), None)
            found = questions.setdefault(
                number, QuestionSummary(number, str(question.get("title", "")), float(question.get("max_score", 0)))
            )
            found.scores.append(float(question.get("score", 0)))
            found.counts[outcome(question)] += 1
            for test in question.get("tests", []):
                if test.get("mistake"):
                    mistakes.setdefault(test["mistake"], set()).add(student)
                # ran and failed: not a stub, not a stop
                if not test.get("passed") and question.get("status") == FAILED:
                    if starts is None:
                        failed.setdefault((number, str(test.get("name", ""))), set()).add(student)
                    else:  # an echo of an earlier question that went wrong: shown there
                        downstream.setdefault((starts, number), set()).add(student)
    ranked = sorted(mistakes.items(), key=lambda item: (-len(item[1]), item[0]))
    most = sorted(failed.items(), key=lambda item: (-len(item[1]), item[0]))[:MOST_FAILED]
    return Summary(
        len(reports),
        graded,
        [questions[n] for n in sorted(questions)],
        totals,
        max_score,
        {name: sorted(who) for name, who in ranked},
        [(n, name, sorted(who)) for (n, name), who in most],
        left_out,
        late,
        similarity.pairs({student: reports[student] for student in graded}),
        {key: sorted(who) for key, who in sorted(downstream.items())},
    )


def _g(value: float) -> str:
    """A score as the reports write it (7.5, 8, 3.33), with the current language's decimal separator."""
    return f"{round(value, 2):g}".replace(".", _("."))  # "." is the decimal separator: French writes 7,5


def _outcome_names() -> dict[str, str]:
    return {
        FULL: _("full marks"),
        PARTIAL: _("partial"),
        ZERO: _("zero"),
        NOT_ATTEMPTED: _("not attempted"),
        ERROR: _("error"),
        FLAGGED: _("flagged"),
    }


def _tables(
    summary: Summary, labels: dict[str, str], public: bool = False
) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of each table of the summary, in the current language; labels: mistake id -> what it is;
    public: the tables for the class, which name no student (no "who" column; no list of entries, lateness or
    look-alikes)."""
    names = _outcome_names()
    questions = (
        _("Questions"),
        [_("question"), _("mean"), _("median"), _("spread (sd)"), _("lowest-highest"), *names.values()],
        [
            [
                f"{q.number} {q.title}",
                f"{_g(q.mean)} / {_g(q.max_score)}",
                _g(q.median),
                _g(q.spread),
                f"{_g(min(q.scores, default=0))}-{_g(max(q.scores, default=0))}",
                *(str(q.counts[o]) for o in OUTCOMES),
            ]
            for q in summary.questions
        ],
    )
    mistakes = (
        _("Known mistakes met"),
        [_("mistake"), _("what it is"), _("students"), _("who")],
        [[name, labels.get(name, ""), str(len(who)), ", ".join(who)] for name, who in summary.mistakes.items()],
    )
    failed = (
        _("Checks failed most often"),
        [_("question"), _("check"), _("students"), _("who")],
        [[str(number), name, str(len(who)), ", ".join(who)] for number, name, who in summary.failed],
    )
    echoes = (
        _("Failures that start in an earlier question"),
        [_("where it starts"), _("also failed in"), _("students"), _("who")],
        [[str(first), str(later), str(len(who)), ", ".join(who)] for (first, later), who in summary.downstream.items()],
    )
    statuses = {UNREADABLE: _("unreadable"), GRADER_ERROR: _("grader_error")}
    left = (
        _("Entries not graded"),
        [_("student"), _("status"), _("why")],
        [[student, statuses.get(status, status), why] for student, (status, why) in summary.left_out.items()],
    )
    late = (
        _("Late"),
        [_("student"), _("hours late")],
        [[student, _g(hours)] for student, hours in summary.late.items()],
    )
    similar = (
        _("Answers that look alike: a lead for a human to read, never a verdict"),
        [_("question"), _("students"), _("how"), _("similarity")],
        [[str(number), ", ".join(who), _("identical files"), "1"] for number, who in similarity.groups(summary.similar)]
        + [
            [
                str(p.question),
                f"{p.one}, {p.other}",
                _("near-identical (same code once names, comments and layout are set aside)"),
                _g(p.score),
            ]
            for p in summary.similar
            if p.kind == similarity.NEAR_IDENTICAL
        ],
    )
    if public:  # without the "who" column, the last of each of these
        unnamed = [
            (caption, header[:-1], [row[:-1] for row in rows]) for caption, header, rows in (mistakes, failed, echoes)
        ]
        return [table for table in (questions, *unnamed) if table[2]]
    return [table for table in (questions, mistakes, failed, echoes, late, left, similar) if table[2]]


def headline(summary: Summary) -> str:
    """One sentence: how many students, graded, left out, late, and the class's mean and median total."""
    text = _("{students} student(s), {graded} graded").format(students=summary.students, graded=len(summary.graded))
    if summary.left_out:
        text += _(", {count} not graded (unreadable or the grader's failure)").format(count=len(summary.left_out))
    if summary.late:
        text += _(", {count} late").format(count=len(summary.late))
    if summary.totals:
        text += _("; total: mean {mean} / {top}, median {median}").format(
            mean=_g(statistics.fmean(summary.totals)),
            top=_g(summary.max_score),
            median=_g(statistics.median(summary.totals)),
        )
    return text


def _audience(public: bool) -> str:
    """The line that says whom the file is for."""
    if public:
        return _("This summary names no student: it can be shared with the class.")
    return _(
        "This summary names students beside their mistakes: keep it to the teaching staff, and share {file} with the "
        "class."
    ).format(file=FILES[3])


def markdown(summary: Summary, labels: dict[str, str], title: str, picture: str = FILES[2]) -> str:
    """summary.md: the headline, the picture, then a table each for questions, mistakes, checks, echoes, lateness,
    entries left out and answers that look alike."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    heading, alt = _("Class summary: {title}").format(title=title), _("Score distribution per question")
    parts = [f"# {heading}", "", headline(summary) + ".", "", _audience(False), ""]
    if summary.questions:
        parts += [f"![{alt}]({picture})", ""]
    for caption, header, rows in _tables(summary, labels):
        parts += [f"## {caption}", "", "| " + " | ".join(map(cell, header)) + " |", "|" + "---|" * len(header)]
        parts += ["| " + " | ".join(map(cell, row)) + " |" for row in rows] + [""]
    return "\n".join(parts)


def html(summary: Summary, labels: dict[str, str], title: str, png: bytes | None, public: bool = False) -> str:
    """summary.html: the same as summary.md, one file with its picture embedded (nothing fetched when opened); public:
    summary-public.html, the same without a student's name."""
    escape = markup.escape
    heading, alt = escape(_("Class summary: {title}").format(title=title)), escape(_("Score distribution per question"))
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{heading}</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin-bottom:1.5em}"
        "th,td{border:1px solid #bbb;padding:.25em .6em;text-align:left;vertical-align:top}th{background:#eee}"
        "img{max-width:100%}</style></head><body>",
        f"<h1>{heading}</h1>",
        f"<p>{escape(headline(summary))}.</p>",
        f"<p><em>{escape(_audience(public))}</em></p>",
    ]
    if png:
        source = "data:image/png;base64," + base64.b64encode(png).decode()
        parts.append(f'<p><img alt="{alt}" src="{source}"></p>')
    for caption, header, rows in _tables(summary, labels, public):
        parts += [
            f"<h2>{escape(caption)}</h2>",
            "<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr>",
        ]
        parts += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows] + ["</table>"]
    return "\n".join(parts + ["</body></html>", ""])


def picture(summary: Summary) -> bytes | None:
    """summary.png: one histogram of the scores per question (students per score), drawn headless; None without
    questions."""
    if not summary.questions:
        return None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    columns = min(5, len(summary.questions))
    rows = -(-len(summary.questions) // columns)
    figure = Figure(figsize=(2.6 * columns, 2.2 * rows + 0.6), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for ax, question in zip(axes, summary.questions):
        top = question.max_score or 1.0
        ax.hist(
            question.scores,
            bins=min(10, max(1, int(top))) if top >= 1 else 10,
            range=(0, top),
            color="#4c72b0",
            edgecolor="white",
        )
        ax.set_title(
            _("q{number}: mean {mean} / {top}").format(number=question.number, mean=_g(question.mean), top=_g(top)),
            fontsize=8,
        )
        ax.set_xlim(0, top)
        ax.tick_params(labelsize=7)
        ax.yaxis.get_major_locator().set_params(integer=True)
    for ax in axes[len(summary.questions) :]:
        ax.set_visible(False)
    figure.supxlabel(_("score"), fontsize=8)
    figure.supylabel(_("students"), fontsize=8)
    figure.suptitle(
        _("Score distribution per question ({count} students graded)").format(count=len(summary.graded)), fontsize=10
    )
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    return buffer.getvalue()


def lines(summary: Summary, out: Path, top: int = 3) -> list[str]:
    """What `grade` prints at its end: the headline, the questions most missed, the commonest mistakes, where the
    files are."""
    found = [headline(summary)]
    missed = sorted((q for q in summary.questions if q.max_score), key=lambda q: (q.mean / q.max_score, q.number))[:top]
    if missed and summary.graded:
        found.append(
            _("  lowest questions: {questions}").format(
                questions=", ".join(
                    _("q{number} (mean {mean} / {top}, {full} at full marks)").format(
                        number=q.number, mean=_g(q.mean), top=_g(q.max_score), full=q.counts[FULL]
                    )
                    for q in missed
                )
            )
        )
    if summary.mistakes:
        found.append(
            _("  commonest known mistakes: {mistakes}").format(
                mistakes=", ".join(
                    _("{name} ({count})").format(name=name, count=len(who))
                    for name, who in list(summary.mistakes.items())[:top]
                )
            )
        )
    if summary.similar:
        found.append(
            _(
                "  answers that look alike: {count} pair(s), in {file} and the summary (a lead to read, not a verdict)"
            ).format(count=len(summary.similar), file=similarity.FILE)
        )
    found.append(
        _("  class summary: {files} in {out} ({public}: the same without names, for the class)").format(
            files=", ".join(FILES[:2]), out=out, public=FILES[3]
        )
    )
    return found


def mistake_labels(numbers: list[int]) -> dict[str, str]:
    """Mistake id -> its explanation in the current language, for the known mistakes of questions numbers."""
    from ..engine.mistakes import bank

    found = {}
    for number in numbers:
        banked = bank(number)
        for mistake in banked.mistakes if banked else ():
            found[banked.name(mistake)] = _(mistake.explanation)
    return found


def write(
    out: Path,
    reports: dict[str, dict],
    title: str,
    numbers: list[int],
    write_file: Callable[[Path, bytes], None],
    requires: dict[int, tuple[int, ...]] | None = None,
) -> Summary:
    """summary.md, summary.html, summary.png and summary-public.html (no student named) in out, from reports;
    write_file(path, data) writes one file atomically; requires: question -> the earlier questions whose code it
    runs."""
    summary = summarise(reports, requires)
    labels = mistake_labels(numbers)
    png = picture(summary)
    if png is not None:
        write_file(out / FILES[2], png)
    else:
        (out / FILES[2]).unlink(missing_ok=True)
    write_file(out / FILES[0], markdown(summary, labels, title).encode())
    write_file(out / FILES[1], html(summary, labels, title, png).encode())
    write_file(out / FILES[3], html(summary, labels, title, png, public=True).encode())
    return summary
