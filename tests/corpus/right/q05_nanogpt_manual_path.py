"""Correct variant: nanoGPT CausalSelfAttention manual path: float tril 'bias' buffer (1, 1, L, L), split(n_embd, dim=2), view/transpose."""
import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("d_model must be divisible by n_heads")
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.n_head = n_heads
        self.n_embd = d_model
        self.block_size = max_len
        self.register_buffer("bias", torch.tril(torch.ones(max_len, max_len)).view(1, 1, max_len, max_len))

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        B, T, C = x.size()
        if T > self.block_size:
            raise ValueError(f"Cannot forward sequence of length {T}, block size is only {self.block_size}")
        q, k, v = self.qkv(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        y = self.proj(y)
        return (y, att) if return_weights else y
