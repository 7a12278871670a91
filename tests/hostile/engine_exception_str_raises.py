# fault: prefix_average raises an exception whose __str__ itself raises (the grader must still describe it)
# expect: module=q01_causal_mask status=failed match=raised
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import torch
from torch import Tensor


class Unprintable(Exception):
    """An exception that cannot be turned into text."""

    def __str__(self) -> str:
        raise RuntimeError("no text for you")


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    raise Unprintable()


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
