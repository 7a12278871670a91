"""Question 6: additive_scores and additive_attention.

additive_scores is checked with hypothesis (the kit's example of it for course authors): it draws the
sizes, dtype and seed the tensors are built from, so a failure reports the shrunk example, such as
`[smallest failing input: T=1, d_s=1, d_h=1, d_a=2, dtype=torch.float32, seed=0]`.
"""
import random

import pytest
import torch
from hypothesis import given

from autograder.engine.asserts import assert_same
from autograder.engine.inputs import draw, dtype, randn, seed
from autograder.engine.proxy import Student
from autograder.engine.strategies import dtypes, seeds, settings, sizes
from autograder.i18n import N_
from reference import additive


def additive_args(T: int, d_s: int, d_h: int, d_a: int, dtype: torch.dtype, seed: int) -> dict[str, torch.Tensor]:
    """s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v (d_a,), b (d_a,): seeded normals, seeds seed .. seed + 5."""
    shapes = {"s": (d_s,), "H": (T, d_h), "W": (d_a, d_s), "U": (d_a, d_h), "v": (d_a,), "b": (d_a,)}
    return {name: randn(*shape, seed=seed + i, dtype=dtype) for i, (name, shape) in enumerate(shapes.items())}


def additive_sizes(rng: random.Random) -> tuple[int, int, int, int, torch.dtype, int]:
    """(T, d_s, d_h, d_a, dtype, seed) with small random widths, T from 1."""
    return rng.randint(1, 6), rng.randint(1, 5), rng.randint(1, 5), rng.randint(1, 5), dtype(rng), seed(rng)


def additive_inputs(rng: random.Random) -> dict[str, torch.Tensor]:
    """Random (s, H, W, U, v, b), for draw()."""
    return additive_args(*additive_sizes(rng))


@pytest.mark.points(5)
@settings
@given(T=sizes(1, 6), d_s=sizes(), d_h=sizes(), d_a=sizes(), dtype=dtypes(), seed=seeds())
def test_additive_scores(student: Student, T: int, d_s: int, d_h: int, d_a: int, dtype: torch.dtype, seed: int) -> None:
    """additive_scores e_j = v . tanh(W s + U h_j + b)"""
    args = tuple(additive_args(T, d_s, d_h, d_a, dtype, seed).values())  # s, H, W, U, v, b
    assert_same(student.additive_scores(*args), additive.additive_scores(*args))


@pytest.mark.points(5)
@pytest.mark.parametrize("s, H, W, U, v, b", draw(602, 12, additive_inputs))
def test_additive_attention(student: Student, s: torch.Tensor, H: torch.Tensor, W: torch.Tensor, U: torch.Tensor,
                            v: torch.Tensor, b: torch.Tensor) -> None:
    """additive_attention gives softmax weights and their context"""
    args = (s, H, W, U, v, b)
    assert_same(
        student.additive_attention(*args), additive.additive_attention(*args), (N_("the weights"), N_("the context"))
    )
