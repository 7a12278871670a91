"""exercises/ is exactly what the stub tool makes from solutions/, and the tool itself behaves."""
from pathlib import Path

import pytest

from autograder.maintainer.stubs import StubError, expected_stubs, make_stub, solution_bodies

ROOT = Path(__file__).resolve().parent.parent


def test_exercises_are_the_generated_stubs():
    expected = expected_stubs(ROOT / "solutions")
    actual = {path.name: path.read_text() for path in sorted((ROOT / "exercises").glob("*.py"))}
    assert actual.keys() == expected.keys(), "exercises/ and solutions/ must hold the same files"
    drifted = [name for name in expected if actual[name] != expected[name]]
    assert not drifted, f"exercises/ drifted from solutions/: {drifted}; run the stub tool"


def test_stub_keeps_signature_docstring_and_todo():
    source = 'def f(x):\n    """Doc."""\n    ### BEGIN SOLUTION: add one.\n    return x + 1\n    ### END SOLUTION\n'
    assert make_stub(source) == 'def f(x):\n    """Doc."""\n    # TODO: add one.\n    raise NotImplementedError\n'
    assert solution_bodies(source) == ["return x + 1"]


@pytest.mark.parametrize("source, problem", [
    ("    ### BEGIN SOLUTION\n    x = 1\n", "never closed"),
    ("    ### END SOLUTION\n", "without a BEGIN"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n", "inside the region"),
])
def test_unpaired_markers_are_reported_with_their_line(source, problem):
    with pytest.raises(StubError, match=problem):
        make_stub(source, "q.py")


def test_every_solution_function_has_a_region():
    for path in sorted((ROOT / "solutions").glob("q*.py")):
        stub = make_stub(path.read_text())
        assert "raise NotImplementedError" in stub and "### " not in stub, path.name
