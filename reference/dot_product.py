"""Oracle for questions 2, 3 and 5: scores, attention through F.scaled_dot_product_attention, nn.MultiheadAttention."""
import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .masking import causal_mask


def toy_weights(query: Tensor, keys: Tensor, scale: float = 1.0) -> Tensor:
    """softmax(scale * keys @ query): (d,), (T, d) -> (T,)."""
    return F.softmax(scale * torch.mv(keys, query), dim=-1)


def scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    """(..., Tq, d), (..., Tk, d) -> (..., Tq, Tk) divided by sqrt(d)."""
    return torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])


def attention_weights(q: Tensor, k: Tensor, causal: bool = True) -> Tensor:
    """Softmax of the scaled, optionally causally masked scores: (..., Tq, Tk)."""
    logits = scaled_scores(q, k)  # (..., Tq, Tk)
    if causal:
        logits = logits.masked_fill(~causal_mask(q.shape[-2]), float("-inf"))  # causal: Tq == Tk
    return F.softmax(logits, dim=-1)


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """(F.scaled_dot_product_attention output (..., Tq, dv), weights (..., Tq, Tk))."""
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return out, attention_weights(q, k, causal)


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """Causal attention of one head: x (T, D), W (D, d) -> (T, d)."""
    return F.scaled_dot_product_attention(F.linear(x, W_q.T), F.linear(x, W_k.T), F.linear(x, W_v.T), is_causal=True)


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H) through unflatten and permute."""
    return x.unflatten(-1, (n_heads, -1)).permute(0, 2, 1, 3)


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d) through permute and flatten."""
    return x.permute(0, 2, 1, 3).flatten(-2)


def multihead(state: dict[str, Tensor], x: Tensor, n_heads: int) -> tuple[Tensor, Tensor]:
    """nn.MultiheadAttention loaded with qkv/proj weights, causal: x (B, T, D) -> ((B, T, D), (B, H, T, T))."""
    d_model = x.shape[-1]
    module = nn.MultiheadAttention(d_model, n_heads, batch_first=True, dtype=x.dtype)
    with torch.no_grad():
        module.in_proj_weight.copy_(state["qkv.weight"])
        module.in_proj_bias.copy_(state["qkv.bias"])
        module.out_proj.weight.copy_(state["proj.weight"])
        module.out_proj.bias.copy_(state["proj.bias"])
        hidden = ~causal_mask(x.shape[1])  # (T, T), True where attention is not allowed
        out, weights = module(x, x, x, attn_mask=hidden, need_weights=True, average_attn_weights=False)
    return out, weights
