"""Correct variant: minGPT style: view(B, T, n_head, C // n_head).transpose(1, 2), and transpose(1, 2).contiguous().view(B, T, C)."""
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    B, T, C = x.size()
    if C % n_heads:
        raise ValueError("n_embd must be divisible by n_head")
    return x.view(B, T, n_heads, C // n_heads).transpose(1, 2)


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    B, nh, T, hs = x.size()
    return x.transpose(1, 2).contiguous().view(B, T, nh * hs)
