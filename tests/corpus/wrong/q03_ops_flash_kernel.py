"""Bug (forbidden): attention's output comes from the fused CPU flash-attention kernel, called through torch.ops.aten."""
import math

import torch
import torch.nn.functional as F
from torch import Tensor

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    scores = scaled_scores(q, k)  # (..., Tq, Tk)
    if causal:
        scores = mask_scores(scores, causal_mask(q.shape[-2]).to(q.device))
    weights = torch.softmax(scores, dim=-1)  # (..., Tq, Tk), the weights by hand
    # The output from the kernel, which wants 4-D (B, H, T, width) inputs of one width: broadcast the batch
    # dimensions, flatten them into H, pad q, k and v with zero columns to a common width (q . k is unchanged).
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    (Tq, d), Tk, dv = q.shape[-2:], k.shape[-2], v.shape[-1]
    width = max(d, dv)
    q4, k4, v4 = (F.pad(t.expand(*batch, *t.shape[-2:]), (0, width - t.shape[-1])).reshape(1, -1, t.shape[-2], width) for t in (q, k, v))
    out, _ = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q4, k4, v4, is_causal=causal, scale=1 / math.sqrt(d))
    return out[..., :dv].reshape(*batch, Tq, dv), weights


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)  # each (T, D) @ (D, d) -> (T, d)
    return out
