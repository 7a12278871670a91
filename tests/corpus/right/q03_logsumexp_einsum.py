"""Correct variant: weights as exp(scores - logsumexp(scores)), einsum everywhere, mask from a bool arange comparison."""
import torch
from torch import Tensor


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    scores = torch.einsum("...qd,...kd->...qk", q, k) * q.shape[-1] ** -0.5
    if causal:
        idx = torch.arange(q.shape[-2])
        future = idx[None, :] > idx[:, None]  # (T, T), True above the diagonal
        scores = scores.masked_fill(future, float("-inf"))
    weights = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))
    out = torch.einsum("...qk,...kv->...qv", weights, v)
    return out, weights


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    q = torch.einsum("tD,Dd->td", x, W_q)
    k = torch.einsum("tD,Dd->td", x, W_k)
    v = torch.einsum("tD,Dd->td", x, W_v)
    return attention(q, k, v)[0]
