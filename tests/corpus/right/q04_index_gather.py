"""Correct variant: heads gathered by explicit column indices (torch.stack of slices), combined with torch.cat over unbind."""
import torch
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    D = x.shape[-1]
    d, rest = divmod(D, n_heads)
    if rest != 0:
        raise ValueError(f"{D} columns cannot be shared among {n_heads} heads")
    heads = [x[:, :, torch.arange(h * d, (h + 1) * d)] for h in range(n_heads)]
    return torch.stack(heads, dim=1)


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    return torch.cat(x.unbind(dim=1), dim=-1)
