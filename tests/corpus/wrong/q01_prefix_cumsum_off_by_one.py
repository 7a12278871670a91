"""Bug: prefix_average divides the running sum by i (arange starting at 0) instead of i + 1."""
# mistake: q01.prefix_off_by_one
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    counts = torch.arange(T, dtype=x.dtype, device=x.device).unsqueeze(-1)  # (T, 1): 0, 1, ..., T-1
    return x.cumsum(dim=-2) / counts  # running sums divided by the count


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
