"""Bug: attention hides the diagonal too (tril(diagonal=-1) as the visible keys), so a query never sees its own key."""
# mistake: q03.mask_strict_lower
import torch
from torch import Tensor

from .q02_scaled_scores import scaled_scores


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    scores = scaled_scores(q, k)  # (..., Tq, Tk)
    if causal:
        T = q.shape[-2]
        visible = torch.ones(T, T, dtype=torch.bool, device=q.device).tril(diagonal=-1)  # (T, T)
        scores = scores.masked_fill(~visible, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # (..., Tq, Tk), each row sums to 1
    return weights @ v, weights  # (..., Tq, Tk) @ (..., Tk, dv) -> (..., Tq, dv)


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)  # each (T, D) @ (D, d) -> (T, d)
    return out
