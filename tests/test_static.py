"""The grader's reading of the student's source for forbidden calls (autograder/engine/static.py), from the one table
(autograder/sandbox/child/forbid_table.py): only what a check calls is judged, and names are resolved through the
imports."""
import re
import shutil
import textwrap
from pathlib import Path

import pytest

from autograder.engine.static import forbidden_uses
from autograder.sandbox.child.forbid_table import LABELS, TABLE

SDPA, AUTOGRAD, EINSUM = "F.scaled_dot_product_attention", "torch.autograd", "torch.einsum"
GUIDE = Path(__file__).resolve().parent.parent / "docs" / "authoring.md"

QUESTION_2 = textwrap.dedent('''
    import numpy as np
    import torch


    def toy_weights(query, keys, scale=1.0):
        return torch.softmax(scale * torch.einsum("td,d->t", keys, query), dim=-1)


    def scaled_scores(q, k):
        return q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5


    def _dots(a, b):
        return np.einsum("nd,nd->n", a, b)


    def dot_product_std(d, n=20000, seed=0):
        rng = np.random.default_rng(seed)
        return float(_dots(rng.standard_normal((n, d)), rng.standard_normal((n, d))).std())
''')


def test_the_table_is_the_labels_and_every_label_forbids_names() -> None:
    assert LABELS == tuple(TABLE) and {SDPA, AUTOGRAD, EINSUM} <= set(LABELS)
    for label in LABELS:
        assert TABLE[label].names, label


