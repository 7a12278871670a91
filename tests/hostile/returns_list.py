# fault: causal_mask returns a nested list
# expect: module=q01_causal_mask status=failed match=list
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T), ones on and below the diagonal
    weights = weights / weights.sum(dim=-1, keepdim=True)  # (T, T), row i holds 1 / (i + 1)
    return weights @ x  # (T, T) @ (..., T, d) -> (..., T, d)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril().tolist()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
