"""Bug: Hugging Face GPT-2's upcast path: the softmax always runs in float32 and is cast back, so float64 inputs get float32 precision."""
# says: an error the size of float32's rounding
import torch
from torch import Tensor

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    scores = scaled_scores(q, k)  # (..., Tq, Tk)
    if causal:
        scores = mask_scores(scores, causal_mask(q.shape[-2]).to(q.device))
    weights = torch.softmax(scores.float(), dim=-1).type(v.dtype)  # (..., Tq, Tk), upcast to float32 as GPT-2 does
    return (weights.float() @ v.float()).type(v.dtype), weights  # (..., Tq, Tk) @ (..., Tk, dv) -> (..., Tq, dv)


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)  # each (T, D) @ (D, d) -> (T, d)
    return out
