"""Bug: attention zeroes the future weights after the softmax, so the rows no longer sum to 1."""
# mistake: q03.mask_after_softmax
import torch
from torch import Tensor

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    scores = scaled_scores(q, k)  # (..., Tq, Tk)
    weights = torch.softmax(scores, dim=-1)  # (..., Tq, Tk)
    if causal:
        weights = weights.masked_fill(~causal_mask(q.shape[-2]).to(q.device), 0.0)  # hide the future
    return weights @ v, weights  # (..., Tq, Tk) @ (..., Tk, dv) -> (..., Tq, dv)


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)  # each (T, D) @ (D, d) -> (T, d)
    return out
