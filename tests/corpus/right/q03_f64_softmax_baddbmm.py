"""Correct variant: F.softmax(..., dtype=torch.float64) cast back, scores by torch.baddbmm over an additive -inf bias."""
import math

import torch
import torch.nn.functional as F
from torch import Tensor


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    *batch, Tq, d = q.shape
    Tk, dv = k.shape[-2], v.shape[-1]
    q3, k3, v3 = q.reshape(-1, Tq, d), k.reshape(-1, Tk, d), v.reshape(-1, Tk, dv)
    bias = torch.zeros(Tq, Tk, dtype=q.dtype)
    if causal:
        bias = bias.masked_fill(torch.ones(Tq, Tk, dtype=torch.bool).tril().logical_not(), float("-inf"))
    bias = bias.expand(q3.shape[0], Tq, Tk)
    scores = torch.baddbmm(bias, q3, k3.transpose(1, 2), beta=1.0, alpha=1.0 / math.sqrt(d))
    weights = F.softmax(scores, dim=-1, dtype=torch.float64).to(q.dtype)
    out = torch.bmm(weights, v3)
    return out.reshape(*batch, Tq, dv), weights.reshape(*batch, Tq, Tk)


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    return attention(torch.mm(x, W_q), torch.mm(x, W_k), torch.mm(x, W_v))[0]
