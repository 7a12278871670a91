"""exercises/ is exactly what the stub tool makes from solutions/, the tool itself behaves, and a stub says what is
graded."""
import ast
from pathlib import Path

import pytest

from autograder.course.manifest import load_course
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


def _docstrings(path: Path) -> dict[str, str]:
    """Function or Class.method name -> docstring, for every function of the module at path."""
    found = {}
    for node in ast.parse(path.read_text()).body:
        methods = [(f"{node.name}.", item) for item in node.body] if isinstance(node, ast.ClassDef) else [("", node)]
        found |= {
            prefix + item.name: ast.get_docstring(item) or ""
            for prefix, item in methods
            if isinstance(item, ast.FunctionDef)
        }
    return found


KEYS, QUERY = "[[.1, .9], [0, 1], [.9, .1], [1, 0], [.8, .2]]", "[1, 0]"


def test_the_stubs_state_the_example_the_errors_and_the_layout_the_grader_checks():
    toy = _docstrings(ROOT / "exercises" / "q02_scaled_scores.py")["toy_weights"]
    assert KEYS in toy and QUERY in toy and "[.12, .11, .26, .29, .23]" in toy and "[.01, .00, .30, .50, .18]" in toy
    multihead = _docstrings(ROOT / "exercises" / "q05_multihead.py")
    init, forward = multihead["MultiHeadSelfAttention.__init__"], multihead["MultiHeadSelfAttention.forward"]
    assert "ValueError" in init and "not divisible by n_heads" in init
    assert "first d_model are q, the next d_model k" in init and "last d_model v" in init
    assert "ValueError" in forward and "max_len" in forward


def test_question_2_gives_its_example_in_full():
    """The hint and the self-test name the keys and the query: nothing in the kit is "the lesson's example"."""
    question = load_course(ROOT, translate=str).question(2)
    texts = [" ".join(text.split()) for text in (question.hints[0], question.selftest[0].question)]
    assert all(KEYS in text and QUERY in text for text in texts)
    assert not [
        text for text in (*question.hints, *(item.question for item in question.selftest)) if "the lesson's" in text
    ]
