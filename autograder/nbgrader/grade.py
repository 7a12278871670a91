"""`python -m autograder grade --nbgrader COURSE_DIR`: grade a class's submitted notebooks into nbgrader's gradebook.

No notebook is executed. Each student's answer cells are read by grade_id, written into a temporary
exercises-like package, and the class is graded as `grade DIR` grades one (classroom/batch.py: --jobs workers, the
progress bar, a report per student in OUT, by default COURSE_DIR/reports/<assignment>/, with grades.csv, the class
summary and the LMS files; a student whose submission and grader have not changed is not graded again, unless
--force; --student regrades only those named). nbgrader's own
Autograde converter then does the bookkeeping that `nbgrader autograde` does (students and submissions in
the gradebook, locked cells restored from the source, timestamps and late penalties, the notebook written
to autograded/), with its kernel step replaced by KitScores, which writes each test cell's output (the
summary and the points) from the kit's results. SaveAutoGrades then records the points as nbgrader would,
so `nbgrader export`, formgrader and `nbgrader generate_feedback` work as after `nbgrader autograde`.
"""
import argparse
import logging
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ..course.manifest import Course
from ..classroom.entry import EntryReport
from ..course.results import question_from_dict
from ..i18n import _
from .package import answer_id, graded_id, summary_text

USAGE_ERROR, SOME_UNREADABLE, RUN_FAILED = 2, 1, 3  # as classroom/batch.py gives them


@dataclass
class Submission:
    """One student's submission, and why it could not be graded or written into the gradebook ("" when it was)."""

    student: str
    problem: str = ""


def extract_answers(course: Course, notebook: object) -> dict[int, str]:
    """Question number -> source of the last code cell whose grade_id is that question's answer id (as nbgrader keeps the last duplicate)."""
    wanted = {answer_id(q.number): q.number for q in course.questions}
    sources: dict[int, str] = {}
    for cell in notebook["cells"]:
        grade_id = ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id")
        number = wanted.get(grade_id)
        if number is not None and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            sources[number] = "".join(source) if isinstance(source, list) else str(source)
    return sources


def grade_reports(course: Course, args: argparse.Namespace, folders: list[Path], out: Path,
                  course_dir: Path) -> tuple[int, dict[str, EntryReport], set[str]]:
    """Grade the submitted folders (submitted/<student>/<assignment>) as `grade DIR` grades a class folder, into out:
    (its exit status, student -> report, the students graded in this run)."""
    from ..classroom import batch

    before = {folder.parent.name: getattr(batch.load_report(out, folder.parent.name), "graded_at", None) for folder in folders}
    with tempfile.TemporaryDirectory(prefix="nbgrader-class-") as view:  # one entry per student, named by the student
        for folder in folders:
            (Path(view) / folder.parent.name).symlink_to(folder, target_is_directory=True)
        status = batch.main(argparse.Namespace(dir=Path(view), out=out, jobs=args.jobs, force=args.force, scheduler=args.scheduler,
                                               quiet=args.quiet, student=args.student, deadline=None, table=False,
                                               hidden=(course_dir,), linked=True,
                                               allow_weak_isolation=getattr(args, "allow_weak_isolation", False)), course)  # the course: every submission, the solutions, the gradebook
    reports = {student: report for student in before if (report := batch.load_report(out, student)) is not None}
    return status, reports, {student for student, report in reports.items() if report.graded_at != before[student]}


def _kit_scores_class() -> type:
    """The preprocessor class (defined lazily: nbgrader is an optional dependency)."""
    from nbformat.v4 import new_output
    from nbgrader import utils
    from nbgrader.preprocessors import NbGraderPreprocessor

    class KitScores(NbGraderPreprocessor):
        """Stands in for Execute: writes each test cell's output from the kit's results, runs nothing."""

        results: ClassVar[dict[str, dict[str, tuple[float, str]]]] = {}

        def preprocess_cell(self, cell: "NotebookNode", resources: dict, index: int) -> tuple:  # noqa: F821
            """Give a graded test cell the summary and the points as its outputs."""
            if cell.cell_type == "code" and utils.is_grade(cell):
                found = self.results.get(resources["nbgrader"]["student"], {}).get(cell.metadata["nbgrader"]["grade_id"])
                if found is not None:
                    score, summary = found
                    cell.outputs = [new_output("stream", name="stdout", text=summary),
                                    new_output("execute_result", data={"text/plain": repr(float(score))}, execution_count=None)]
            return cell, resources

    return KitScores


