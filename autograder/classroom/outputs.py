"""What a class run gives besides the reports, once they are in: the gradebook files (exports.py), the class summary and
similarity.csv in OUT, and on the terminal the progress bar, the table of scores and the entries that need a look."""
import functools
import sys
import unicodedata
from pathlib import Path

from ..course.class_report import EntryReport
from ..course.manifest import Course
from ..course.results import FLAGGED
from ..i18n import _
from . import similarity, summary
from .exports import EXPORTS, safe_cell
from .intake import Entry
from .storage import write_atomically
from .summary import Summary


def write_class_files(course: Course, out: Path, reports: dict[str, EntryReport]) -> Summary:
    """The gradebook files (exports.py's EXPORTS), the class summary (summary.md, .html, .png) and similarity.csv."""
    write = functools.partial(write_atomically, sync=False)
    for export in EXPORTS.values():
        write(out / export.file, export.write(course, reports))
    written = {student: report.to_dict() for student, report in reports.items()}
    found = summary.write(
        out, written, course.title, course.numbers, write, {q.number: q.requires for q in course.questions}
    )
    write(out / similarity.FILE, similarity.csv_file(found.similar, safe_cell))
    return found


def progress(total: int, quiet: bool) -> object:
    """A tqdm bar on stderr (counts, rate, time left), disabled when stderr is not a terminal or with --quiet."""
    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread: the workers are forked after the bar is made
    return tqdm(
        total=total,
        unit="student",
        file=sys.stderr,
        disable=quiet or not sys.stderr.isatty(),
        dynamic_ncols=True,
        smoothing=0.05,
        bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]{postfix}",
    )


def display_width(text: str) -> int:
    """The columns text takes in a terminal: a wide (CJK) character two, a combining accent or a zero-width one none."""
    return sum(
        0
        if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf")
        else 2
        if unicodedata.east_asian_width(c) in "WF"
        else 1
        for c in text
    )


def score_table(course: Course, rows: list[tuple[str, dict[int, str], str]]) -> list[str]:
    """The lines of a table of scores: a header, then one row per (student, question number -> score text, total
    text)."""
    student, total = _("student"), _("total")
    width = max([display_width(student)] + [display_width(name) for name, _scores, _total in rows])

    def left(name: str) -> str:
        return name + " " * (width - display_width(name))

    lines = [
        f"{left(student)}  "
        + "  ".join(f"q{n:02d}".rjust(5) for n in course.numbers)
        + f"  {total:>6} / {course.max_score:g}"
    ]
    for name, scores, row_total in rows:
        lines.append(
            f"{left(name)}  " + "  ".join(scores.get(n, "0").rjust(5) for n in course.numbers) + f"  {row_total:>6}"
        )
    return lines


def print_table(course: Course, entries: list[Entry], reports: dict[str, EntryReport], scores: bool = True) -> None:
    """Every student's scores and total (unless not scores: the caller prints its own), then the entries that could not
    be graded, with why."""
    rows = [
        (entry.student, {n: f"{score:g}" for n, score in report.scores().items()}, f"{report.score:g}")
        for entry in entries
        if (report := reports.get(entry.student)) is not None
    ]
    if scores:
        print("\n".join(score_table(course, rows)))
    for entry in entries:
        report = reports.get(entry.student)
        if report is not None and report.problem:
            print(_("{student}: scored 0, {problem}").format(student=entry.student, problem=report.problem))
    for entry in entries:  # for the instructor to review: the code reached into the grader
        for question in report.questions if (report := reports.get(entry.student)) is not None else []:
            if question.get("status") == FLAGGED:
                print(
                    _("{student}: question {number} scored 0, {reason}").format(
                        student=entry.student, number=question.get("number"), reason=question.get("reason", "")
                    )
                )
