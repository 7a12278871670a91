"""Question 7: linear_scores, weights_across_states, no_tanh_weights."""
import random

import pytest
import torch

from autograder.engine.asserts import assert_same
from autograder.engine.inputs import draw, randn
from autograder.engine.proxy import Student
from autograder.suites.test_q06_additive import additive_args, additive_inputs, additive_sizes
from reference import additive


def _states(rng: random.Random, use_tanh: bool) -> dict:
    T, d_s, d_h, d_a, dtype, seed = additive_sizes(rng)
    args = additive_args(T, d_s, d_h, d_a, dtype, seed)
    states = randn(rng.randint(1, 4), d_s, seed=seed, dtype=dtype)  # (S, d_s): S decoder states, the first row is s
    return {"states": states, **{name: args[name] for name in "HWUvb"}, "use_tanh": use_tanh}


def _closed_form(rng: random.Random) -> dict:
    args = additive_inputs(rng)
    return {name: args[name] for name in "HUv"}


@pytest.mark.points(3)
@pytest.mark.parametrize("s, H, W, U, v, b", draw(701, 10, additive_inputs))
def test_linear_scores(student: Student, s: torch.Tensor, H: torch.Tensor, W: torch.Tensor, U: torch.Tensor,
                       v: torch.Tensor, b: torch.Tensor) -> None:
    """linear_scores leaves out the tanh"""
    args = (s, H, W, U, v, b)
    assert_same(student.linear_scores(*args), additive.linear_scores(*args))


def _same_weights(student: Student, args: tuple[torch.Tensor, ...], use_tanh: bool) -> None:
    """The student's weights_across_states equals the reference's on args."""
    assert_same(
        student.weights_across_states(*args, use_tanh=use_tanh),
        additive.weights_across_states(*args, use_tanh=use_tanh),
    )


@pytest.mark.points(2)
@pytest.mark.parametrize("states, H, W, U, v, b, use_tanh", draw(702, 8, lambda rng: _states(rng, True)))
def test_weights_across_states_tanh(
    student: Student,
    states: torch.Tensor,
    H: torch.Tensor,
    W: torch.Tensor,
    U: torch.Tensor,
    v: torch.Tensor,
    b: torch.Tensor,
    use_tanh: bool,
) -> None:
    """weights_across_states with tanh: one row per state"""
    _same_weights(student, (states, H, W, U, v, b), use_tanh)


@pytest.mark.points(2)
@pytest.mark.parametrize("states, H, W, U, v, b, use_tanh", draw(703, 8, lambda rng: _states(rng, False)))
def test_weights_across_states_no_tanh(
    student: Student,
    states: torch.Tensor,
    H: torch.Tensor,
    W: torch.Tensor,
    U: torch.Tensor,
    v: torch.Tensor,
    b: torch.Tensor,
    use_tanh: bool,
) -> None:
    """weights_across_states without tanh"""
    _same_weights(student, (states, H, W, U, v, b), use_tanh)


@pytest.mark.points(3)
@pytest.mark.parametrize("H, U, v", draw(704, 10, _closed_form))
def test_no_tanh_weights(student: Student, H: torch.Tensor, U: torch.Tensor, v: torch.Tensor) -> None:
    """no_tanh_weights is softmax of v . U h_j"""
    assert_same(student.no_tanh_weights(H, U, v), additive.no_tanh_weights(H, U, v))
