"""The kit's own test suite: the README's command runs the fast set, `-m slow` the end-to-end paths, and every slow test
names a fast test, which exists, that runs the same code."""
import ast
import re
import shlex
from pathlib import Path

import pytest
from conftest import SLOW_FIXTURES, SLOW_TESTS

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"


def _defined(module: str) -> set[str]:
    """The names of the functions a test module defines at its top level."""
    tree = ast.parse((TESTS / module).read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_the_readmes_command_leaves_the_slow_set_out() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    addopts = shlex.split(re.search(r'^addopts = "([^"]*)"', pyproject, re.MULTILINE).group(1))
    assert addopts[addopts.index("-m") + 1] == "not slow"
    assert re.search(r'^ +"slow: ', pyproject, re.MULTILINE), "the slow marker is not registered"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert (
        "\npython -m pytest\n" in readme
        and "`python -m pytest -m slow`" in readme
        and '`python -m pytest -m "slow or not slow"`' in readme
    )
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^timed .* python -m pytest$", ci, re.MULTILINE) and re.search(
        r"^timed .* python -m pytest -m slow$", ci, re.MULTILINE
    )


@pytest.mark.parametrize("entry", [*SLOW_TESTS, *SLOW_FIXTURES], ids=str)
def test_each_slow_test_names_fast_tests_that_exist(entry: str | tuple[str, str]) -> None:
    module, name = entry.split("::") if isinstance(entry, str) else entry
    assert name in _defined(module), f"{module} has no {name}"
    covered = SLOW_TESTS[entry] if isinstance(entry, str) else SLOW_FIXTURES[entry]
    named = re.findall(r"(test_\w+\.py)(?:::(\w+))?", covered)
    assert named, f"{entry}: names no fast test"
    for other, function in named:
        assert (TESTS / other).is_file(), f"{entry}: {other} is not a test module"
        assert not function or function in _defined(other), f"{entry}: {other} has no {function}"
        assert f"{other}::{function}" not in SLOW_TESTS, f"{entry}: {other}::{function} is slow too"
