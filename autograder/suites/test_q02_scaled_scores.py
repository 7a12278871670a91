"""Question 2: toy_weights, scaled_scores, dot_product_std."""
import math
import random

import pytest
import torch

from autograder.engine.asserts import as_number, assert_number, assert_same
from autograder.engine.inputs import batch_shape, case, draw, dtype, randn, seed
from autograder.engine.proxy import Student
from autograder.i18n import N_, _, number_text
from reference import dot_product

LESSON_QUERY = [1.0, 0.0]
LESSON_KEYS = [[0.1, 0.9], [0.0, 1.0], [0.9, 0.1], [1.0, 0.0], [0.8, 0.2]]
LESSON_WEIGHTS = {1.0: [0.12, 0.11, 0.26, 0.29, 0.23], 5.0: [0.01, 0.00, 0.30, 0.50, 0.18]}


def _toy_input(rng: random.Random) -> dict:
    T, d = rng.randint(1, 6), rng.randint(1, 4)
    kind = dtype(rng)
    return {"query": randn(d, seed=seed(rng), dtype=kind), "keys": randn(T, d, seed=seed(rng), dtype=kind),
            "scale": rng.choice([0.5, 1.0, 3.0])}


def _scores_input(rng: random.Random) -> dict:
    batch = batch_shape(rng)
    Tq, Tk, d = rng.randint(1, 5), rng.randint(1, 5), rng.choice([1, 2, 3, 8, 16])
    kind = dtype(rng)
    return {
        "q": randn(*batch, Tq, d, seed=seed(rng), dtype=kind),
        "k": randn(*batch, Tk, d, seed=seed(rng), dtype=kind),
    }


LESSON_INPUTS = [case(query=torch.tensor(LESSON_QUERY), keys=torch.tensor(LESSON_KEYS), scale=s) for s in (1.0, 5.0)]


@pytest.mark.points(1)
@pytest.mark.parametrize("query, keys, scale", LESSON_INPUTS)
def test_toy_weights_lesson(student: Student, query: torch.Tensor, keys: torch.Tensor, scale: float) -> None:
    """toy_weights reproduces the lesson's example"""
    got = student.toy_weights(query, keys, scale=scale)
    expected = torch.tensor(LESSON_WEIGHTS[scale])
    if type(got) is torch.Tensor and got.shape == expected.shape and got.dtype == torch.float32:
        assert torch.allclose(got, expected, atol=0.006, rtol=0), _(
            "the lesson's example gives weights that do not round to the lesson's figures at scale {scale}"
        ).format(scale=number_text(scale))
    else:
        assert_same(got, expected, N_("the weights"))


@pytest.mark.points(2)
@pytest.mark.parametrize("query, keys, scale", draw(201, 10, _toy_input))
def test_toy_weights(student: Student, query: torch.Tensor, keys: torch.Tensor, scale: float) -> None:
    """toy_weights on random queries and keys"""
    assert_same(student.toy_weights(query, keys, scale=scale), dot_product.toy_weights(query, keys, scale=scale))


@pytest.mark.points(3)
@pytest.mark.parametrize("q, k", draw(202, 12, _scores_input))
def test_scaled_scores(student: Student, q: torch.Tensor, k: torch.Tensor) -> None:
    """scaled_scores divides q k^T by sqrt(d)"""
    assert_same(student.scaled_scores(q, k), dot_product.scaled_scores(q, k))


@pytest.mark.points(1)
@pytest.mark.parametrize("d", [1, 4, 16, 64])
def test_dot_product_std(student: Student, d: int) -> None:
    """dot_product_std is about sqrt(d)"""
    assert_number(student.dot_product_std(d, n=20000, seed=0), math.sqrt(d), f"dot_product_std({d})", rel=0.05)


# few draws, many seeds: a figure drawn varies from seed to seed as statistics says
SPREAD_D, SPREAD_N, SPREAD_SEEDS = 4, 50, 16


@pytest.mark.points(1)
def test_dot_product_std_seed_and_n(student: Student) -> None:
    """dot_product_std depends on its seed and n"""
    got = [student.dot_product_std(8, n=n, seed=s) for n, s in ((5000, 0), (5000, 1), (5000, 0), (100, 0))]
    values = [as_number(value) for value in got]
    assert all(value is not None for value in values), _("dot_product_std should return a number (a Python float)")
    first, other_seed, again, fewer = values
    assert first == again, _(
        "two calls with the same seed give different results ({first}, then {again}): draw from a torch.Generator "
        "seeded with `seed`"
    ).format(first=f"{first:.6g}", again=f"{again:.6g}")
    assert first != other_seed, _(
        "seeds 0 and 1 give the same figure ({first}): the result must come from random draws made with `seed`"
    ).format(first=f"{first:.6g}")
    assert first != fewer, _("n=5000 and n=100 give the same figure ({first}): draw n pairs of vectors").format(
        first=f"{first:.6g}"
    )
    small = [as_number(student.dot_product_std(SPREAD_D, n=SPREAD_N, seed=s)) for s in range(SPREAD_SEEDS)]
    assert all(value is not None for value in small), _("dot_product_std should return a number (a Python float)")
    mean = sum(small) / len(small)
    spread = math.sqrt(sum((value - mean) ** 2 for value in small) / (len(small) - 1))
    # sampling spread of a std of n draws
    expected = mean * math.sqrt((2 * SPREAD_D**2 + 6 * SPREAD_D) / SPREAD_N) / (2 * SPREAD_D)
    assert 0.4 * expected <= spread <= 2.5 * expected, _(
        "with n={n}, seeds 0 to {last} give figures that spread by {spread} around {mean}, where the standard "
        "deviation of {n} drawn dot products spreads by about {expected}: the result must come from the dot products "
        "actually drawn"
    ).format(n=SPREAD_N, last=SPREAD_SEEDS - 1, spread=f"{spread:.3g}", mean=f"{mean:.3g}", expected=f"{expected:.3g}")
