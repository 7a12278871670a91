"""Bug: Annotated-Transformer subsequent_mask keeps its leading (1, T, T) axis, so unbatched (T, d) inputs come back with an extra batch axis."""
# mistake: q03.mask_extra_axis
import math

import torch
from torch import Tensor


def subsequent_mask(size: int) -> Tensor:
    """Mask out subsequent positions: (1, size, size), True where a key may be seen."""
    attn_shape = (1, size, size)
    mask = torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8)
    return mask == 0


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    d_k = q.size(-1)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    if causal:
        mask = subsequent_mask(q.size(-2))
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    return torch.matmul(p_attn, v), p_attn


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    query, key, value = [x @ w for w in (W_q, W_k, W_v)]
    out, _ = attention(query, key, value, causal=True)
    return out
