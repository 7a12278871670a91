"""Correct variant: the causal mask enters as scores + log(mask) (log 1 = 0, log 0 = -inf); softmax via torch.special.softmax."""
import math

import torch
from torch import Tensor


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    scores = q.matmul(k.mT).div(math.sqrt(q.size(-1)))
    if causal:
        T = q.size(-2)
        keep = torch.ones(T, T, dtype=q.dtype).tril()
        scores = scores + keep.log()
    weights = torch.special.softmax(scores, dim=-1)
    return weights.matmul(v), weights


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    W = torch.cat([W_q, W_k, W_v], dim=1)  # (D, 3d)
    q, k, v = (x @ W).chunk(3, dim=-1)
    return attention(q, k, v, causal=True)[0]
