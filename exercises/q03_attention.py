"""Question 3: scaled dot-product attention with a causal mask, and one attention head."""
import torch
from torch import Tensor

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq,
    Tk))."""
    # TODO: scaled scores, the causal mask when asked, softmax over the keys, then weight the values.
    raise NotImplementedError


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    # TODO: project x to queries, keys and values, then causal attention.
    raise NotImplementedError
