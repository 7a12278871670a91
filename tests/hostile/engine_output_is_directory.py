# fault: prefix_average replaces its captured-output file output.txt by a folder, and answers wrong
# expect: module=q01_causal_mask status=failed match=differ from the expected values
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import os

import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    try:
        os.remove("output.txt")
        os.mkdir("output.txt")
    except OSError:
        pass
    return torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
