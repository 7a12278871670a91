"""Gradebook files an LMS imports, written beside grades.csv from the students' reports.

canvas.csv follows Canvas's gradebook import: the columns Student, ID, SIS User ID, SIS Login ID and Section, then one
assignment column (the course's title); a second row "Points Possible" gives the assignment's points; each student's
entry name goes in SIS Login ID (Canvas matches a row by ID, SIS User ID or SIS Login ID) and Student. moodle.csv
follows Moodle's CSV grade import: a header row, an identifier column ("username", mapped to Moodle's username on
import: choose email or ID number there when the entries are named so) and one grade column. An entry the grader
itself failed on gets an empty cell in both (Canvas and Moodle leave that grade as it is: nothing is decided), an
unreadable one its 0, as in grades.csv.
"""
import csv
import io

from ..course.results import number
from .entry import GRADER_ERROR, EntryReport

CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_POINTS = "Points Possible"
MOODLE_IDENTIFIER = "username"
FILES = ("canvas.csv", "moodle.csv")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as the start of a formula


def safe_cell(text: str) -> str:
    """text as a spreadsheet shows it, never run: one that starts like a formula gets a leading apostrophe (an entry
    named `=HYPERLINK(...)` by its student stays text in Excel, LibreOffice and Google Sheets)."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _score(report: EntryReport) -> str:
    """The total to import, or "" when the grader failed on the entry (no grade decided)."""
    return "" if report.status == GRADER_ERROR else str(number(report.score))


def _text(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


def canvas_csv(reports: dict[str, EntryReport], assignment: str, points: float) -> bytes:
    """canvas.csv for the reports (student -> report): identity columns, the assignment's column, the Points Possible row."""
    rows = [[*CANVAS_IDENTITY, assignment], [CANVAS_POINTS, "", "", "", "", str(number(points))]]
    rows += [[safe_cell(student), "", "", safe_cell(student), "", _score(reports[student])] for student in sorted(reports)]
    return _text(rows)


def moodle_csv(reports: dict[str, EntryReport], item: str) -> bytes:
    """moodle.csv for the reports: the identifier column and the grade item's column."""
    return _text([[MOODLE_IDENTIFIER, item]] + [[safe_cell(student), _score(reports[student])] for student in sorted(reports)])
