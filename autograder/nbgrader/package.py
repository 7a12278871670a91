"""Shared by the nbgrader paths: cell ids, the answer marker, and answer cells turned into an exercises-like package.

A notebook shares one namespace between its cells, while the grader imports one module per question.
Each answer becomes exercises/qNN_<slug>.py, prefixed with `from .qMM_<slug> import *` for the earlier
questions it may use, so a name defined in an earlier answer cell resolves in a later one as it does in
the notebook: the questions it `requires` (as the exercises/ file imports them), and any other earlier
answer that defines a name the cell reads without defining it (skipped if it fails to import). A broken
answer that a question does not use therefore cannot cost it points, as with `check`.
"""
import ast
import re
from pathlib import Path

from ..course.manifest import Course, Feedback, Question
from ..course.results import FAILED, PASSED, QuestionResult
from ..i18n import _

PACKAGE_INIT = '"""Answers taken from a notebook, one module per question."""\n'


def answer_id(number: int) -> str:
    """grade_id of the answer cell of question number, e.g. q03_answer."""
    return f"q{number:02d}_answer"


def graded_id(number: int) -> str:
    """grade_id of the autograder test cell of question number, e.g. q03."""
    return f"q{number:02d}"


def marker(question: Question) -> str:
    """First line of an answer cell: the comment by which the test cells find the cell's code."""
    return "# " + _(
        "{grade_id}: your answer to question {number}. Keep this line: the grader finds your code by it."
    ).format(grade_id=answer_id(question.number), number=question.number)


def _defines(source: str, names: tuple[str, ...]) -> bool:
    """True when source parses and defines one of names at top level."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    defined = {
        node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    return bool(defined & set(names))


def pick_from_history(course: Course, history: list[str], upto: int) -> dict[int, str]:
    """Question number -> source of its latest executed answer cell, for the questions up to upto in learner order."""
    # A cell is the answer of question N when it has the marker comment `# qNN_answer`; when the student
    # deleted the marker, the latest cell that defines one of the question's functions is taken instead.
    sources: dict[int, str] = {}
    for question in course.questions:
        pattern = re.compile(rf"^\s*#.*\b{answer_id(question.number)}\b", re.MULTILINE)
        marked = [cell for cell in history if pattern.search(cell)]
        if marked:
            sources[question.number] = marked[-1]
        else:
            defining = [cell for cell in history if _defines(cell, question.functions)]
            if defining:
                sources[question.number] = defining[-1]
        if question.number == upto:
            break
    return sources


def top_level_names(source: str) -> tuple[set[str], set[str]]:
    """(names bound at the top level of source, names it reads anywhere); both empty when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set(), set()
    bound: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).partition(".")[0] for alias in node.names if alias.name != "*")
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound.update(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    return bound, read


def module_text(course: Course, question: Question, sources: dict[int, str]) -> str:
    """Text of exercises/qNN_<slug>.py for one answer cell: imports of the earlier answers it uses, then the cell."""
    # The questions it requires are imported as the exercises/ file imports them. Another earlier answer is
    # imported only when this cell reads a name that it defines and does not define itself (the names the
    # notebook would resolve from that earlier cell), and skipped if it fails to import, as a failing cell
    # leaves the notebook's other names in place.
    source = sources.get(question.number, "")
    own, read = top_level_names(source)
    wanted = read - own
    lines: list[str] = []
    for earlier in course.questions:
        if earlier.number == question.number:
            break
        if earlier.number in question.requires:
            lines.append(f"from .{earlier.module} import *  # noqa: F403")
        elif top_level_names(sources.get(earlier.number, ""))[0] & wanted:
            lines += ["try:", f"    from .{earlier.module} import *  # noqa: F403", "except Exception:", "    pass"]
    header = "\n".join(lines)
    return (header + "\n" if header else "") + source + ("\n" if not source.endswith("\n") else "")


def write_package(course: Course, sources: dict[int, str], folder: Path, upto: int | None = None) -> Path:
    """Write an exercises-like package for the answers in sources into folder (created); return folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "__init__.py").write_text(PACKAGE_INIT, encoding="utf-8")
    for question in course.questions:
        (folder / Path(question.file).name).write_text(module_text(course, question, sources), encoding="utf-8")
        if question.number == upto:
            break
    return folder


def summary_text(result: QuestionResult, course: Course | None = None) -> str:
    """What a test cell prints, hence what nbgrader's feedback shows: the score, each check passed or failed with its
    reason, and the self-test answers once the question is at full marks, as course.yaml's `feedback:` allows."""
    from ..course.feedback import selftest_lines, shown_question
    from ..course.view import score_text

    feedback = course.feedback if course is not None else Feedback()
    result = shown_question(result, feedback)
    lines = [
        _("Question {number}, {title}: {score} points ({status})").format(
            number=result.number,
            title=result.title,
            score=score_text(result.score, result.max_score),
            status=_(result.status),
        )
    ]
    if result.status not in (PASSED, FAILED) and result.reason:
        lines.append(f"  {result.reason}")
    passed, failed = _(PASSED), _("FAILED")
    for test in result.tests:
        shown = test.message if not test.passed and result.status in (PASSED, FAILED) else ""
        lines.append(f"  [{passed if test.passed else failed}] {test.name}" + (f" -- {shown}" if shown else ""))
    if course is not None and feedback.selftest and result.status == PASSED and result.number in course.numbers:
        lines += [""] + [f"  {line}" for line in selftest_lines(course, result.number)]
    return "\n".join(lines).rstrip() + "\n"
