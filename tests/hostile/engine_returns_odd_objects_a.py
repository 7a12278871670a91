# fault: prefix_average returns a tuple of a generator, a recursive list (x = []; x.append(x)), the os module and a lambda
# expect: module=q01_causal_mask status=failed match=came back as
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import os

import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    right = (torch.ones(T, T, dtype=x.dtype).tril() / torch.arange(1, T + 1, dtype=x.dtype)[:, None]) @ x
    loop: list = []
    loop.append(loop)
    return (row for row in right), loop, os, lambda: right


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
