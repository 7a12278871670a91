# fault: prefix_average raises an exception whose class name holds a newline and a fake traceback
# expect: module=q01_causal_mask status=failed match=raised
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import torch
from torch import Tensor

Weird = type("ValueError\nTraceback (most recent call last):\n  File grader.py", (Exception,), {})


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    raise Weird("one line")


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
