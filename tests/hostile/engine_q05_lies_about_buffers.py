# fault: no causal-mask buffer (the mask is rebuilt in every forward), but named_buffers is overridden to report one: the layout check reads named_buffers
# expect: module=q05_multihead status=failed match=register_buffer
"""Question 5: a causal multi-head self-attention module."""
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
        self.fake_mask_shape = (max_len, max_len)

    def named_buffers(self, *args, **kwargs):  # noqa: D102
        yield "mask", torch.ones(*self.fake_mask_shape, dtype=torch.bool).tril()

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        B, T, D = x.shape
        if T > self.max_len:
            raise ValueError(f"sequence length {T} exceeds max_len={self.max_len}")
        q, k, v = self.qkv(x).split(D, dim=-1)  # (B, T, 3D) -> three (B, T, D)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))  # each (B, H, T, d)
        scores = mask_scores(scaled_scores(q, k), causal_mask(T))  # (B, H, T, T)
        weights = torch.softmax(scores, dim=-1)  # (B, H, T, T)
        out = self.proj(combine_heads(weights @ v))  # (B, H, T, d) -> (B, T, D)
        return (out, weights) if return_weights else out