def test_the_authoring_guide_sends_to_the_table_and_quotes_only_its_labels() -> None:
    """The guide names the table as the list of labels, and every label it quotes is one: a new label needs no doc."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index("**`forbid`.**"):text.index("**`preload`.**")]
    quoted = set(re.findall(r'`"([^"`]+)"`', section))
    assert "forbid_table.py" in section and "its keys (`TABLE`) are the labels" in " ".join(section.split())
    assert quoted and quoted <= set(LABELS), f"the guide quotes labels the table lacks: {quoted - set(LABELS)}"


def test_a_call_in_a_function_the_check_does_not_call_costs_nothing() -> None:
    """einsum in toy_weights is not scaled_scores' use: a check of scaled_scores that forbids einsum keeps its
    points."""
    assert forbidden_uses(QUESTION_2, ("scaled_scores",), (EINSUM,)) == {}
    assert forbidden_uses(QUESTION_2, ("toy_weights",), (EINSUM,)) == {
        "toy_weights": (EINSUM, "line 7 uses torch.einsum")
    }


def test_numpy_einsum_is_not_torch_einsum() -> None:
    """dot_product_std's helper calls np.einsum on numpy data: the check of dot_product_std reaches it and finds
    nothing."""
    assert forbidden_uses(QUESTION_2, ("dot_product_std",), (EINSUM,)) == {}


@pytest.mark.parametrize(
    "imports, call",
    [
        ("import torch", "torch.einsum"),
        ("import torch as T", "T.einsum"),
        ("from torch import einsum", "einsum"),
        ("from torch import einsum as contract", "contract"),
        ("import torch.functional as tf", "tf.einsum"),
        ("import torch", "torch.ops.aten.einsum"),
    ],
)
def test_torch_einsum_is_found_under_any_alias(imports: str, call: str) -> None:
    source = f"{imports}\n\n\ndef scaled_scores(q, k):\n    return {call}('...qd,...kd->...qk', q, k)\n"
    assert forbidden_uses(source, ("scaled_scores",), (EINSUM,)) == {
        "scaled_scores": (EINSUM, "line 5 uses torch.einsum")
    }


@pytest.mark.parametrize(
    "imports, call",
    [
        ("import numpy as np", "np.einsum"),
        ("import numpy", "numpy.einsum"),
        ("from numpy import einsum", "einsum"),
        ("import opt_einsum as oe", "oe.contract"),
    ],
)
def test_another_librarys_einsum_is_not_torch_einsum(imports: str, call: str) -> None:
    source = f"{imports}\n\n\ndef scaled_scores(q, k):\n    return {call}('...qd,...kd->...qk', q, k)\n"
    assert forbidden_uses(source, ("scaled_scores",), (EINSUM,)) == {}


def test_what_a_called_function_calls_in_the_module_is_judged_transitively() -> None:
    """A helper that only a called function calls (not one of the question's functions) is read too, through a class."""
    source = textwrap.dedent('''
        import torch.nn.functional as F


        def _fused(q, k, v):
            return F.scaled_dot_product_attention(q, k, v)


        class _Head:
            def run(self, q, k, v):
                return _fused(q, k, v)


        def attention(q, k, v):
            return _Head().run(q, k, v)


        def unrelated(q, k, v):
            return F.scaled_dot_product_attention(q, k, v)
    ''')
    uses = forbidden_uses(source, ("attention",), (SDPA,))
    assert uses == {"_fused": (SDPA, "line 6 uses F.scaled_dot_product_attention")}
    assert forbidden_uses(source, ("unrelated",), (SDPA,)) == {
        "unrelated": (SDPA, "line 19 uses F.scaled_dot_product_attention")
    }
    assert forbidden_uses(source, ("nothing_defined",), (SDPA,)) == {}


def test_a_bare_name_still_counts_wherever_it_is_spelled() -> None:
    """`.backward` on any object is autograd's, a local variable called backward is not."""
    source = "def read_grad(e, H, g):\n    backward = H @ g\n    return getattr(e, 'x').backward(backward)\n"
    assert forbidden_uses(source, ("read_grad",), (AUTOGRAD,)) == {
        "read_grad": (AUTOGRAD, "line 3 uses torch.autograd")
    }
    assert forbidden_uses(source.replace(".backward(", "("), ("read_grad",), (AUTOGRAD,)) == {}


# ---------------------------------------------------------------------------------------------------------------
# Graded end to end: question 2's suite, copied with torch.einsum forbidden in the checks of scaled_scores and
# dot_product_std (not in toy_weights'), grades corpus files in a sandbox
# ---------------------------------------------------------------------------------------------------------------

SUITE = Path(__file__).resolve().parent.parent / "autograder" / "suites" / "test_q02_scaled_scores.py"
FORBIDDING = ("test_scaled_scores", "test_dot_product_std", "test_dot_product_std_seed_and_n")
GRADED = (
    "right/q02_einsum_toy_weights",
    "right/q02_numpy_einsum_helper",
    "right/q02_numpy_rng",
    "right/q02_einsum_stable_softmax",
)


@pytest.fixture(scope="module")
def einsum_forbidden(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """{corpus id: question 2's result} on the suite's copy whose checks of scaled_scores and dot_product_std forbid
    einsum."""
    from test_corpus import CORPUS, COURSE, _package

    from autograder.engine import run

    folder = tmp_path_factory.mktemp("einsum")
    suites = folder / "einsum_suites"  # a package: its module is not the real suite's, whatever pytest imported before
    suites.mkdir()
    (suites / "__init__.py").write_text("", encoding="utf-8")
    shutil.copy(SUITE.parent / "conftest.py", suites)  # the suites' fixtures (student)
    source = SUITE.read_text(encoding="utf-8")
    for name in FORBIDDING:
        assert f"\ndef {name}(" in source, name
        source = source.replace(f"\ndef {name}(", f'\n@pytest.mark.forbid("{EINSUM}")\ndef {name}(')
    (suites / SUITE.name).write_text(source, encoding="utf-8")
    packages = [(_package(folder / name.replace("/", "_"), CORPUS / f"{name}.py"), [2]) for name in GRADED]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run, "suite_file", lambda course, number: suites / SUITE.name)
        reports = run.grade_many(COURSE, packages)
    return {name: report.questions[0] for name, report in zip(GRADED, reports)}


@pytest.mark.parametrize("name", GRADED[:3])
def test_einsum_where_no_check_forbids_it_or_numpys_keeps_full_marks(einsum_forbidden: dict, name: str) -> None:
    """torch.einsum in toy_weights (its checks allow it), np.einsum in dot_product_std or its helper: every check
    passes."""
    result = einsum_forbidden[name]
    assert (result.status, result.score) == ("passed", result.max_score), [
        (t.name, t.message) for t in result.tests if not t.passed
    ]


def test_torch_einsum_in_a_check_that_forbids_it_loses_that_checks_points(einsum_forbidden: dict) -> None:
    """The same corpus file that keeps full marks on the real suite (einsum in toy_weights and scaled_scores) loses the
    scaled_scores check, and only it."""
    result = einsum_forbidden[GRADED[3]]
    failed = [test for test in result.tests if not test.passed]
    assert result.score < result.max_score and [test.name for test in failed] == [
        "scaled_scores divides q k^T by sqrt(d)"
    ], [(t.name, t.message) for t in failed]
    assert "torch.einsum, which question 2 asks you to do without" in failed[0].message, failed[0].message
