"""Correct variant: einsum scores and a hand-written stable softmax; context as a weighted sum."""
import torch
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    hidden = torch.tanh(torch.einsum("as,s->a", W, s) + torch.einsum("ah,th->ta", U, H) + b)  # (d_a,) + (T, d_a) + (d_a,) -> (T, d_a)
    return hidden @ v  # (T, d_a) @ (d_a,) -> (T,)


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    e = additive_scores(s, H, W, U, v, b)
    e = (e - e.max()).exp()
    weights = e / e.sum()  # (T,)
    return weights, (weights[:, None] * H).sum(dim=0)  # (d_h,)
