"""Bug (public issue): perceiver-io divided the scores by self.scale, which is already qk_head_dim ** -0.5, so they are multiplied by sqrt(d_head)."""
# mistake: q05.scale_multiplied
# Source: esceptico/perceiver-io, src/perceiver_io/attention.py, MultiHeadAttention.forward, issue 9 "Bug in
# MultiHeadAttention": `self.scale = self.qk_head_dim ** -0.5` then `attention = (q @ k.transpose(-2, -1) / self.scale)`.
# Adapted: self-attention with the fused qkv (perceiver has separate q, k, v layers for cross-attention), the
# transform_for_scores helper kept, a causal mask buffer and the contract's ValueErrors added.
import torch
from torch import Tensor, nn


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("num_qk_channels must be divisible by num_heads")
        self.num_heads = n_heads
        self.qk_head_dim = d_model // n_heads
        self.scale = self.qk_head_dim**-0.5
        self.max_len = max_len
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("causal_mask", torch.tril(torch.ones(max_len, max_len, dtype=torch.bool)))

    def transform_for_scores(self, x: Tensor, head_dim: int) -> Tensor:
        """(B, T, D) -> (B, heads, T, head_dim)."""
        *dims, seq, hid = x.size()
        x = x.view(*dims, seq, self.num_heads, head_dim)
        return x.transpose(-3, -2)

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        batch, seq_len, dim = x.shape
        if seq_len > self.max_len:
            raise ValueError("input is longer than max_len")
        q, k, v = self.qkv(x).split(dim, dim=-1)
        q = self.transform_for_scores(q, self.qk_head_dim)
        k = self.transform_for_scores(k, self.qk_head_dim)
        v = self.transform_for_scores(v, self.qk_head_dim)
        attention = q @ k.transpose(-2, -1) / self.scale
        attention = attention.masked_fill(~self.causal_mask[:seq_len, :seq_len], float("-inf"))
        attention = attention.softmax(dim=-1)
        weighted = attention @ v
        weighted = weighted.transpose(-3, -2).reshape(batch, seq_len, dim)
        out = self.proj(weighted)
        return (out, attention) if return_weights else out
