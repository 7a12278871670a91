"""The import contract: the kit's modules in layers, each importing only from its own layer or a lower one, and no
circle.

Every import counts, the ones inside functions and under `if TYPE_CHECKING` too: an import moved into a function to
break a circle is still the circle. The layers, top to bottom, are drawn in the README's layout section.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "autograder", ROOT / "reference")

# Top to bottom. "x.*" is the package x and every module in it, "x" that module alone; the longest name that matches a
# module gives its layer.
LAYERS = (
    ("entry", ("autograder", "autograder.__main__")),  # `python -m autograder`; the package's `grade` for notebooks
    # what a user or maintainer runs
    ("commands", ("autograder.cli.*", "autograder.notebook", "autograder.maintainer.*")),
    ("class and pictures", ("autograder.classroom.*", "autograder.nbgrader.*", "autograder.plots.*",
                            "autograder.recording.record")),  # the recorder runs the oracle and draws the plots' data
    ("suites", ("autograder.suites.*",)),  # the hidden checks: the plots reuse their models and inputs
    ("engine", ("autograder.engine.*", "autograder.recording.*")),  # recordings: the oracle's answers the suites replay
    ("sandbox and course", ("autograder.sandbox.*", "autograder.course.*", "autograder.torch_version",
                            "autograder.maintainer.stubs")),  # what a stub looks like: the nbgrader course writes them
    ("leaves", ("autograder.i18n", "autograder.user_folder", "autograder.usage", "autograder.statuses", "reference.*")),
)



def modules(sources: tuple[Path, ...] = SOURCES) -> dict[str, Path]:
    """Dotted name -> file of every module under sources (a package is named by its folder)."""
    found = {}
    for source in sources:
        for path in source.rglob("*.py"):
            parts = path.relative_to(source.parent).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _targets(name: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: dict[str, Path]) -> set[str]:
    """The modules of known that one import statement of module name reaches (the nearest known module of each name)."""
    if isinstance(node, ast.Import):
        wanted = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = name.split(".") if is_package else name.split(".")[:-1]
            base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
        wanted = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    reached = set()
    for target in wanted:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            reached.add(target)
    return reached


def import_graph(sources: tuple[Path, ...] = SOURCES) -> dict[str, dict[str, int]]:
    """Module -> {module it imports: line of its first import of it}, every import statement counted, wherever it is."""
    known = modules(sources)
    graph = {}
    for name, path in known.items():
        edges = graph.setdefault(name, {})
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(name, path.name == "__init__.py", node, known):
                    edges[target] = min(edges.get(target, node.lineno), node.lineno)
    return graph


def layer_of(module: str) -> int | None:
    """The index in LAYERS of module's layer (0 is the top), None when no layer names it."""
    best, layer = "", None
    for index, (_name, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            package = pattern.removesuffix(".*")
            if (module == package or pattern.endswith(".*") and module.startswith(package + ".")) and len(
                package
            ) > len(best):
                best, layer = package, index
    return layer


def upward(graph: dict[str, dict[str, int]]) -> list[str]:
    """Each import of a module from a layer above its own, as `module:line -> module (layer -> layer)`."""
    found = []
    for module, edges in sorted(graph.items()):
        for target, line in sorted(edges.items()):
            if None not in (layer_of(module), layer_of(target)) and layer_of(target) < layer_of(module):
                found.append(
                    f"{module}:{line} -> {target} ({LAYERS[layer_of(module)][0]} -> {LAYERS[layer_of(target)][0]})"
                )
    return found


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _said(graph: dict[str, dict[str, int]], component: list[str]) -> str:
    """A circle's modules and the imports that close it, one line each."""
    return "\n".join(
        f"  {module}:{line} -> {target}"
        for module in component
        for target, line in sorted(graph[module].items())
        if target in component
    )


def test_every_module_has_a_layer():
    """A new package or top-level module gets its place in LAYERS (and in the README's drawing)."""
    assert [module for module in sorted(modules()) if layer_of(module) is None] == []


def test_no_module_imports_from_a_layer_above_its_own():
    assert upward(import_graph()) == []


def test_no_import_circle():
    graph = import_graph()
    found = circles(graph)
    assert not found, "import circles:\n" + "\n".join(_said(graph, component) for component in found)


def test_the_checks_catch_a_planted_circle_and_an_upward_import(tmp_path: Path):
    """A circle hidden inside functions and an import from a layer above are found, with the lines that make them."""
    package = tmp_path / "autograder"
    for folder in ("engine", "sandbox", "cli"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "engine" / "plugin.py").write_text("from .run import SUITES\n")
    (package / "engine" / "run.py").write_text("SUITES = 1\n\ndef go():\n    from .plugin import x\n")
    (package / "sandbox" / "base.py").write_text("def f():\n    from ..cli.main import main\n")
    (package / "cli" / "main.py").write_text("from autograder.engine import run\nmain = 1\n")
    graph = import_graph((package,))
    assert circles(graph) == [["autograder.engine.plugin", "autograder.engine.run"]]
    assert _said(graph, circles(graph)[0]) == (
        "  autograder.engine.plugin:1 -> autograder.engine.run\n  autograder.engine.run:4 -> autograder.engine.plugin"
    )
    assert upward(graph) == ["autograder.sandbox.base:2 -> autograder.cli.main (sandbox and course -> commands)"]


def _drawn(pattern: str) -> str:
    """How the README's drawing names a LAYERS entry: `cli/`, `notebook.py`, `__init__.py`."""
    parts = pattern.removesuffix(".*").split(".")
    path = "/".join(parts[1:] if parts[0] == "autograder" else parts)
    return "__init__.py" if not path else path + "/" if pattern.endswith(".*") else path + ".py"


def test_the_readme_draws_these_layers():
    """The README's layout section lists the layers of LAYERS, in their order, one line each."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    drawing = readme.split("The package's layers, top to bottom", 1)[1].split("```")[1].strip().splitlines()
    drawn = [[name.strip() for name in line.split("  ", 1)[0].split(", ")] for line in drawing]
    assert drawn == [[_drawn(pattern) for pattern in patterns] for _name, patterns in LAYERS]


def _reason_given(lines: list[str], line: int) -> bool:
    """True when the import at line (1-based), or the run of imports it belongs to, has a comment on one of its lines or
    on the comment line just above the run."""
    for text in (text.strip() for text in reversed(lines[:line])):
        if text.startswith(("import ", "from ")):
            if "#" in text:
                return True
        elif text:
            return text.startswith("#")
    return False


def test_an_import_inside_a_function_of_the_sandbox_or_the_engine_says_why():
    """A function-level import there is a deliberate lazy one (torch after the child started, psutil's 80 ms, a piece
    only one platform has) and says so; one that only broke a circle has no reason to give."""
    silent = []
    for folder in ("sandbox", "engine"):
        for path in sorted((ROOT / "autograder" / folder).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            for function in ast.walk(ast.parse("\n".join(lines))):
                if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for node in ast.walk(function):
                        if isinstance(node, (ast.Import, ast.ImportFrom)) and not _reason_given(lines, node.lineno):
                            silent.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert sorted(set(silent)) == []
