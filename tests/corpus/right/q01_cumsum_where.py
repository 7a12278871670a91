"""Correct variant: prefix_average via cumsum, causal_mask from arange comparison, mask_scores with torch.where."""
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    counts = torch.arange(1, T + 1, dtype=x.dtype, device=x.device).unsqueeze(-1)  # (T, 1): 1, 2, ..., T
    return x.cumsum(dim=-2) / counts


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    i = torch.arange(T)
    return i.unsqueeze(1) >= i.unsqueeze(0)  # (T, 1) >= (1, T): key j <= query i


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
