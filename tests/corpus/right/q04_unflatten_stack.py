"""Correct variant: unflatten to split, and torch.cat of the heads along the width to combine."""
import torch
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    B, T, D = x.shape
    if D % n_heads != 0:
        raise ValueError(f"model width {D} is not divisible by {n_heads} heads")
    return x.unflatten(-1, (n_heads, D // n_heads)).movedim(2, 1)  # (B, T, H, d) -> (B, H, T, d)


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    return torch.cat(x.unbind(dim=1), dim=-1)  # heads side by side along the width  # (B, H, T, d) -> (B, T, H, d) -> (B, T, H * d)
