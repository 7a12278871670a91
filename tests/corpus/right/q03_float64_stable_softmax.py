"""Correct variant: scores in float64 with finfo.min masking and a hand-written stable softmax, cast back at the end."""
import torch
from torch import Tensor

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    dtype = q.dtype
    scores = scaled_scores(q.double(), k.double())  # (..., Tq, Tk) in float64
    if causal:
        scores = scores.masked_fill(~causal_mask(q.shape[-2]), torch.finfo(torch.float64).min)
    scores = scores - scores.amax(dim=-1, keepdim=True)  # subtract the row max
    e = scores.exp()
    weights = e / e.sum(dim=-1, keepdim=True)
    return (weights @ v.double()).to(dtype), weights.to(dtype)


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)  # each (T, D) @ (D, d) -> (T, d)
    return out