class _Collect(logging.Handler):
    """Keeps nbgrader's error messages for the report instead of printing its tracebacks."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _config(course_dir: Path, assignment: str, student: str | None) -> object:
    """nbgrader configuration: the course's nbgrader_config.py, then the settings this command needs."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config = Config()
    if (course_dir / "nbgrader_config.py").exists():
        config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(course_dir)).load_config())
    config.CourseDirectory.root = str(course_dir)
    config.CourseDirectory.assignment_id = assignment
    config.CourseDirectory.student_id = student or "*"
    return config


def _zero(gradebook_args: tuple[str, str], assignment: str, student: str) -> None:
    """Record a submission whose notebook could not be graded: every grade 0, nothing left for manual grading."""
    from nbgrader.api import Gradebook

    with Gradebook(*gradebook_args) as gb:
        gb.update_or_create_student(student)
        submission = gb.update_or_create_submission(assignment, student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score, grade.needs_manual_grade = 0.0, False
        gb.db.commit()


def gradebook_table(course: Course, gradebook_args: tuple[str, str], assignment: str, students: list[str]) -> list[str]:
    """The table of the scores in the gradebook, as nbgrader's export gives them: a score entered by hand (manual_score)
    replaces the kit's and is marked *; students not in the gradebook are left out."""
    from nbgrader.api import Gradebook, MissingEntry

    from ..classroom.outputs import score_table

    numbers = {graded_id(q.number): q.number for q in course.questions}
    rows, manual = [], False
    with Gradebook(*gradebook_args) as gb:
        for student in students:
            try:
                submission = gb.find_submission(assignment, student)
            except MissingEntry:
                continue
            scores, total = {}, 0.0
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    if grade.name in numbers:
                        by_hand = grade.manual_score is not None
                        manual |= by_hand
                        scores[numbers[grade.name]] = f"{grade.score or 0:g}" + ("*" if by_hand else "")
                        total += grade.score or 0
            rows.append((student, scores, f"{total:g}"))
    lines = [_("Scores in the gradebook (what `nbgrader export` gives):")] + score_table(course, rows)
    return lines + ([_("* entered by hand in the gradebook: it replaces the kit's score (the kit's own is in the reports)")] if manual else [])


def grade_class(course: Course, args: argparse.Namespace) -> int:
    """Grade the submissions of args.assignment in args.course_dir into the gradebook (those of args.student only, when
    given); return the exit status."""
    course_dir, assignment = Path(args.course_dir), args.assignment
    try:
        from nbgrader.api import Gradebook, MissingEntry
        from nbgrader.converters import Autograde, NbGraderException
        from nbgrader.coursedir import CourseDirectory
        from nbgrader.preprocessors import (
            AssignLatePenalties,
            IgnorePattern,
            LimitOutput,
            SaveAutoGrades,
        )
    except ImportError:
        print(_("autograder: grading with --nbgrader needs nbgrader: pip install nbgrader"), file=sys.stderr)
        return USAGE_ERROR
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning)  # nbgrader's own session use; `nbgrader autograde` prints them too
    course_dir = course_dir.resolve()
    config = _config(course_dir, assignment, None)
    coursedir = CourseDirectory(config=config)
    gradebook_args = (coursedir.db_url, coursedir.course_id)
    try:
        with Gradebook(*gradebook_args) as gb:
            notebooks = [notebook.name for notebook in gb.find_assignment(assignment).notebooks]
    except MissingEntry:
        print(_("autograder: no assignment {name} in the gradebook of {folder}: run `nbgrader generate_assignment {assignment}` there first").format(
            name=repr(assignment), folder=course_dir, assignment=assignment), file=sys.stderr)
        return USAGE_ERROR
    submitted = Path(coursedir.format_path(coursedir.submitted_directory, ".", "."))
    excluded = [s for s in coursedir.student_id_exclude.split(",") if s]  # the course's own exclusions stay excluded
    folders = sorted(p for p in submitted.glob(f"*/{assignment}") if p.is_dir() and p.parent.name not in excluded)
    if not folders:
        print(_("autograder: no submissions in {path}").format(path=f"{submitted}/*/{assignment}"), file=sys.stderr)
        return USAGE_ERROR
    out = Path(args.out).resolve() if args.out else course_dir / "reports" / assignment
    status, reports, graded_now = grade_reports(course, args, folders, out, course_dir)
    if status == RUN_FAILED or (status == USAGE_ERROR and not graded_now):  # OUT could not be written: said, nothing to record
        return status
    submissions = [Submission(student, report.problem) for student, report in sorted(reports.items())]
    KitScores = _kit_scores_class()
    KitScores.results = {student: {graded_id(q["number"]): (q["score"], summary_text(question_from_dict(q), course)) for q in report.questions}
                         for student, report in reports.items()}
    already = {s.student for s in submissions if all((Path(coursedir.format_path(coursedir.autograded_directory, s.student, assignment))
                                                      / f"{name}.ipynb").exists() for name in notebooks)}
    unchanged = [s.student for s in submissions if not s.problem and s.student not in graded_now and s.student in already]
    left = [s.student for s in submissions if s.problem] + unchanged
    readable = [s for s in submissions if s.student not in left]
    config.CourseDirectory.student_id_exclude = ",".join(excluded + left)
    # nbgrader's own list with Execute replaced by the kit's scores; its closing CheckCellMetadata is left out: the
    # sanitize step has just validated the same metadata, and nothing here changes it (a second pass costs 0.05 s a notebook)
    config.Autograde.autograde_preprocessors = [KitScores, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
                                                SaveAutoGrades, AssignLatePenalties]
    config.Autograde.force = True
    config.Autograde.create_student = True
    config.OverwriteCells.add_missing_cells = True
    log = logging.getLogger("autograder.nbgrader")
    log.propagate, collected = False, _Collect()
    log.handlers[:] = [collected]
    log.setLevel(logging.ERROR)
    if readable:
        converter = Autograde(coursedir=CourseDirectory(config=config, log=log), config=config, log=log)
        try:
            converter.start()
        except NbGraderException:
            pass  # the students it could not process are found below, by their missing autograded notebook
    rejected = []
    for submission in readable:
        autograded = Path(coursedir.format_path(coursedir.autograded_directory, submission.student, assignment))
        if not all((autograded / f"{name}.ipynb").exists() for name in notebooks):
            reason = next((m for m in collected.messages if submission.student in m), _("nbgrader could not process it"))
            submission.problem = _("nbgrader rejected the notebook: {reason}").format(reason=reason.strip().splitlines()[0])
            rejected.append(submission)
    if readable and len(rejected) == len(readable) > 1:  # the whole class failed: nbgrader's problem, not the students'
        print(_("autograder: nbgrader could not write any submission into the gradebook:") + "\n  " + "\n  ".join(collected.messages[-5:]),
              file=sys.stderr)
        return USAGE_ERROR
    for submission in rejected + [s for s in submissions if s.problem and s.student in graded_now]:
        _zero(gradebook_args, assignment, submission.student)
    for submission in rejected:
        print(_("{student}: scored 0 in the gradebook, {problem}").format(student=submission.student, problem=submission.problem))
    print("\n".join(gradebook_table(course, gradebook_args, assignment, [s.student for s in submissions])))
    written = len(readable) - len(rejected)
    print(_("{count} submission(s) written into the gradebook of {folder}").format(count=written, folder=course_dir)
          + (_("; {count} left as they were (unchanged since they were graded; --force grades them again)").format(
              count=len(unchanged)) if unchanged else ""))
    return SOME_UNREADABLE if any(s.problem for s in submissions) else status
