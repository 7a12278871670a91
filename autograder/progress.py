"""What `list` shows without running anything: which questions still hold only stubs."""
import ast

from .manifest import Course, Question


def _is_stub(body: list[ast.stmt]) -> bool:
    """True for a body that is only a docstring, a super().__init__() call and `raise NotImplementedError`."""
    statements = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    statements = [s for s in statements if not (isinstance(s, ast.Expr) and "super()" in ast.unparse(s))]
    return len(statements) == 1 and isinstance(statements[0], ast.Raise) and "NotImplementedError" in ast.unparse(statements[0])


def status_of(course: Course, question: Question) -> str:
    """`not started`, `in progress`, `missing file` or `cannot be parsed`, from the source alone."""
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
    return "in progress: run `check " + str(question.number) + "`"
