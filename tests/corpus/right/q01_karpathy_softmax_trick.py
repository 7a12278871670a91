"""Correct variant: prefix_average as softmax of a zero matrix masked with -inf (the 'version 3' trick), mask_scores via mask == 0."""
import torch
import torch.nn.functional as F
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.size(-2)
    tril = torch.tril(torch.ones(T, T))
    wei = torch.zeros((T, T), dtype=x.dtype)
    wei = wei.masked_fill(tril == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    return wei @ x


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.tril(torch.ones(T, T)).view(T, T) == 1


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(mask == 0, float("-inf"))
