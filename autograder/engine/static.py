"""Read the student's source (never run it) for uses of the PyTorch functions a question forbids."""
import ast
import functools
from collections.abc import Iterable
from pathlib import Path

from ..i18n import _

NAMES = {
    "F.scaled_dot_product_attention": {"scaled_dot_product_attention"},
    "nn.MultiheadAttention": {"MultiheadAttention", "multi_head_attention_forward"},
    "torch.autograd": {"autograd", "backward", "enable_grad", "requires_grad_", "vjp", "jacrev", "jacfwd", "functorch"},
}


# Names whose use reaches into the grader's side of the child: its frames, the interpreter's object lists, PyTorch's
# mode stacks (where the watch on forbidden work lives), tracing hooks, the C API, the child's own package.
REACHES = {"_getframe", "currentframe", "_current_frames", "f_back", "f_locals", "f_globals", "tb_frame", "gi_frame", "cr_frame",
           "get_objects", "get_referrers", "get_referents", "settrace", "setprofile", "pythonapi", "_child",
           "_DisableTorchFunction", "_DisableTorchFunctionSubclass", "DisableTorchFunction", "DisableTorchFunctionSubclass",
           "_DisableTorchDispatch", "_DisablePythonDispatcher", "_DisableFuncTorch", "_pop_torch_function_stack", "_pop_torch_dispatch_stack", "_len_torch_function_stack",
           "_len_torch_dispatch_stack", "_get_function_stack_at", "_get_dispatch_stack_at", "_set_torch_function_mode",
           "_unset_dispatch_mode", "_get_current_function_mode_stack", "_get_current_dispatch_mode_stack", "_pop_mode",
           "_pop_mode_temporarily", "_disable_current_modes", "_is_torch_function_mode_enabled"}


def _mentions(source: str, names: Iterable[str]) -> bool:
    """False only when source cannot use any of names: an ASCII text in which none of them occurs (a name the parser reads
    occurs as it is in an ASCII text; a text that is not ASCII is always parsed, as identifiers are NFKC-normalized)."""
    return not source.isascii() or any(name in source for name in names)


def reaches(source: str) -> str | None:
    """`line N uses X` for the first name in source (the whole module) that reaches into the grader, or None."""
    if not _mentions(source, REACHES):
        return None  # the usual case, without parsing the module
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    found = sorted(_used_names(tree, _imported_as(tree)) + [(node.id, node.lineno) for node in ast.walk(tree) if isinstance(node, ast.Name)],
                   key=lambda pair: pair[1])
    name, line = next(((name, line) for name, line in found if name in REACHES), (None, 0))
    return None if name is None else _("line {line} uses {label}").format(line=line, label=name)


def _definitions(tree: ast.Module) -> dict[str, ast.AST]:
    return {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def _imported_as(tree: ast.Module) -> dict[str, str]:
    """Local name -> the name it was imported as, for every `from x import name [as local]` in the module."""
    return {alias.asname or alias.name: alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}


def _used_names(node: ast.AST, imported_as: dict[str, str]) -> list[tuple[str, int]]:
    """Attributes (`torch.autograd`, `.backward`), imported modules and names, and uses of imported names, with lines.

    A plain variable that happens to be called `backward` or `vjp` is not a use.
    """
    found = []
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute):
            found.append((child.attr, child.lineno))
        elif isinstance(child, ast.Name) and child.id in imported_as:
            found.append((imported_as[child.id], child.lineno))
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            modules = [alias.name for alias in child.names] + ([child.module] if getattr(child, "module", None) else [])
            found += [(part, child.lineno) for name in modules for part in name.split(".")]
    return found


def forbidden_uses(source: str, functions: tuple[str, ...], labels: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """function -> (label, `line N uses X`) for each of functions whose body mentions a forbidden label's names."""
    if not _mentions(source, [name for label in labels for name in NAMES[label]]):
        return {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    definitions, imported_as = _definitions(tree), _imported_as(tree)
    uses = {}
    for function in functions:
        if function not in definitions:
            continue
        for name, line in _used_names(definitions[function], imported_as):
            label = next((label for label in labels if name in NAMES[label]), None)
            if label:
                uses[function] = (label, _("line {line} uses {label}").format(line=line, label=label))
                break
    return uses


@functools.lru_cache(maxsize=None)
def check_docstrings(path: Path) -> dict[str, tuple[str, int]]:
    """{test function name: (the first line of its docstring, its line)} of a suite file, read from its source: the checks'
    names are data, which `python -OO` (it strips __doc__) must not change."""
    found = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
            doc = (ast.get_docstring(node, clean=False) or "").strip()
            if doc:
                found[node.name] = (doc.splitlines()[0], node.lineno)
    return found
