# fault: a memory hog: asks for a (T, 65536, 65536) float tensor (16 GiB per row)
# expect: module=q01_causal_mask status=failed match=out of memory
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return torch.ones(x.shape[-2], 1 << 16, 1 << 16).sum(dim=(1, 2)).unsqueeze(-1) * x


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
