"""Correct (public code): timm's ViT Attention: qkv reshape(B, N, 3, heads, head_dim).permute(2, 0, 3, 1, 4), unbind, q * scale, masked softmax, transpose(1, 2).reshape."""
# Source: huggingface/pytorch-image-models (timm), timm/models/vision_transformer.py, class Attention (forward without the
# fused_attn path, attn_drop, q_norm and k_norm).
# Adapted: qkv_bias=True (the contract's nn.Linear has a bias; timm's default is False), a causal bool buffer sliced to
# (N, N), the ValueErrors of the contract, and (x, attn) returned when return_weights.
import torch
from torch import Tensor, nn


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("dim should be divisible by num_heads")
        self.num_heads = n_heads
        self.head_dim = d_model // n_heads
        self.scale = self.head_dim**-0.5
        self.max_len = max_len
        self.qkv = nn.Linear(d_model, d_model * 3, bias=True)
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("causal", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False)

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        B, N, C = x.shape
        if N > self.max_len:
            raise ValueError(f"sequence length {N} is longer than max_len {self.max_len}")
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        attn = attn.masked_fill(~self.causal[:N, :N], float("-inf"))
        attn = attn.softmax(dim=-1)
        x = attn @ v
        x = x.transpose(1, 2).reshape(B, N, C)
        x = self.proj(x)
        return (x, attn) if return_weights else x
