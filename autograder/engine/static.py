"""Read the student's source (never run it) for uses of the PyTorch functions a check forbids."""
import ast
import functools
from collections.abc import Iterable
from pathlib import Path

from ..i18n import _
from ..sandbox.child.forbid_table import TABLE


# Names whose use reaches into the grader's side of the child: its frames, the interpreter's object lists, PyTorch's
# mode stacks (where the watch on forbidden work lives), tracing hooks, the C API, the child's own package.
REACHES = {
    "_getframe",
    "currentframe",
    "_current_frames",
    "f_back",
    "f_locals",
    "f_globals",
    "tb_frame",
    "gi_frame",
    "cr_frame",
    "get_objects",
    "get_referrers",
    "get_referents",
    "settrace",
    "setprofile",
    "pythonapi",
    "_child",
    "_DisableTorchFunction",
    "_DisableTorchFunctionSubclass",
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "_DisableTorchDispatch",
    "_DisablePythonDispatcher",
    "_DisableFuncTorch",
    "_pop_torch_function_stack",
    "_pop_torch_dispatch_stack",
    "_len_torch_function_stack",
    "_len_torch_dispatch_stack",
    "_get_function_stack_at",
    "_get_dispatch_stack_at",
    "_set_torch_function_mode",
    "_unset_dispatch_mode",
    "_get_current_function_mode_stack",
    "_get_current_dispatch_mode_stack",
    "_pop_mode",
    "_pop_mode_temporarily",
    "_disable_current_modes",
    "_is_torch_function_mode_enabled",
}


def _mentions(source: str, names: Iterable[str]) -> bool:
    """False only when source cannot use any of names: an ASCII text in which none of them occurs (a name the parser
    reads occurs as it is in an ASCII text; a text that is not ASCII is always parsed, as identifiers are
    NFKC-normalized)."""
    return not source.isascii() or any(name in source for name in names)


def reaches(source: str) -> str | None:
    """`line N uses X` for the first name in source (the whole module) that reaches into the grader, or None."""
    if not _mentions(source, REACHES):
        return None  # the usual case, without parsing the module
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    found = sorted(
        _used_names(tree, _imported_as(tree))
        + [(node.id, node.lineno) for node in ast.walk(tree) if isinstance(node, ast.Name)],
        key=lambda pair: pair[1],
    )
    name, line = next(((name, line) for name, line in found if name in REACHES), (None, 0))
    return None if name is None else _("line {line} uses {label}").format(line=line, label=name)


def _definitions(tree: ast.Module) -> dict[str, ast.AST]:
    """Name -> node of every function and class the module defines at its top level."""
    return {
        node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


def _reached(definitions: dict[str, ast.AST], called: Iterable[str]) -> list[str]:
    """The module's functions and classes that called reach: those of called it defines, and every one of its own that a
    reached body names, transitively, in the order found."""
    order, waiting = [], [name for name in called if name in definitions]
    while waiting:
        name = waiting.pop(0)
        if name not in order:
            order.append(name)
            waiting += [
                node.id for node in ast.walk(definitions[name]) if isinstance(node, ast.Name) and node.id in definitions
            ]
    return order


def _aliases(tree: ast.Module) -> dict[str, set[str]]:
    """Local name -> the dotted names the module's imports bind it to (`np` -> numpy, `einsum` -> torch.einsum, `T`
    -> torch)."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                found.setdefault(local, set()).add(alias.name if alias.asname else local)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                found.setdefault(alias.asname or alias.name, set()).add(f"{node.module}.{alias.name}")
    return found


def _dotted(node: ast.AST) -> str | None:
    """`a.b.c` for an attribute chain on a plain name (or the name itself), else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _resolved_names(node: ast.AST, aliases: dict[str, set[str]]) -> list[tuple[str, int]]:
    """Each name and attribute chain in node as the imports resolve it (`np.einsum` -> numpy.einsum), with its line, and
    each name an import in node brings in."""
    found = []
    for child in ast.walk(node):
        if isinstance(child, (ast.Name, ast.Attribute)):
            dotted = _dotted(child)
            if dotted:
                root, dot, rest = dotted.partition(".")
                found += [(base + dot + rest, child.lineno) for base in aliases.get(root, ())]
        elif isinstance(child, ast.ImportFrom) and child.module and not child.level:
            found += [(f"{child.module}.{alias.name}", child.lineno) for alias in child.names]
        elif isinstance(child, ast.Import):
            found += [(alias.name, child.lineno) for alias in child.names]
    return found


def _imported_as(tree: ast.Module) -> dict[str, str]:
    """Local name -> the name it was imported as, for every `from x import name [as local]` in the module."""
    return {
        alias.asname or alias.name: alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


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


def forbidden_uses(source: str, called: Iterable[str], labels: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """function -> (label, `line N uses X`) for each function or class of source that the check's calls reach
    (called, and what they call in the module, transitively) whose body uses one of the forbidden labels' names
    (forbid_table.py): a bare name spelled anywhere, a dotted one where the module's imports resolve a name to it."""
    bare = {name: label for label in reversed(labels) for name in TABLE[label].names if "." not in name}
    dotted = {name: label for label in reversed(labels) for name in TABLE[label].names if "." in name}
    if not _mentions(source, [*bare, *(name.rsplit(".", 1)[1] for name in dotted)]):
        return {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    definitions, imported_as, aliases = _definitions(tree), _imported_as(tree), _aliases(tree)
    uses = {}
    for function in _reached(definitions, called):
        found = [(bare[name], line) for name, line in _used_names(definitions[function], imported_as) if name in bare]
        found += [
            (dotted[name], line) for name, line in _resolved_names(definitions[function], aliases) if name in dotted
        ]
        if found:
            label, line = min(found, key=lambda pair: pair[1])
            uses[function] = (label, _("line {line} uses {label}").format(line=line, label=label))
    return uses


@functools.lru_cache(maxsize=None)
def check_docstrings(path: Path) -> dict[str, tuple[str, int]]:
    """{test function name: (the first line of its docstring, its line)} of a suite file, read from its source: the
    checks' names are data, which `python -OO` (it strips __doc__) must not change."""
    found = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
            doc = (ast.get_docstring(node, clean=False) or "").strip()
            if doc:
                found[node.name] = (doc.splitlines()[0], node.lineno)
    return found
