"""`python -m autograder nbgrader COURSE_DIR`: write an nbgrader course folder built from the kit.

The assignment is one notebook, source/<assignment>/attention.ipynb, with three cells per question in
learner order: locked instructions (markdown), the answer (the solution module between BEGIN/END SOLUTION
markers, so `nbgrader generate_assignment` turns it into the exercises/ stub), and a locked autograder test
cell worth the question's points whose hidden part grades the answers in the kit's sandbox.
"""
import ast
import re
import sys
from pathlib import Path

from ..course.manifest import Course, Question
from ..i18n import _
from .cell import KIT_DIR
from .package import answer_id, graded_id, marker
from ..maintainer.stubs import BEGIN

NOTEBOOK = "attention"
CONFIG_MARK = "# Written by `python -m autograder nbgrader`"
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def drop_relative_imports(source: str) -> str:
    """source without its relative imports (`from .q01_causal_mask import ...`), blank runs kept to two lines."""
    lines = source.splitlines()
    dropped: set[int] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            dropped.update(range(node.lineno - 1, (node.end_lineno or node.lineno)))
    kept = [line for index, line in enumerate(lines) if index not in dropped]
    return re.sub(r"\n{4,}", "\n\n\n", "\n".join(kept).strip("\n") + "\n")


def answer_source(question: Question, solution: str) -> str:
    """The answer cell of question: marker line, then the solution module with a TODO line above each solution
    region."""
    lines = []
    for line in drop_relative_imports(solution).splitlines():
        begin = BEGIN.match(line)
        if begin:
            todo = (begin["todo"] or _("write this part.")).strip()
            lines += [f"{begin['indent']}# TODO: {todo}", f"{begin['indent']}### BEGIN SOLUTION"]
        else:
            lines.append(line)
    return marker(question) + "\n" + "\n".join(lines).rstrip("\n")


def _names(question: Question) -> str:
    """`a`, `b` and `c`."""
    quoted = [f"`{name}`" for name in question.functions]
    return (
        quoted[0] if len(quoted) == 1 else _("{first} and {last}").format(first=", ".join(quoted[:-1]), last=quoted[-1])
    )


def instructions(course: Course, question: Question) -> str:
    """Markdown of the locked instruction cell of question: what to write, the points, the hints."""
    earlier = [course.question(n) for n in question.requires]
    uses = ""
    if earlier:
        listed = ", ".join(
            _("question {number} ({title})").format(number=q.number, title=q.title.lower()) for q in earlier
        )
        uses = " " + _(
            "It builds on your answers to {listed}: their cells above define those names, so use them directly."
        ).format(listed=listed)
    hints = "\n".join(f"{index}. {hint}" for index, hint in enumerate(question.hints, start=1))
    parts = [
        "## "
        + _("Question {number}: {title} ({points:g} points)").format(
            number=question.number, title=question.title, points=question.points
        ),
        _(
            "Complete {names} in the answer cell below: replace each `raise NotImplementedError` with your code, "
            "keeping the names, signatures and docstrings.{uses} Answers may import torch, numpy and math only."
        ).format(names=_names(question), uses=uses),
        _(
            "Run the answer cell, then the test cell after it. The test cell checks that your names are defined; "
            "the graded checks are hidden and run when your notebook is graded, in a sandbox limited to "
            "{seconds:g} seconds for this question. Your score is the question's points times the weighted "
            "share of those checks that pass."
        ).format(seconds=question.time_limit),
        _("Keep the first line of the answer cell: the grader finds your answer by it."),
    ]
    if hints:
        summary = _("Hints (open them only when stuck)")
        parts.append(f"<details><summary>{summary}</summary>\n\n{hints}\n\n</details>")
    return "\n\n".join(parts)


def grading_cell_source(course: Course, question: Question, kit_dir: str = KIT_DIR) -> str:
    """Source of the autograder test cell: a visible check that the names exist, the hidden sandboxed grading last."""
    names = ", ".join(repr(name) for name in question.functions)
    return "\n".join(
        [
            f"# Tests for question {question.number} ({question.points:g} points). Run this cell after your answer "
            f"cell.",
            f"for _name in [{names}]:",
            "    print(_name, 'is defined' if callable(globals().get(_name)) else 'is MISSING: define it in the answer "
            "cell above')",
            "### BEGIN HIDDEN TESTS",
            "import sys as _kit_sys",
            f"if {kit_dir!r} not in _kit_sys.path:",
            f"    _kit_sys.path.insert(0, {kit_dir!r})",
            "from autograder.nbgrader.cell import grade_question as _kit_grade",
            f"_kit_grade({str(course.root.resolve())!r}, {question.number})",
            "### END HIDDEN TESTS",
        ]
    )


def _meta(grade_id: str, *, grade: bool, solution: bool, locked: bool, points: float | None = None) -> dict:
    """nbgrader cell metadata, schema version 3."""
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta} | ({"deletable": False, "editable": False} if locked else {})


