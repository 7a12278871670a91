"""Question 3: attention by hand, and single_head."""
import random

import pytest
import torch

from autograder.engine.asserts import assert_future_blind, assert_same, kind, unmoved_from
from autograder.engine.inputs import batch_shape, draw, dtype, randn, seed
from autograder.engine.proxy import Student
from autograder.i18n import N_, _
from reference import dot_product

pytestmark = pytest.mark.forbid("F.scaled_dot_product_attention", "nn.MultiheadAttention")


def _qkv_input(rng: random.Random, causal: bool) -> dict:
    batch = batch_shape(rng)
    Tq = rng.randint(1, 6)
    Tk = Tq if causal else rng.randint(1, 6)
    d, dv = rng.randint(1, 6), rng.randint(1, 5)
    kind_ = dtype(rng)
    first = seed(rng)
    return {"q": randn(*batch, Tq, d, seed=first, dtype=kind_), "k": randn(*batch, Tk, d, seed=first + 1, dtype=kind_),
            "v": randn(*batch, Tk, dv, seed=first + 2, dtype=kind_), "causal": causal}


def _single_input(rng: random.Random) -> dict:
    T, D, d = rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 4)
    kind_ = dtype(rng)
    first = seed(rng)
    return {"x": randn(T, D, seed=first, dtype=kind_), "W_q": randn(D, d, seed=first + 1, dtype=kind_),
            "W_k": randn(D, d, seed=first + 2, dtype=kind_), "W_v": randn(D, d, seed=first + 3, dtype=kind_)}


def _resampled(T: int, start: int, first: int, again: int) -> torch.Tensor:
    """randn(2, T, 3, seed=first) with its positions start.. along dim 1 drawn again from seed `again`."""
    tensor = randn(2, T, 3, seed=first)
    tensor[:, start:] = randn(2, T - start, 3, seed=again)
    return tensor


@pytest.mark.points(4)
@pytest.mark.parametrize("q, k, v, causal", draw(301, 12, lambda rng: _qkv_input(rng, True)))
def test_causal_attention(student: Student, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> None:
    """causal attention matches F.scaled_dot_product_attention"""
    assert_same(
        student.attention(q, k, v, causal=causal),
        dot_product.attention(q, k, v, causal=causal),
        (N_("the output"), N_("the weights")),
    )


@pytest.mark.points(2)
@pytest.mark.parametrize("q, k, v, causal", draw(302, 8, lambda rng: _qkv_input(rng, False)))
def test_non_causal_attention(
    student: Student, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool
) -> None:
    """attention with causal=False and Tq != Tk"""
    assert_same(
        student.attention(q, k, v, causal=causal),
        dot_product.attention(q, k, v, causal=causal),
        (N_("the output"), N_("the weights")),
    )


@pytest.mark.points(2)
@pytest.mark.parametrize("T, start", [(2, 1), (5, 2), (6, 5)])
def test_future_blind(student: Student, T: int, start: int) -> None:
    """changing a future key never changes a past output"""
    first = 40 + T
    q, k, v = (randn(2, T, 3, seed=first + i) for i in range(3))
    changed_k, changed_v = _resampled(T, start, first + 1, first + 7), _resampled(T, start, first + 2, first + 7)
    outs = [student.attention(q, k, v), student.attention(q, changed_k, changed_v)]
    for out in outs:
        assert isinstance(out, tuple | list) and len(out) == 2 and type(out[0]) is torch.Tensor, _(
            "attention returned {kind}; expected (output, weights)"
        ).format(kind=kind(out))
    assert_future_blind(
        outs[0][0],
        outs[1][0],
        start,
        -2,
        _(
            "changing keys and values at positions {start} and later changed the output at an earlier position: the "
            "future leaks in"
        ).format(start=start),
    )
    assert not unmoved_from(outs[0][0], outs[1][0], start, -2), _(
        "changing keys and values at positions {start} and later changed no output, not even there: the output must "
        "depend on the keys and values"
    ).format(start=start)


@pytest.mark.points(2)
@pytest.mark.parametrize("x, W_q, W_k, W_v", draw(303, 8, _single_input))
def test_single_head(
    student: Student, x: torch.Tensor, W_q: torch.Tensor, W_k: torch.Tensor, W_v: torch.Tensor
) -> None:
    """single_head projects x and attends causally"""
    assert_same(student.single_head(x, W_q, W_k, W_v), dot_product.single_head(x, W_q, W_k, W_v))
