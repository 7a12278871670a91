"""The gradebook files of a class: grades.csv and the files an LMS imports, one registry that `grade`, its --help and
the docs read (EXPORTS: name -> file, one-line description, the function that writes it from the course and the
reports).

A new format is one function (course, student -> EntryReport) -> bytes and one line in EXPORTS. grades.csv is the
kit's own table (student, q1..q10, total, status, committed_at, late_hours), rewritten after each result. canvas.csv
follows Canvas's gradebook import: the columns Student, ID, SIS User ID, SIS Login ID and Section, then one
assignment column (the course's lms_name); a second row "Points Possible" gives the assignment's points; each
student's entry name goes in SIS Login ID (Canvas matches a row by ID, SIS User ID or SIS Login ID) and Student.
moodle.csv follows Moodle's CSV grade import: a header row, an identifier column ("username", mapped to Moodle's
username on import: choose email or ID number there when the entries are named so) and one grade column. In an LMS
file, an entry the grader itself failed on gets an empty cell (the LMS leaves that grade as it is: nothing is
decided), an unreadable one its 0, as in grades.csv."""
import csv
import io
from collections.abc import Callable
from dataclasses import dataclass

from ..course.class_report import GRADER_ERROR, EntryReport
from ..course.manifest import Course
from ..course.results import number
from ..i18n import N_, _

CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_POINTS = "Points Possible"
MOODLE_IDENTIFIER = "username"


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as the start of a formula


def safe_cell(text: str) -> str:
    """text as a spreadsheet shows it, never run: one that starts like a formula gets a leading apostrophe (an entry
    named `=HYPERLINK(...)` by its student stays text in Excel, LibreOffice and Google Sheets)."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _score(report: EntryReport) -> str:
    """The total to import, or "" when the grader failed on the entry (no grade decided)."""
    return "" if report.status == GRADER_ERROR else str(number(report.score))


def _text(rows: list[list[str]], lineterminator: str = "\r\n") -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=lineterminator).writerows(rows)
    return buffer.getvalue().encode("utf-8")


def grades_csv(course: Course, reports: dict[str, EntryReport]) -> bytes:
    """grades.csv: student, q1..q10, total, status (graded, late, unreadable, grader_error; followed by " (weak
    isolation)" when graded where the kernel walls were missing), and with a deadline the graded commit's date and
    how many hours late it was; the scores as check --json gives them."""
    rows = [["student", *(f"q{n}" for n in course.numbers), "total", "status", "committed_at", "late_hours"]]
    for student in sorted(reports):
        report = reports[student]
        scores = report.scores()
        rows.append([safe_cell(student), *(number(scores.get(n, 0)) for n in course.numbers), number(report.score),
                     report.status + (" (weak isolation)" if report.weak_isolation else ""),
                     report.committed_at, number(report.late_hours) if report.late_hours is not None else ""])
    return _text(rows, "\n")


def canvas_csv(course: Course, reports: dict[str, EntryReport]) -> bytes:
    """canvas.csv for the reports (student -> report): identity columns, the assignment's column, the Points Possible
    row."""
    rows = [[*CANVAS_IDENTITY, course.lms_name], [CANVAS_POINTS, "", "", "", "", str(number(course.max_score))]]
    rows += [
        [safe_cell(student), "", "", safe_cell(student), "", _score(reports[student])] for student in sorted(reports)
    ]
    return _text(rows)


def moodle_csv(course: Course, reports: dict[str, EntryReport]) -> bytes:
    """moodle.csv for the reports: the identifier column and the grade item's column."""
    return _text(
        [[MOODLE_IDENTIFIER, course.lms_name]]
        + [[safe_cell(student), _score(reports[student])] for student in sorted(reports)]
    )


@dataclass(frozen=True)
class Export:
    """One gradebook file: its name in OUT, what it is for (one line, translated when shown) and what writes it."""

    file: str
    description: str
    write: Callable[[Course, dict[str, EntryReport]], bytes]


EXPORTS: dict[str, Export] = {  # written in this order; grades.csv also after each result
    "grades": Export("grades.csv", N_("every student's score per question, total and status"), grades_csv),
    "canvas": Export("canvas.csv", N_("the totals for Canvas's gradebook import"), canvas_csv),
    "moodle": Export("moodle.csv", N_("the totals for Moodle's CSV grade import"), moodle_csv),
}


def described() -> list[str]:
    """One line per gradebook file, as `grade --help` lists them: OUT/file and what it is for."""
    return [
        _("OUT/{file}: {description}").format(file=export.file, description=_(export.description))
        for export in EXPORTS.values()
    ]
