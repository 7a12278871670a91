"""`python -m autograder grade --nbgrader COURSE_DIR`: grade a class's submitted notebooks into nbgrader's gradebook.

No notebook is executed. Each student's answer cells are read by grade_id, written into a temporary
exercises-like package, and every student is graded in one sandbox (one grade_many call). nbgrader's own
Autograde converter then does the bookkeeping that `nbgrader autograde` does (students and submissions in
the gradebook, locked cells restored from the source, timestamps and late penalties, the notebook written
to autograded/), with its kernel step replaced by KitScores, which writes each test cell's output (the
summary and the points) from the kit's results. SaveAutoGrades then records the points as nbgrader would,
so `nbgrader export`, formgrader and `nbgrader generate_feedback` work as after `nbgrader autograde`.
"""
import logging
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from ..course.manifest import Course
from ..i18n import _
from .package import answer_id, graded_id, summary_text, write_package
from ..engine.run import grade_many
from ..sandbox import Sandbox

USAGE_ERROR, SOME_UNREADABLE = 2, 1


@dataclass
class Submission:
    """One student's submission: the answer sources found, or why the notebook could not be read."""

    student: str
    sources: dict[int, str] = field(default_factory=dict)
    problem: str = ""
    scores: dict[int, float] = field(default_factory=dict)


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


def read_submission(course: Course, folder: Path, notebooks: list[str]) -> Submission:
    """Read a student's submitted notebooks in folder; a missing or unreadable one sets .problem."""
    import nbformat

    submission = Submission(folder.parent.name)
    for name in notebooks:
        path = folder / f"{name}.ipynb"
        if not path.exists():
            submission.problem = _("no {name} in {folder}").format(name=path.name, folder=folder)
            return submission
        try:
            notebook = nbformat.read(str(path), as_version=4)
            found = extract_answers(course, notebook)
        except Exception as error:  # noqa: BLE001 - any unreadable notebook is reported, never fatal
            submission.problem = _("{name} cannot be read ({error}: {message})").format(
                name=path.name, error=type(error).__name__, message=str(error).splitlines()[0] if str(error) else '')
            return submission
        submission.sources.update(found)
    return submission


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


def grade_class(course: Course, course_dir: Path, assignment: str, student: str | None) -> int:
    """Grade every submission (or one student's) of assignment into the gradebook; return the exit status."""
    from ..engine.secret import for_class_grading

    sandbox = Sandbox()  # started first: its import of torch overlaps ours of nbgrader
    for_class_grading()  # the inputs of class grading come from the course secret
    try:
        return _grade_class(course, course_dir, assignment, student, sandbox)
    finally:
        sandbox.close()


def _grade_class(course: Course, course_dir: Path, assignment: str, student: str | None, sandbox: Sandbox) -> int:
    """grade_class with its sandbox already starting."""
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
    config = _config(course_dir, assignment, student)
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
    folders = sorted(p for p in submitted.glob(f"{student or '*'}/{assignment}") if p.is_dir() and p.parent.name not in excluded)
    if not folders:
        print(_("autograder: no submissions in {path}").format(path=f"{submitted}/{student or '*'}/{assignment}"), file=sys.stderr)
        return USAGE_ERROR

    submissions = [read_submission(course, folder, notebooks) for folder in folders]
    readable = [s for s in submissions if not s.problem]
    numbers = course.numbers
    with tempfile.TemporaryDirectory(prefix="nbgrader-class-") as scratch:
        packages = [write_package(course, s.sources, Path(scratch) / f"student{i}" / "exercises") for i, s in enumerate(readable)]
        reports = (grade_many(course, [(package, numbers) for package in packages], sandbox=sandbox, hidden=(course_dir,))  # the
                   if readable else [])  # course folder holds every submission, the source notebook's solutions and the gradebook
    KitScores = _kit_scores_class()
    KitScores.results = {}
    for submission, report in zip(readable, reports):
        KitScores.results[submission.student] = {graded_id(r.number): (r.score, summary_text(r)) for r in report.questions}
        submission.scores = {r.number: r.score for r in report.questions}

    unreadable = [s.student for s in submissions if s.problem]
    config.CourseDirectory.student_id_exclude = ",".join(excluded + unreadable)
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
    for submission in submissions:
        if submission.problem:
            _zero(gradebook_args, assignment, submission.student)
            submission.scores = {n: 0.0 for n in numbers}
    _print_table(course, submissions)
    return SOME_UNREADABLE if any(s.problem for s in submissions) else 0


def _print_table(course: Course, submissions: list[Submission]) -> None:
    """Per student: every question's score and the total; then the notebooks that could not be graded."""
    student, total = _("student"), _("total")
    width = max([len(student)] + [len(s.student) for s in submissions])
    print(f"{student:<{width}}  " + "  ".join(f"q{n:02d}".rjust(5) for n in course.numbers) + f"  {total:>6} / {course.max_score:g}")
    for s in submissions:
        print(f"{s.student:<{width}}  " + "  ".join(f"{s.scores.get(n, 0.0):5g}" for n in course.numbers) + f"  {sum(s.scores.values()):6g}")
    problems = [s for s in submissions if s.problem]
    for s in problems:
        print(_("{student}: scored 0, {problem}").format(student=s.student, problem=s.problem))
    print(_("graded {count} submission(s) into the gradebook").format(count=len(submissions))
          + (_("; {count} could not be read").format(count=len(problems)) if problems else ""))
