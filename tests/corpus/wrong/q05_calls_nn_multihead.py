"""Bug (forbidden): forward copies qkv and proj into an nn.MultiheadAttention and lets it do the work."""
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
        self.qkv = nn.Linear(d_model, 3 * d_model)  # rows ordered q, k, v
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("mask", causal_mask(max_len), persistent=False)  # (max_len, max_len), not trained

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        B, T, D = x.shape
        if T > self.max_len:
            raise ValueError(f"sequence length {T} exceeds max_len={self.max_len}")
        mha = nn.MultiheadAttention(D, self.n_heads, batch_first=True, dtype=x.dtype, device=x.device)
        with torch.no_grad():  # same weights as ours, so the result is "the same"
            mha.in_proj_weight.copy_(self.qkv.weight)
            mha.in_proj_bias.copy_(self.qkv.bias)
            mha.out_proj.weight.copy_(self.proj.weight)
            mha.out_proj.bias.copy_(self.proj.bias)
        # nn.MultiheadAttention wants True where attention is NOT allowed: the opposite of our mask
        out, weights = mha(x, x, x, attn_mask=~self.mask[:T, :T], need_weights=True, average_attn_weights=False)
        return (out, weights) if return_weights else out
