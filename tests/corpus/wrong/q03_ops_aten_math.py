"""Bug (forbidden): attention returns aten's SDPA math kernel's (out, weights), reached by a name built at run time."""
import torch
from torch import Tensor


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    kernel = getattr(torch.ops.aten, "_scaled_dot_product_" + "attention_math")  # a name no source scan can see
    out, weights = kernel(q, k, v, is_causal=causal)  # (..., Tq, dv), (..., Tq, Tk): the library does all the work
    return out, weights


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)  # each (T, D) @ (D, d) -> (T, d)
    return out
