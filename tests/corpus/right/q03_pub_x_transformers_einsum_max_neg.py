"""Correct (public code): x-transformers style attention: einsum dots * scale, triu(j - i + 1) bool mask filled with -finfo.max, dots.softmax."""
# Source: lucidrains/x-transformers, x_transformers/x_transformers.py, Attention.forward and the `max_neg_value` helper
# (mask value -torch.finfo(dtype).max; causal mask ones((i, j)).triu(j - i + 1)).
# Adapted: the 'b h i d, b h j d -> b h i j' einsum written with an ellipsis so unbatched and batched inputs both work;
# no rearrange (einops is not allowed), the (out, attn) pair returned as the contract asks.
import torch
from torch import Tensor, einsum


def max_neg_value(tensor: Tensor) -> float:
    """The most negative finite value of tensor's dtype."""
    return -torch.finfo(tensor.dtype).max


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    scale = q.shape[-1] ** -0.5
    dots = einsum("... i d, ... j d -> ... i j", q, k) * scale
    mask_value = max_neg_value(dots)
    if causal:
        i, j = dots.shape[-2:]
        causal_mask = torch.ones((i, j), device=dots.device, dtype=torch.bool).triu(j - i + 1)
        dots = dots.masked_fill(causal_mask, mask_value)
    attn = dots.softmax(dim=-1)
    out = einsum("... i j, ... j d -> ... i d", attn, v)
    return out, attn


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    q, k, v = (einsum("t D, D d -> t d", x, W) for W in (W_q, W_k, W_v))
    out, _ = attention(q, k, v, causal=True)
    return out
