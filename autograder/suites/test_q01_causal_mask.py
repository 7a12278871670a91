"""Question 1: prefix_average, causal_mask, mask_scores."""
import random

import pytest
import torch

from autograder.engine.asserts import assert_same, first_position, kind
from autograder.engine.inputs import batch_shape, case, draw, dtype, randn, seed
from autograder.engine.proxy import Student
from autograder.i18n import _, number_text
from reference import masking


def _prefix_input(rng: random.Random) -> dict:
    return {"x": randn(*batch_shape(rng), rng.randint(1, 7), rng.randint(1, 5), seed=seed(rng), dtype=dtype(rng))}


def _mask_input(rng: random.Random) -> dict:
    T = rng.randint(1, 6)
    scores = randn(*batch_shape(rng), T, T, seed=seed(rng), dtype=dtype(rng))
    if rng.random() < 0.5:
        mask = torch.rand(T, T, generator=torch.Generator().manual_seed(seed(rng))) < 0.5  # (T, T) any pattern
    else:
        mask = masking.causal_mask(T)  # (T, T) the causal pattern, from the oracle: the suite ships to students
    return {"scores": scores, "mask": mask}


PREFIX_INPUTS = [case(x=randn(1, 3, seed=1)), case(x=randn(4, 2, seed=2, dtype=torch.float64))] + draw(
    101, 10, _prefix_input
)


@pytest.mark.points(3)
@pytest.mark.parametrize("x", PREFIX_INPUTS)
def test_prefix_average(student: Student, x: torch.Tensor) -> None:
    """prefix_average gives the running mean"""
    assert_same(student.prefix_average(x), masking.prefix_average(x))


@pytest.mark.points(2)
@pytest.mark.parametrize("T", [1, 2, 3, 5, 8])
def test_causal_mask(student: Student, T: int) -> None:
    """causal_mask is a bool lower triangle"""
    assert_same(student.causal_mask(T), masking.causal_mask(T))


@pytest.mark.points(3)
@pytest.mark.parametrize("scores, mask", draw(103, 10, _mask_input))
def test_mask_scores(student: Student, scores: torch.Tensor, mask: torch.Tensor) -> None:
    """mask_scores hides exactly the masked scores"""
    got = student.mask_scores(scores, mask)
    expected = masking.mask_scores(scores, mask)
    assert type(got) is torch.Tensor, _("the output came back as {kind}; expected a torch.Tensor").format(
        kind=kind(got)
    )
    if got.shape != expected.shape or got.dtype != expected.dtype:
        assert_same(got, expected)
    visible = mask.expand_as(scores)
    changed = visible & (got != scores)
    assert not changed.any(), _(
        "at {position}, where the mask is True, the score became {value}: keep it there (check which side of the mask "
        "you fill)"
    ).format(position=first_position(changed), value=number_text(got[tuple(first_position(changed))].item()))
    shown = ~visible & ~(got <= -1e9)
    assert not shown.any(), _(
        "at {position}, where the mask is False, the value is {value}, not -inf (fill where the mask is False, with "
        "float('-inf'))"
    ).format(position=first_position(shown), value=number_text(got[tuple(first_position(shown))].item()))
