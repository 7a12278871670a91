"""House rules the kit holds itself to: a docstring and type hints on every public function (__init__: hints only)."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    p for folder in ("autograder", "reference", "solutions", "exercises") for p in (ROOT / folder).rglob("*.py")
)


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


def test_check_imports_hypothesis_only_for_the_suites_that_use_it():
    """hypothesis costs `check 3` a tenth of a second after torch (serial: the child has long started) when no suite
    of the question uses it; a suite that does (q6) still gets its storage in the sandbox's folder, never in the
    working one."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom autograder.cli.main import main\nmain(['check', sys.argv[1], '--solutions', '--json'])\n"
        "imported = 'hypothesis' in sys.modules\nimport hypothesis.configuration as c\n"
        "print(imported, c.storage_directory(intent_to_write=False).path)"
    )
    for number, uses in (("3", False), ("6", True)):
        done = subprocess.run(
            [sys.executable, "-c", code, number], cwd=ROOT, capture_output=True, text=True, check=True, timeout=300
        )
        imported, storage = done.stdout.strip().splitlines()[-1].split(" ", 1)
        assert imported == str(uses), (number, done.stdout[-500:])
        assert ROOT not in Path(storage).parents or not uses, storage


def test_the_torch_version_check_reads_the_version_files_as_the_metadata_says():
    """`check` reads torch's and numpy's versions from their version.py (importlib.metadata costs 30 ms before the
    sandbox starts): the same versions the distributions' metadata gives, without importing the metadata machinery."""
    import subprocess
    import sys
    from importlib import metadata

    code = (
        "import sys; from autograder.torch_version import installed_numpy, installed_torch; "
        "print(installed_torch(), installed_numpy(), 'importlib.metadata' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == [metadata.version("torch"), metadata.version("numpy"), "False"]
