"""Bug (public issue): attention applies its causal mask only inside `if att_mask is not None`, so with no mask passed it is never causal."""
# mistake: q03.single_head_not_causal
# Source: facebookresearch/xformers issue 103 "[bug] Causal mask is skipped if no att_mask is passed", in
# xformers/components/attention/scaled_dot_product.py (ScaledDotProduct.forward).
# Adapted: the optional att_mask argument is kept (with its default None, which the contract's callers never change),
# the causal mask is combined with it only when one is given, as in the reported code.
import math

import torch
from torch import Tensor


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True, att_mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    att = q @ k.transpose(-2, -1) / math.sqrt(k.size(-1))
    if att_mask is not None:
        if causal:
            seq = q.shape[-2]
            att_mask = att_mask & torch.tril(torch.ones(seq, seq, dtype=torch.bool, device=q.device))
        att = att.masked_fill(~att_mask, float("-inf"))
    att = torch.softmax(att, dim=-1)
    return att @ v, att


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    y, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)
    return y
