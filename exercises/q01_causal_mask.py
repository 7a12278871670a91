"""Question 1: prefix averages as one matrix product, and the causal mask."""
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    # TODO: build a (T, T) lower-triangular matrix whose rows sum to 1, then one product.
    raise NotImplementedError


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    # TODO: a (T, T) bool tensor, True on and below the diagonal.
    raise NotImplementedError


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    # TODO: fill the hidden positions with minus infinity without touching the input.
    raise NotImplementedError
