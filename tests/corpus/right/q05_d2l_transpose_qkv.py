"""Correct variant: d2l.ai style: transpose_qkv to (B*H, T, d), torch.bmm, masked_softmax with value -1e6, transpose_output."""
import math

import torch
from torch import Tensor, nn


def transpose_qkv(X: Tensor, num_heads: int) -> Tensor:
    """(B, T, D) -> (B * H, T, D / H)."""
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    X = X.permute(0, 2, 1, 3)
    return X.reshape(-1, X.shape[2], X.shape[3])


def transpose_output(X: Tensor, num_heads: int) -> Tensor:
    """Reverse transpose_qkv: (B * H, T, d) -> (B, T, H * d)."""
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])
    X = X.permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


def masked_softmax(X: Tensor, keep: Tensor, value: float = -1e6) -> Tensor:
    """Softmax over the last axis with the entries where keep is False replaced by value first."""
    X = X.clone()
    X[..., ~keep] = value
    return nn.functional.softmax(X, dim=-1)


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"num_hiddens {d_model} is not a multiple of num_heads {n_heads}")
        self.num_heads = n_heads
        self.max_len = max_len
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("mask", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False)

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        B, T, D = x.shape
        if T > self.max_len:
            raise ValueError("sequence longer than max_len")
        queries, keys, values = torch.chunk(self.qkv(x), 3, dim=-1)
        queries = transpose_qkv(queries, self.num_heads)
        keys = transpose_qkv(keys, self.num_heads)
        values = transpose_qkv(values, self.num_heads)
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        attention_weights = masked_softmax(scores, self.mask[:T, :T])
        output = torch.bmm(attention_weights, values)
        out = self.proj(transpose_output(output, self.num_heads))
        if return_weights:
            return out, attention_weights.reshape(B, self.num_heads, T, T)
        return out
