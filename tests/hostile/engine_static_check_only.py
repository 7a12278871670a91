# fault: hand-written attention that passes at run time, but whose body names F.scaled_dot_product_attention in dead code: only the source check can see it
# expect: module=q03_attention status=failed match=asks you to do without
"""Question 3: scaled dot-product attention with a causal mask, and one attention head."""
import torch
import torch.nn.functional as F
from torch import Tensor

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    if q.shape[-1] < 0:  # never true: the forbidden call never runs, so only a reader of the source finds it
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal), None
    scores = scaled_scores(q, k)  # (..., Tq, Tk)
    if causal:
        scores = mask_scores(scores, causal_mask(q.shape[-2]).to(q.device))
    weights = torch.softmax(scores, dim=-1)  # (..., Tq, Tk)
    return weights @ v, weights


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)
    return out
