"""Bug (public issue): the UvA-style per-head qkv chunk and, before its fix, values.reshape(B, T, D) without the permute back."""
# Source: jsbaan/transformer-from-scratch, multi_head_attention.py before pull request 6 "Fix several bugs, one critical"
# (issue 4): `values.reshape(n_batches, sequence_length, hidden_dim)` straight from (batch, heads, seq, qkv_dim). The file
# also cuts qkv per head, `qkv.reshape(B, T, num_heads, 3 * qkv_dim).permute(0, 2, 1, 3).chunk(3, dim=-1)`, from the UvA
# deep-learning tutorial it credits: two bugs at once. Where T = 1 the merge bug vanishes and the file is exactly the
# per-head split, but every input with T >= 2 rules that mistake out (it alone would not give this result), so the kit
# names neither: a name is given only when no failing input contradicts it.
# Adapted: qkv_proj/o_proj renamed qkv/proj, a causal mask buffer and the contract's ValueErrors added.
import math

import torch
from torch import Tensor, nn


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("hidden_dim must be divisible by num_heads")
        self.qkv_dim = d_model // n_heads
        self.hidden_dim = d_model
        self.num_heads = n_heads
        self.max_len = max_len
        self.qkv = nn.Linear(d_model, 3 * n_heads * self.qkv_dim)
        self.proj = nn.Linear(n_heads * self.qkv_dim, d_model)
        self.register_buffer("future_mask", torch.triu(torch.ones(max_len, max_len, dtype=torch.bool), diagonal=1))

    @staticmethod
    def scaled_dot_product(q: Tensor, k: Tensor, v: Tensor, future: Tensor) -> tuple[Tensor, Tensor]:
        """All input tensors have dimensionality (n_batches, num_heads, sequence_length, qkv_dim)."""
        attn_logits = torch.matmul(q, torch.transpose(k, -2, -1))
        attn_logits_scaled = attn_logits / math.sqrt(q.size()[-1])
        attn_logits_scaled = attn_logits_scaled.masked_fill(future, float("-inf"))
        attention = nn.functional.softmax(attn_logits_scaled, dim=-1)
        values = torch.matmul(attention, v)
        return values, attention

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        n_batches, sequence_length, hidden_dim = x.size()
        if sequence_length > self.max_len:
            raise ValueError("sequence longer than max_len")
        qkv = self.qkv(x)
        qkv = qkv.reshape(n_batches, sequence_length, self.num_heads, 3 * self.qkv_dim)
        qkv = qkv.permute(0, 2, 1, 3)  # (n_batches, num_heads, sequence_length, 3*qkv_dim)
        q, k, v = qkv.chunk(3, dim=-1)
        future = self.future_mask[:sequence_length, :sequence_length]
        values, attn = self.scaled_dot_product(q, k, v, future)
        values = values.reshape(n_batches, sequence_length, hidden_dim)
        output = self.proj(values)
        return (output, attn) if return_weights else output
