"""Question 4: split_heads and combine_heads."""
import random

import pytest
import torch

from autograder.engine.asserts import assert_same, kind
from autograder.engine.inputs import case, draw, randn, seed
from autograder.engine.proxy import Student, StudentError
from autograder.i18n import N_, _
from reference import dot_product


def _split_input(rng: random.Random) -> dict:
    B, T, H, d = rng.randint(1, 3), rng.randint(1, 5), rng.randint(1, 4), rng.randint(1, 4)
    return {"x": randn(B, T, H * d, seed=seed(rng), dtype=rng.choice([torch.float32, torch.float64])), "n_heads": H}


def _combine_input(rng: random.Random) -> dict:
    B, H, T, d = rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 5), rng.randint(1, 4)
    return {"x": randn(B, H, T, d, seed=seed(rng), dtype=rng.choice([torch.float32, torch.float64]))}


ROUND_TRIPS = [case(x=randn(B, T, H * d, seed=s, dtype=torch.float64), n_heads=H)
               for B, T, H, d, s in ((1, 1, 1, 1, 401), (2, 3, 2, 3, 402), (3, 4, 4, 2, 403))]
UNEVEN = [case(x=randn(1, 2, 6, seed=3), n_heads=4), case(x=randn(2, 1, 5, seed=4), n_heads=2)]


@pytest.mark.points(3)
@pytest.mark.parametrize("x, n_heads", draw(401, 12, _split_input))
def test_split_heads(student: Student, x: torch.Tensor, n_heads: int) -> None:
    """split_heads gives head h the columns h*d .. (h+1)*d - 1"""
    assert_same(student.split_heads(x, n_heads), dot_product.split_heads(x, n_heads))


@pytest.mark.points(3)
@pytest.mark.parametrize("x", draw(402, 10, _combine_input))
def test_combine_heads(student: Student, x: torch.Tensor) -> None:
    """combine_heads puts the heads side by side"""
    assert_same(student.combine_heads(x), dot_product.combine_heads(x))


@pytest.mark.points(1)
@pytest.mark.parametrize("x, n_heads", ROUND_TRIPS)
def test_round_trip(student: Student, x: torch.Tensor, n_heads: int) -> None:
    """split then combine gives x back exactly"""
    heads = student.split_heads(x, n_heads)
    assert_same(student.combine_heads(heads), x, N_("combine_heads(split_heads(x))"))


@pytest.mark.points(1)
@pytest.mark.parametrize("x, n_heads", UNEVEN)
def test_split_heads_raises(student: Student, x: torch.Tensor, n_heads: int) -> None:
    """split_heads raises ValueError when D % H != 0"""
    try:
        got = student.split_heads(x, n_heads)
    except StudentError as raised:
        if raised.type != "ValueError":
            raise  # another error: the message says what the student's code raised, and where
    else:
        raise AssertionError(_("returned {kind} instead of raising ValueError").format(kind=kind(got)))
