"""What `list` shows without running anything: stubs untouched, or the last score while the file is unchanged."""
import ast
import hashlib
import json
from pathlib import Path

from ..course.manifest import Course, Question
from ..course.results import Report

MEMORY = Path(".autograder") / "last-check.json"  # under the kit's folder, ignored by git


def _is_stub(body: list[ast.stmt]) -> bool:
    """True for a body that is only a docstring, a super().__init__() call and `raise NotImplementedError`."""
    statements = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    statements = [s for s in statements if not (isinstance(s, ast.Expr) and "super()" in ast.unparse(s))]
    return len(statements) == 1 and isinstance(statements[0], ast.Raise) and "NotImplementedError" in ast.unparse(statements[0])


def _fingerprint(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""


def remember(course: Course, report: Report) -> None:
    """Store each graded question's score with a fingerprint of its file, for `list`."""
    memory_file = course.root / MEMORY
    try:
        memory = json.loads(memory_file.read_text()) if memory_file.exists() else {}
        for result in report.questions:
            path = course.root / course.question(result.number).file
            memory[str(result.number)] = {"score": result.score, "max": result.max_score, "status": result.status, "file": _fingerprint(path)}
        memory_file.parent.mkdir(exist_ok=True)
        memory_file.write_text(json.dumps(memory, indent=1))
    except (OSError, ValueError):
        pass  # a read-only or damaged memory only costs `list` its last scores


def _remembered(course: Course, question: Question) -> dict | None:
    try:
        return json.loads((course.root / MEMORY).read_text()).get(str(question.number))
    except (OSError, ValueError):
        return None


def last_status(course: Course, question: Question) -> str | None:
    """The question's status at the last check while its file is unchanged since; None when that is unknown."""
    last = _remembered(course, question)
    return last["status"] if last and last["file"] == _fingerprint(course.root / question.file) else None


def status_of(course: Course, question: Question) -> str:
    """`not started`, the last check's score while the file is unchanged, `changed since ...`, or a file problem."""
    path = course.root / question.file
    if not path.exists():
        return "missing file"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError as error:
        return f"cannot be parsed (line {error.lineno})"
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    if functions and all(_is_stub(f.body) for f in functions):
        return "not started"
    last = _remembered(course, question)
    if last and last["file"] == _fingerprint(path):
        return f"{last['score']:g} / {last['max']:g} {last['status']} at the last check"
    return f"changed since the last check: run `check {question.number}`" if last else f"in progress: run `check {question.number}`"
