"""nbgrader's side of `grade --nbgrader COURSE_DIR`: where an assignment's submissions are (the input of class
grading) and the gradebook the kit's results are written into (its output). It never grades: classroom/nbgrader_class.py
composes the command, grading the submissions as `grade DIR` grades a class folder.

No notebook is executed. nbgrader's own Autograde converter does the bookkeeping that `nbgrader autograde` does
(students and submissions in the gradebook, locked cells restored from the source, timestamps and late penalties, the
notebook written to autograded/), with its kernel step replaced by KitScores, which writes each test cell's output (the
summary and the points) from the kit's results. SaveAutoGrades then records the points as nbgrader would, so `nbgrader
export`, formgrader and `nbgrader generate_feedback` work as after `nbgrader autograde`.
"""
import logging
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ..course.class_report import EntryReport
from ..course.manifest import Course
from ..course.results import question_from_dict
from ..i18n import _
from ..usage import UsageError
from .package import graded_id, summary_text


@dataclass
class Submission:
    """One student's submission, and why it could not be graded or written into the gradebook ("" when it was)."""

    student: str
    problem: str = ""


@dataclass
class Assignment:
    """An assignment of an nbgrader course folder: its submitted folders (submitted/<student>/<assignment>) and its
    gradebook."""

    course_dir: Path
    name: str
    config: object  # traitlets Config
    gradebook_args: tuple[str, str]  # (database URL, course id)
    notebooks: list[str]  # the assignment's notebook names
    excluded: list[str]  # CourseDirectory.student_id_exclude
    folders: list[Path]


@dataclass
class Recorded:
    """What write_gradebook did: submissions written, left as they were, and whether any scored 0 for a problem."""

    written: int
    unchanged: int
    problems: bool
    failed: bool = False  # nbgrader could write none of them (said on stderr)


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
                found = self.results.get(resources["nbgrader"]["student"], {}).get(
                    cell.metadata["nbgrader"]["grade_id"]
                )
                if found is not None:
                    score, summary = found
                    cell.outputs = [
                        new_output("stream", name="stdout", text=summary),
                        new_output("execute_result", data={"text/plain": repr(float(score))}, execution_count=None),
                    ]
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


def gradebook_scores(
    course: Course, gradebook_args: tuple[str, str], assignment: str, students: list[str]
) -> tuple[list[tuple[str, dict[int, str], str]], bool]:
    """The scores in the gradebook, as nbgrader's export gives them: (one row per student: name, question number ->
    score text, total text; whether any was entered by hand). A score entered by hand (manual_score) replaces the
    kit's and is marked *; students not in the gradebook are left out."""
    from nbgrader.api import Gradebook, MissingEntry

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
    return rows, manual


def open_assignment(course_dir: Path, assignment: str) -> Assignment:
    """The assignment in course_dir's gradebook and its submitted folders (the course's exclusions left out);
    UsageError when nbgrader is not installed, the gradebook has no such assignment or nobody submitted."""
    try:
        from nbgrader.api import Gradebook, MissingEntry
        from nbgrader.coursedir import CourseDirectory
    except ImportError:
        raise UsageError(_("grading with --nbgrader needs nbgrader: pip install nbgrader")) from None
    from sqlalchemy.exc import SAWarning

    # nbgrader's own session use; `nbgrader autograde` prints them too
    warnings.filterwarnings("ignore", category=SAWarning)
    course_dir = course_dir.resolve()
    config = _config(course_dir, assignment, None)
    coursedir = CourseDirectory(config=config)
    gradebook_args = (coursedir.db_url, coursedir.course_id)
    database = coursedir.db_url.removeprefix("sqlite:///")
    if database != coursedir.db_url and not Path(database).is_file():  # opening it would make an empty gradebook there
        raise UsageError(
            _(
                "no nbgrader gradebook in {folder} ({file} is missing): give the course folder, where "
                "`nbgrader generate_assignment {assignment}` was run"
            ).format(folder=course_dir, file=Path(database).name, assignment=assignment)
        )
    try:
        with Gradebook(*gradebook_args) as gb:
            notebooks = [notebook.name for notebook in gb.find_assignment(assignment).notebooks]
    except MissingEntry:
        raise UsageError(
            _(
                "no assignment {name} in the gradebook of {folder}: run `nbgrader generate_assignment {assignment}` "
                "there first"
            ).format(name=repr(assignment), folder=course_dir, assignment=assignment)
        ) from None
    submitted = Path(coursedir.format_path(coursedir.submitted_directory, ".", "."))
    excluded = [s for s in coursedir.student_id_exclude.split(",") if s]  # the course's own exclusions stay excluded
    folders = sorted(p for p in submitted.glob(f"*/{assignment}") if p.is_dir() and p.parent.name not in excluded)
    if not folders:
        raise UsageError(_("no submissions in {path}").format(path=f"{submitted}/*/{assignment}"))
    return Assignment(course_dir, assignment, config, gradebook_args, notebooks, excluded, folders)


