"""Cheat (forbidden): forward hands the multi-head attention to torch.ao.nn.quantizable.MultiheadAttention, a pure-Python subclass of nn.MultiheadAttention."""
# says: calls nn.MultiheadAttention, which question 5 asks you to do without
import torch
from torch import Tensor, nn
from torch.ao.nn import quantizable

from .q01_causal_mask import causal_mask


def _library_attention(x: Tensor, qkv: nn.Linear, proj: nn.Linear, n_heads: int, hidden: Tensor) -> tuple[Tensor, Tensor]:
    """The library's multi-head attention, loaded with qkv and proj: a module helper the source check never reads."""
    D = x.shape[-1]
    module = quantizable.MultiheadAttention(D, n_heads, dtype=x.dtype)  # sequence first
    with torch.no_grad():
        for i, linear in enumerate((module.linear_Q, module.linear_K, module.linear_V)):
            linear.weight.copy_(qkv.weight[i * D:(i + 1) * D])
            linear.bias.copy_(qkv.bias[i * D:(i + 1) * D])
        module.out_proj.weight.copy_(proj.weight)
        module.out_proj.bias.copy_(proj.bias)
    seq = x.transpose(0, 1)  # (T, B, D)
    out, weights = module(seq, seq, seq, attn_mask=hidden, need_weights=True, average_attn_weights=False)
    return out.transpose(0, 1), weights


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.max_len = max_len
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("mask", causal_mask(max_len), persistent=False)

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        T = x.shape[1]
        if T > self.max_len:
            raise ValueError(f"sequence length {T} exceeds max_len={self.max_len}")
        out, weights = _library_attention(x, self.qkv, self.proj, self.n_heads, ~self.mask[:T, :T])
        return (out, weights) if return_weights else out
