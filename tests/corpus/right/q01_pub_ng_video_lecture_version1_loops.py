"""Correct (public code): Karpathy's ng-video-lecture 'version 1' bag of words: xbow[t] = mean of x[:t+1] in a loop over t."""
# Source: karpathy/ng-video-lecture, the self-attention walkthrough notebook (gpt-dev), "version 1: for loops".
# Adapted: the (B, T, C) loops over b and t become one loop over t with ellipsis indexing, so any leading dims work;
# the mask is the lecture's torch.tril(torch.ones(T, T)) turned to bool, and the fill its masked_fill(tril == 0, -inf).
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    xbow = torch.zeros_like(x)
    for t in range(T):
        xprev = x[..., : t + 1, :]  # (..., t+1, C)
        xbow[..., t, :] = torch.mean(xprev, -2)
    return xbow


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    tril = torch.tril(torch.ones(T, T))
    return tril == 1


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    wei = scores.masked_fill(mask == 0, float("-inf"))
    return wei