def write_gradebook(
    course: Course, assignment: Assignment, reports: dict[str, EntryReport], graded_now: set[str]
) -> Recorded:
    """Write the kit's results (student -> report) into the assignment's gradebook as `nbgrader autograde` would, for
    the students graded now or whose autograded notebook is missing; an unreadable submission, or one nbgrader
    rejects, scores 0 there and is said on stdout."""
    from nbgrader.converters import Autograde, NbGraderException
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.preprocessors import AssignLatePenalties, IgnorePattern, LimitOutput, SaveAutoGrades
    from nbconvert.preprocessors import ClearMetadataPreprocessor

    config, notebooks = assignment.config, assignment.notebooks
    coursedir = CourseDirectory(config=config)
    submissions = [Submission(student, report.problem) for student, report in sorted(reports.items())]
    KitScores = _kit_scores_class()
    KitScores.results = {
        student: {
            graded_id(q["number"]): (q["score"], summary_text(question_from_dict(q), course)) for q in report.questions
        }
        for student, report in reports.items()
    }
    already = {
        s.student
        for s in submissions
        if all(
            (
                Path(coursedir.format_path(coursedir.autograded_directory, s.student, assignment.name))
                / f"{name}.ipynb"
            ).exists()
            for name in notebooks
        )
    }
    unchanged = [
        s.student for s in submissions if not s.problem and s.student not in graded_now and s.student in already
    ]
    left = [s.student for s in submissions if s.problem] + unchanged
    readable = [s for s in submissions if s.student not in left]
    config.CourseDirectory.student_id_exclude = ",".join(assignment.excluded + left)
    # nbgrader's own list with Execute replaced by the kit's scores; its closing CheckCellMetadata is left out: the
    # sanitize step has just validated the same metadata, and nothing here changes it (a second pass costs 0.05 s a
    # notebook)
    config.Autograde.autograde_preprocessors = [
        KitScores,
        IgnorePattern,
        ClearMetadataPreprocessor,
        LimitOutput,
        SaveAutoGrades,
        AssignLatePenalties,
    ]
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
        autograded = Path(coursedir.format_path(coursedir.autograded_directory, submission.student, assignment.name))
        if not all((autograded / f"{name}.ipynb").exists() for name in notebooks):
            reason = next(
                (m for m in collected.messages if submission.student in m), _("nbgrader could not process it")
            )
            submission.problem = _("nbgrader rejected the notebook: {reason}").format(
                reason=reason.strip().splitlines()[0]
            )
            rejected.append(submission)
    if readable and len(rejected) == len(readable) > 1:  # the whole class failed: nbgrader's problem, not the students'
        print(
            _("autograder: nbgrader could not write any submission into the gradebook:")
            + "\n  "
            + "\n  ".join(collected.messages[-5:]),
            file=sys.stderr,
        )
        return Recorded(0, len(unchanged), True, failed=True)
    for submission in rejected + [s for s in submissions if s.problem and s.student in graded_now]:
        _zero(assignment.gradebook_args, assignment.name, submission.student)
    for submission in rejected:
        print(
            _("{student}: scored 0 in the gradebook, {problem}").format(
                student=submission.student, problem=submission.problem
            )
        )
    return Recorded(len(readable) - len(rejected), len(unchanged), any(s.problem for s in submissions))
