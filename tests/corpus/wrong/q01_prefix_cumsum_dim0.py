"""Bug: prefix_average takes cumsum over dim 0 instead of the time axis -2, so batched inputs average over the batch."""
# mistake: q01.prefix_cumsum_dim0
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    counts = torch.arange(1, T + 1, dtype=x.dtype).unsqueeze(-1)  # (T, 1)
    return x.cumsum(dim=0) / counts


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()  # (T, T), True where j <= i


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
