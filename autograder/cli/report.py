"""Render a Report as the table a student reads in the terminal, with what only their own kit knows."""
from collections.abc import Collection

from ..course.implicated import implicated
from ..course.manifest import Course
from ..course.results import Report
from ..course.text import text
from ..course.view import Local, report_view
from ..plots import PICTURES
from .progress import OUTPUT_FILE, last_status


def local_facts(report: Report, course: Course) -> Local:
    """What the student's own kit adds to report: the pictures `plot N` draws, the earlier questions to check first
    (from this report and the last `check`), the files that kept what the code printed."""
    kept = {q.number: OUTPUT_FILE.format(number=q.number) for q in report.questions if q.output.strip()}
    return Local(
        PICTURES,
        implicated(report, course, last_status),
        {number: file for number, file in kept.items() if (course.root / file).exists()},
    )


def render(report: Report, course: Course, label: str, answers: Collection[int] | None = None) -> str:
    """Per-question table, a line or two per failed check, then the self-tests of questions at full marks.

    answers: the questions at full marks whose self-test questions and answers are printed in full; the others at full
    marks get one line saying their self-tests are unlocked. None prints them all (a report read where the student
    cannot run `selftest N`, such as Gradescope's).
    """
    return text(report_view(report, course, label, answers, local_facts(report, course)))
