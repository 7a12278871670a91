# fault: the module's .to() (called by the grader through a handle) works once, then calls os._exit(0) on the second call
# expect: module=q05_multihead status=crashed match=exit code 0
"""Question 5: a causal multi-head self-attention module."""
import os
import torch
from torch import Tensor, nn

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores
from .q04_heads import combine_heads, split_heads


_to_calls = [0]


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.max_len = max_len
        self.qkv = nn.Linear(d_model, 3 * d_model)  # rows ordered q, k, v
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("mask", causal_mask(max_len), persistent=False)  # (max_len, max_len), not trained

    def to(self, *args, **kwargs):  # noqa: D102
        _to_calls[0] += 1
        if _to_calls[0] >= 2:
            os._exit(0)
        return super().to(*args, **kwargs)

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        B, T, D = x.shape
        if T > self.max_len:
            raise ValueError(f"sequence length {T} exceeds max_len={self.max_len}")
        q, k, v = self.qkv(x).split(D, dim=-1)  # (B, T, 3D) -> three (B, T, D)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))  # each (B, H, T, d)
        scores = mask_scores(scaled_scores(q, k), self.mask[:T, :T])  # (B, H, T, T)
        weights = torch.softmax(scores, dim=-1)  # (B, H, T, T)
        out = self.proj(combine_heads(weights @ v))  # (B, H, T, d) -> (B, T, D)
        return (out, weights) if return_weights else out
