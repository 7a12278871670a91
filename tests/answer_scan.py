"""Solution code found in shipped files, compared as syntax: each expression and statement of a solution region, its
local names abstracted and its constants kept, against every expression and statement of a shipped .py file."""
import ast
import builtins
import copy
from pathlib import Path

from autograder.maintainer.stubs import BEGIN, END

MIN_NODES = 7  # syntax nodes a piece needs besides its local names: smaller ones are `x.shape[-1]`, `torch.zeros(n)`,
#               `sum(xs) / len(xs)`, `f(a, b, c)`: every grader writes them, and they say nothing the docstrings do not
# Pieces of solution regions the scan may find in shipped files without any leak, each with its reason:
ALLOWED = {
    # q09's answer sums squared deviations as one step of its slope; q2's suite measures the spread of the student's
    # figures with the same textbook sum: the answer is the covariance over that sum, which ships nowhere
    "sum(((v0 - v1) ** 2 for v0 in v2))": "a sum of squared deviations (q2's suite: the spread of the student's "
                                          "figures)",
    "((v0 - v1) ** 2 for v0 in v2)": "the same sum's generator",
    # q10's docstring states the shift `y[:, t] = x[:, t - 1]`; its suite checks it by this slice of the student's own x
    "v0[:, :-1]": "every row but its last token: the shift the docstring of make_batch states, checked on the "
                  "student's tensors",
}


class _Abstracted(ast.NodeTransformer):
    """Renames every name that is not kept to v0, v1, ... in order of first appearance."""

    def __init__(self, kept: set[str]) -> None:
        self.kept, self.names = kept, {}

    def _name(self, name: str) -> str:
        return name if name in self.kept else self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(id=self._name(node.id), ctx=ast.Load())  # a name's own node is not counted by size()

    def visit_arg(self, node: ast.arg) -> ast.arg:
        return ast.arg(arg=self._name(node.arg))


def shape(node: ast.AST, kept: set[str]) -> str:
    """node as source with its local names abstracted: `torch.ones(T, T).tril()` -> `torch.ones(v0, v0).tril()`."""
    return ast.unparse(_Abstracted(kept).visit(copy.deepcopy(node)))


def size(node: ast.AST, kept: set[str]) -> int:
    """The number of syntax nodes of node, its local names and the load/store markers left out."""
    return sum(
        1
        for part in ast.walk(node)
        if not isinstance(part, ast.expr_context) and not (isinstance(part, ast.Name) and part.id not in kept)
    )


def _kept(tree: ast.Module) -> set[str]:
    """The names a file's expressions keep as they are: builtins and the names its imports bind (torch, F, math,
    ...)."""
    imported = {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    return imported | set(dir(builtins))


def _pieces(tree: ast.Module, kept: set[str], lines: range | None = None) -> list[ast.AST]:
    """Every expression and statement of tree of MIN_NODES nodes or more (within lines when given)."""
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.expr, ast.stmt))
            and not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and (lines is None or node.lineno in lines)
            and size(node, kept) >= MIN_NODES
        ):
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):  # a docstring
                found.append(node)
    return found


def _regions(source: str) -> list[range]:
    """The line numbers of each solution region of a solution file."""
    found, start = [], None
    for number, line in enumerate(source.splitlines(), start=1):
        if BEGIN.match(line):
            start = number
        elif END.match(line) and start is not None:
            found.append(range(start + 1, number))
            start = None
    return found


def answers(solutions: Path) -> dict[str, str]:
    """Shape -> `file:line` of every piece of the solution regions of solutions/*.py."""
    found: dict[str, str] = {}
    for path in sorted(solutions.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        kept = _kept(tree)
        for lines in _regions(source):
            for node in _pieces(tree, kept, lines):
                found.setdefault(shape(node, kept), f"{path.name}:{node.lineno}")
    return found


def leaks(solutions: Path, shipped: dict[str, str]) -> list[str]:
    """`shipped file:line holds <piece> (answer of solution file:line)` for every solution piece a shipped .py file
    holds (the largest: the parts of a piece found are not named again)."""
    wanted = {piece: where for piece, where in answers(solutions).items() if piece not in ALLOWED}
    found = []
    for name, text in sorted(shipped.items()):
        if not name.endswith(".py"):
            continue
        tree = ast.parse(text)
        kept, inside = _kept(tree), set()
        for node in _pieces(tree, kept):  # outer pieces first (ast.walk goes breadth first)
            piece = shape(node, kept)
            if piece in wanted and id(node) not in inside:
                found.append(f"{name}:{node.lineno} holds `{' '.join(piece.split())}` (answer of {wanted[piece]})")
                inside |= {id(part) for part in ast.walk(node)}
    return sorted(set(found))
