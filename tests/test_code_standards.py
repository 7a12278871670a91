"""House rules the kit holds itself to: a docstring and type hints on every public function (__init__: hints only)."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(p for folder in ("autograder", "reference", "solutions", "exercises") for p in (ROOT / folder).rglob("*.py"))


def _public_functions(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            yield node.name, node
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            yield node.name, node
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and (not item.name.startswith("_") or item.name == "__init__"):
                    yield f"{node.name}.{item.name}", item


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_public_functions_have_docstrings_and_hints(path: Path):
    tree = ast.parse(path.read_text())
    assert ast.get_docstring(tree), f"{path.name} has no module docstring"
    problems = []
    for name, node in _public_functions(tree):
        if not ast.get_docstring(node) and not name.endswith("__init__"):
            problems.append(f"{name}: no docstring")
        if isinstance(node, ast.FunctionDef):
            args = [a for a in node.args.args + node.args.kwonlyargs if a.arg not in ("self", "cls")]
            if any(a.annotation is None for a in args) or node.returns is None:
                problems.append(f"{name}: missing type hints")
    assert not problems, problems


def test_the_grader_starts_its_child_before_it_imports_torch():
    """`check`'s own imports (the CLI, the engine, the sandbox) leave torch to the child, so the two imports overlap on
    two cores instead of following each other (check 3 went from 1.1x to 1.7x a bare `import torch` when they did)."""
    import subprocess
    import sys

    code = "import sys, autograder.cli.main, autograder.engine.run, autograder.sandbox; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False", "importing the grader's check path imported torch"
