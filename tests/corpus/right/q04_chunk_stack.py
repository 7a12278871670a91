"""Correct variant: heads split with chunk + stack and combined with unbind + cat."""
import torch
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    B, T, D = x.shape
    if D % n_heads != 0:
        raise ValueError(f"model width {D} is not divisible by {n_heads} heads")
    return torch.stack(x.chunk(n_heads, dim=-1), dim=1)  # H pieces of (B, T, d)  # (B, T, H, d) -> (B, H, T, d)


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    return torch.cat([x[:, h] for h in range(x.shape[1])], dim=-1)  # (B, H, T, d) -> (B, T, H, d) -> (B, T, H * d)
