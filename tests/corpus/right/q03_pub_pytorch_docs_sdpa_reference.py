"""Correct (public code): the reference implementation printed in PyTorch's scaled_dot_product_attention docs: a zero attn_bias filled with -inf by masked_fill_, scale_factor, +=, softmax."""
# Source: pytorch/pytorch, torch/nn/functional.py, the docstring of scaled_dot_product_attention ("equivalent to" a Python
# function with L, S, scale_factor, attn_bias, temp_mask = ones(L, S, dtype=bool).tril(diagonal=0), attn_bias.masked_fill_(
# temp_mask.logical_not(), float("-inf")), and the no-op `attn_bias.to(query.dtype)` it carries).
# Adapted: no dropout, attn_mask, enable_gqa or scale arguments; the weights returned next to the output.
import math

import torch
from torch import Tensor


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    query, key, value = q, k, v
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1))
    attn_bias = torch.zeros(L, S, dtype=query.dtype, device=query.device)
    if causal:
        temp_mask = torch.ones(L, S, dtype=torch.bool, device=query.device).tril(diagonal=0)
        attn_bias.masked_fill_(temp_mask.logical_not(), float("-inf"))
        attn_bias.to(query.dtype)
    attn_weight = query @ key.transpose(-2, -1) * scale_factor
    attn_weight += attn_bias
    attn_weight = torch.softmax(attn_weight, dim=-1)
    return attn_weight @ value, attn_weight


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)
    return out