def build_notebook(course: Course, kit_dir: str = KIT_DIR) -> "nbformat.NotebookNode":  # noqa: F821
    """The assignment notebook (an nbformat NotebookNode) for every question of course."""
    from nbformat import v4

    cells = [
        v4.new_markdown_cell(
            f"# {course.title}\n\n{course.description}\n\n"
            + _(
                "Work from top to bottom: a later answer may use the names defined by earlier answer cells. The "
                "questions are worth {points:g} points in all."
            ).format(points=course.max_score),
            id="intro",
            metadata=_meta("intro", grade=False, solution=False, locked=True),
        )
    ]
    for question in course.questions:
        solution = (course.root / "solutions" / Path(question.file).name).read_text(encoding="utf-8")
        tid = graded_id(question.number)
        cells += [
            v4.new_markdown_cell(
                instructions(course, question),
                id=f"{tid}-instructions",
                metadata=_meta(f"{tid}_instructions", grade=False, solution=False, locked=True),
            ),
            v4.new_code_cell(
                answer_source(question, solution),
                id=f"{tid}-answer",
                metadata=_meta(answer_id(question.number), grade=False, solution=True, locked=False),
            ),
            v4.new_code_cell(
                grading_cell_source(course, question, kit_dir),
                id=f"{tid}-tests",
                metadata=_meta(tid, grade=True, solution=False, locked=True, points=question.points),
            ),
        ]
    notebook = v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
    notebook.metadata["language_info"] = {"name": "python"}
    return notebook


def cell_timeout(course: Course) -> int:
    """Seconds nbgrader gives a test cell of course: the sandbox's limits.cell_timeout for its longest `time_limit`."""
    from ..sandbox.limits import cell_timeout as for_longest

    return for_longest(max(q.time_limit for q in course.questions))


def config_text(course: Course, course_dir: Path | None = None, course_id: str = "", kit_dir: str = KIT_DIR) -> str:
    """nbgrader_config.py for a course run with this kit (course_dir: where its exchange folder goes; kit_dir: the
    folder nbgrader imports the kit's preprocessors from)."""
    timeout = cell_timeout(course)
    exchange = str((course_dir or Path.cwd()) / "exchange")
    course_id = course_id or re.sub(r"[^A-Za-z0-9_-]+", "-", (course_dir or Path.cwd()).name).strip("-") or "course"
    return f'''{CONFIG_MARK}. Edit freely: the kit never overwrites an existing file.
c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

# nbgrader's exchange (release_assignment, fetch_assignment, submit, collect, release_feedback) needs a course id and
# a folder that the instructor and the students can all reach: on a shared server (JupyterHub) use a shared folder
# such as /srv/nbgrader/exchange, and give the students' nbgrader_config.py the same two lines.
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}

# The answer cells keep their `# TODO:` line above each solution region, so the released stub reads
# exactly like the kit's exercises/ files.
c.ClearSolutions.code_stub = {{"python": "raise NotImplementedError"}}

# A test cell grades its question in the kit's sandbox, which stops the student's code after the question's time
# limit, counted in the time the code ran: on a loaded machine that may take up to 3 times as long on the clock.
# This cell timeout covers that (the longest limit, 3 times, the sandbox's start and a margin), so nbgrader never
# cuts a question the kit still has time for. After raising a limit in course.yaml, raise this number too.
c.Execute.timeout = {timeout}

# `nbgrader autograde` runs no student code in its kernel: before Execute, every code cell that is not one of your
# locked cells (the answer cells, and any cell a student added) becomes an inert cell that keeps its source as data;
# the test cells hand those sources to the kit, which grades them in its sandbox; after Execute the students' code is
# put back, so the autograded notebook and the feedback show it. The kit is imported from its folder.
import sys  # noqa: E402
if {kit_dir!r} not in sys.path:
    sys.path.insert(0, {kit_dir!r})
c.Autograde.autograde_preprocessors = [
    "autograder.nbgrader.autograde.KeepAnswersAsData",
    "nbgrader.preprocessors.Execute",
    "autograder.nbgrader.autograde.RestoreAnswers",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Feedback shows the test cells without their hidden part (the grading call), and the cells' outputs
# name each check and whether it passed, never the expected values.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
'''


def write_course(course: Course, course_dir: Path, assignment: str) -> int:
    """Write nbgrader_config.py (when absent) and source/<assignment>/attention.ipynb; return the exit status."""
    try:
        import nbformat
    except ImportError:
        print(_("autograder: the nbgrader command needs nbgrader: pip install nbgrader"), file=sys.stderr)
        return 2
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", assignment):
        print(
            _("autograder: {assignment} is not a usable assignment name (letters, digits, _ . -)").format(
                assignment=repr(assignment)
            ),
            file=sys.stderr,
        )
        return 2
    if not (course.root / "solutions").is_dir():
        print(
            _("autograder: no solutions/ in {root}: run this in the instructor's copy of the kit").format(
                root=course.root
            ),
            file=sys.stderr,
        )
        return 2
    course_dir = course_dir.resolve()
    target = course_dir / "source" / assignment / f"{NOTEBOOK}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    config = course_dir / "nbgrader_config.py"
    if not config.exists():
        config.write_text(config_text(course, course_dir), encoding="utf-8")
        print(_("wrote {path}").format(path=config))
    elif CONFIG_MARK not in config.read_text(encoding="utf-8"):
        print(
            _("kept your {path}; make sure it has these settings:").format(path=config)
            + "\n\n"
            + config_text(course, course_dir).split("\n", 1)[1]
        )
    from ..engine.secret import class_secret

    class_secret()  # the hidden tests draw their inputs from the course secret (engine/secret.py): made now if need be
    nbformat.write(build_notebook(course), str(target))
    print(
        _("wrote {path} ({questions} questions, {points:g} points)").format(
            path=target, questions=len(course.questions), points=course.max_score
        )
    )
    print(
        _("next: cd {folder} && nbgrader generate_assignment {assignment}").format(
            folder=course_dir, assignment=assignment
        )
    )
    return 0
