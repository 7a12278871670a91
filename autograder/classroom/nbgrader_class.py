"""`python -m autograder grade --nbgrader COURSE_DIR`: nbgrader's submissions in, the class graded, nbgrader's
gradebook out.

nbgrader is an input and an output here, never the driver: nbgrader/grade.py says where the assignment's submissions are
(open_assignment) and writes the kit's results into the gradebook (write_gradebook); between the two, the submitted
folders are graded as `grade DIR` grades a class folder (batch.py: --jobs workers, the progress bar, a report per
student in OUT, by default COURSE_DIR/reports/<assignment>/, with grades.csv, the class summary and the LMS files; a
student whose submission and grader have not changed is not graded again, unless --force; --student regrades only
those named). Each notebook's answer cells are read by nbgrader/answers.py, as for any notebook entry; none is run.
"""
import argparse
import tempfile
from pathlib import Path

from ..course.class_report import EntryReport
from ..course.manifest import Course
from ..i18n import _
from ..nbgrader.grade import gradebook_scores, open_assignment, write_gradebook
from . import batch
from .outputs import score_table
from .storage import load_report


def grade_submissions(course: Course, args: argparse.Namespace, folders: list[Path], out: Path,
                      course_dir: Path) -> tuple[int, dict[str, EntryReport], set[str]]:
    """Grade the submitted folders (submitted/<student>/<assignment>) as `grade DIR` grades a class folder, into out:
    (its exit status, student -> report, the students graded in this run)."""
    before = {
        folder.parent.name: getattr(load_report(out, folder.parent.name), "graded_at", None) for folder in folders
    }
    with tempfile.TemporaryDirectory(prefix="nbgrader-class-") as view:  # one entry per student, named by the student
        for folder in folders:
            (Path(view) / folder.parent.name).symlink_to(folder, target_is_directory=True)
        status = batch.main(
            argparse.Namespace(
                dir=Path(view),
                out=out,
                jobs=args.jobs,
                force=args.force,
                scheduler=args.scheduler,
                quiet=args.quiet,
                student=args.student,
                deadline=None,
                table=False,
                # the course: every submission, the solutions, the gradebook
                hidden=(course_dir,),
                linked=True,
                allow_weak_isolation=getattr(args, "allow_weak_isolation", False),
            ),
            course,
        )
    reports = {student: report for student in before if (report := load_report(out, student)) is not None}
    return status, reports, {student for student, report in reports.items() if report.graded_at != before[student]}


def gradebook_lines(course: Course, rows: list[tuple[str, dict[int, str], str]], manual: bool) -> list[str]:
    """The table of the gradebook's scores (gradebook_scores' rows), with the note on scores entered by hand."""
    lines = [_("Scores in the gradebook (what `nbgrader export` gives):")] + score_table(course, rows)
    return lines + (
        [_("* entered by hand in the gradebook: it replaces the kit's score (the kit's own is in the reports)")]
        if manual
        else []
    )


def grade_class(course: Course, args: argparse.Namespace) -> int:
    """Grade the submissions of args.assignment in args.course_dir into the gradebook (those of args.student only, when
    given); return the exit status. UsageError when the course, the assignment or a submission is missing."""
    assignment = open_assignment(Path(args.course_dir), args.assignment)  # UsageError: said by the command line
    out = Path(args.out).resolve() if args.out else assignment.course_dir / "reports" / assignment.name
    status, reports, graded_now = grade_submissions(course, args, assignment.folders, out, assignment.course_dir)
    # OUT could not be written: said, nothing to record
    if status == batch.RUN_FAILED or (status == batch.USAGE_ERROR and not graded_now):
        return status
    recorded = write_gradebook(course, assignment, reports, graded_now)
    if recorded.failed:
        return batch.USAGE_ERROR
    print(
        "\n".join(
            gradebook_lines(
                course, *gradebook_scores(course, assignment.gradebook_args, assignment.name, sorted(reports))
            )
        )
    )
    print(
        _("{count} submission(s) written into the gradebook of {folder}").format(
            count=recorded.written, folder=assignment.course_dir
        )
        + (
            _("; {count} left as they were (unchanged since they were graded; --force grades them again)").format(
                count=recorded.unchanged
            )
            if recorded.unchanged
            else ""
        )
    )
    return batch.SOME_UNREADABLE if recorded.problems else status
