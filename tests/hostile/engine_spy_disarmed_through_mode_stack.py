# fault: reaches the grader's ForbiddenWork through PyTorch's function-mode stack (no frame, no audit event; names built at run time, so the static scan sees none), empties its labels, and the forbidden kernel runs unseen
# expect: module=q03_attention status=flagged match=flagged for review: the code reaches into the grader
"""Question 3: scaled dot-product attention with a causal mask, and one attention head."""
import torch
import torch.nn.functional as F
from torch import Tensor

_kernel = getattr(F, "scaled_dot" + "_product_attention")


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    for mode in getattr(torch.overrides, "_get_current_" + "function_mode_stack")():
        if hasattr(getattr(mode, "watch", None), "_asked"):
            mode.watch._asked = frozenset()
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if causal:
        scores = scores.masked_fill(~torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(), float("-inf"))
    return _kernel(q, k, v, is_causal=causal), torch.softmax(scores, dim=-1)


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)
    return out
