# fault: prefix_average calls sys.exit with a code object whose __str__ raises
# expect: module=q01_causal_mask status=failed match=sys.exit()
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import sys

import torch
from torch import Tensor


class Code:
    def __str__(self) -> str:
        raise RuntimeError("no")

    __repr__ = __str__


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    sys.exit(Code())


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
