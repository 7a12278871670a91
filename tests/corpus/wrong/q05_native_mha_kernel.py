"""Bug (forbidden): forward gets outputs and per-head weights from the native multi-head attention kernel in torch.ops."""
import torch
from torch import Tensor, nn

from .q01_causal_mask import causal_mask


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.max_len = max_len
        self.qkv = nn.Linear(d_model, 3 * d_model)  # rows ordered q, k, v: the kernel's in-projection layout
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("mask", causal_mask(max_len), persistent=False)  # (max_len, max_len), not trained

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        B, T, D = x.shape
        if T > self.max_len:
            raise ValueError(f"sequence length {T} exceeds max_len={self.max_len}")
        blocked = ~self.mask[:T, :T]  # the kernel's mask is True where a key may NOT be seen
        out, weights = torch.ops.aten._native_multi_head_attention(
            x, x, x, D, self.n_heads, self.qkv.weight, self.qkv.bias, self.proj.weight, self.proj.bias,
            blocked, True, False, 0)  # need_weights, per head (no averaging), mask_type 0: a (T, T) mask
        return (out, weights) if return_weights else out
