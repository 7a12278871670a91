"""The grader's reading of the student's source for forbidden calls (autograder/engine/static.py), from the one table
(autograder/sandbox/child/forbid_table.py): only what a check calls is judged, and names are resolved through the imports."""
import re
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


def test_the_authoring_guide_lists_the_tables_labels() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index("**`forbid`.**"):text.index("**`preload`.**")]
    assert "forbid_table.py" in section and set(re.findall(r'`"([^"`]+)"`', section)) == set(LABELS)


def test_a_call_in_a_function_the_check_does_not_call_costs_nothing() -> None:
    """einsum in toy_weights is not scaled_scores' use: a check of scaled_scores that forbids einsum keeps its points."""
    assert forbidden_uses(QUESTION_2, ("scaled_scores",), (EINSUM,)) == {}
    assert forbidden_uses(QUESTION_2, ("toy_weights",), (EINSUM,)) == {"toy_weights": (EINSUM, "line 7 uses torch.einsum")}


def test_numpy_einsum_is_not_torch_einsum() -> None:
    """dot_product_std's helper calls np.einsum on numpy data: the check of dot_product_std reaches it and finds nothing."""
    assert forbidden_uses(QUESTION_2, ("dot_product_std",), (EINSUM,)) == {}


@pytest.mark.parametrize("imports, call", [
    ("import torch", "torch.einsum"),
    ("import torch as T", "T.einsum"),
    ("from torch import einsum", "einsum"),
    ("from torch import einsum as contract", "contract"),
    ("import torch.functional as tf", "tf.einsum"),
    ("import torch", "torch.ops.aten.einsum"),
])
def test_torch_einsum_is_found_under_any_alias(imports: str, call: str) -> None:
    source = f"{imports}\n\n\ndef scaled_scores(q, k):\n    return {call}('...qd,...kd->...qk', q, k)\n"
    assert forbidden_uses(source, ("scaled_scores",), (EINSUM,)) == {"scaled_scores": (EINSUM, "line 5 uses torch.einsum")}


@pytest.mark.parametrize("imports, call", [
    ("import numpy as np", "np.einsum"),
    ("import numpy", "numpy.einsum"),
    ("from numpy import einsum", "einsum"),
    ("import opt_einsum as oe", "oe.contract"),
])
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
    assert forbidden_uses(source, ("unrelated",), (SDPA,)) == {"unrelated": (SDPA, "line 19 uses F.scaled_dot_product_attention")}
    assert forbidden_uses(source, ("nothing_defined",), (SDPA,)) == {}


def test_a_bare_name_still_counts_wherever_it_is_spelled() -> None:
    """`.backward` on any object is autograd's, a local variable called backward is not."""
    source = "def read_grad(e, H, g):\n    backward = H @ g\n    return getattr(e, 'x').backward(backward)\n"
    assert forbidden_uses(source, ("read_grad",), (AUTOGRAD,)) == {"read_grad": (AUTOGRAD, "line 3 uses torch.autograd")}
    assert forbidden_uses(source.replace(".backward(", "("), ("read_grad",), (AUTOGRAD,)) == {}
