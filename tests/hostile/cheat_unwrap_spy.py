# fault: calls the forbidden F.scaled_dot_product_attention through the spy's __wrapped__, its name split so no static check sees it
# expect: module=q03_attention status=failed match=asks you to do without
"""Question 3: scaled dot-product attention with a causal mask, and one attention head."""
import torch
import torch.nn.functional as F
from torch import Tensor

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores

_fused = getattr(F, "scaled_dot_" + "product_attention")  # no forbidden name for a reader of the source to find
_fused = getattr(_fused, "__wrapped__", _fused)  # the grader's spy, if it is one, would hand over the original


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    scores = scaled_scores(q, k)  # (..., Tq, Tk)
    if causal:
        scores = mask_scores(scores, causal_mask(q.shape[-2]).to(q.device))
    weights = torch.softmax(scores, dim=-1)  # (..., Tq, Tk), each row sums to 1
    return _fused(q, k, v, is_causal=causal), weights  # the forbidden fused kernel, reached without its name


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)  # each (T, D) @ (D, d) -> (T, d)
    return out
