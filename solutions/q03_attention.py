"""Question 3: scaled dot-product attention with a causal mask, and one attention head."""
import torch
from torch import Tensor

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq,
    Tk))."""
    ### BEGIN SOLUTION: scaled scores, the causal mask when asked, softmax over the keys, then weight the values.
    scores = scaled_scores(q, k)  # (..., Tq, Tk)
    if causal:
        scores = mask_scores(scores, causal_mask(q.shape[-2]).to(q.device))
    weights = torch.softmax(scores, dim=-1)  # (..., Tq, Tk), each row sums to 1
    return weights @ v, weights  # (..., Tq, Tk) @ (..., Tk, dv) -> (..., Tq, dv)
    ### END SOLUTION


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    ### BEGIN SOLUTION: project x to queries, keys and values, then causal attention.
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)  # each (T, D) @ (D, d) -> (T, d)
    return out
    ### END SOLUTION
