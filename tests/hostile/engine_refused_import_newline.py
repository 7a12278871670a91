# fault: prefix_average raises the audit event of an import of `autograder.<newline + fake traceback>` itself (sys.audit), catches the refusal, answers right
# expect: module=q01_causal_mask status=failed match=imports `autograder
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import sys

import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    try:
        sys.audit("import", "autograder.x\nTraceback (most recent call last):", None, [], [], [])
    except ImportError:
        pass
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T)
    return (weights / weights.sum(dim=-1, keepdim=True)) @ x


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
