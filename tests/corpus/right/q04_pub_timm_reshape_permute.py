"""Correct (public code): timm's Attention head split, reshape(B, N, num_heads, head_dim).permute(0, 2, 1, 3), merged by transpose(1, 2).reshape(B, N, C)."""
# Source: huggingface/pytorch-image-models (timm), timm/models/vision_transformer.py, class Attention: the qkv reshape
# `.reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)` and `x.transpose(1, 2).reshape(B, N, C)`.
# Adapted: one tensor instead of the fused qkv (no leading 3), and timm's `assert dim % num_heads == 0, 'dim should be
# divisible by num_heads'` turned into the ValueError the contract asks for, with the same message.
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    B, N, C = x.shape
    if C % n_heads != 0:
        raise ValueError("dim should be divisible by num_heads")
    head_dim = C // n_heads
    return x.reshape(B, N, n_heads, head_dim).permute(0, 2, 1, 3)


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    B, num_heads, N, head_dim = x.shape
    C = num_heads * head_dim
    return x.transpose(1, 2).reshape(B, N, C)
