"""Bug: qkv output is reshaped to (B, T, H, 3d) and chunked per head, not split into q, k, v first."""
# mistake: q05.split_after_heads
import torch
from torch import Tensor, nn

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores
from .q04_heads import combine_heads, split_heads


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

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        B, T, D = x.shape
        if T > self.max_len:
            raise ValueError(f"sequence length {T} exceeds max_len={self.max_len}")
        qkv = self.qkv(x).reshape(B, T, self.n_heads, 3 * (D // self.n_heads)).transpose(1, 2)  # (B, H, T, 3d)
        q, k, v = qkv.chunk(3, dim=-1)  # each (B, H, T, d)
        scores = mask_scores(scaled_scores(q, k), self.mask[:T, :T])  # (B, H, T, T)
        weights = torch.softmax(scores, dim=-1)  # (B, H, T, T)
        out = self.proj(combine_heads(weights @ v))  # (B, H, T, d) -> (B, T, D)
        return (out, weights) if return_weights else out
