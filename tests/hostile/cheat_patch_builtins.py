# fault: patches builtins (all, any, abs, max, min, round, isinstance, issubclass) hoping the grader uses them, then answers wrong
# expect: module=q01_causal_mask status=failed match=positions differ
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import builtins
import torch
from torch import Tensor


builtins.all = lambda *args, **kwargs: True
builtins.any = lambda *args, **kwargs: False
builtins.abs = lambda value: 0
builtins.max = lambda *args, **kwargs: 0
builtins.min = lambda *args, **kwargs: 0
builtins.round = lambda *args, **kwargs: 0
_isinstance = builtins.isinstance
builtins.isinstance = lambda value, kinds: True if kinds is torch.Tensor else _isinstance(value, kinds)
builtins.issubclass = lambda *args, **kwargs: True


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return x * 0 + 1


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
