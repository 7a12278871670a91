"""Correct variant: scores through torch.mv, context as H.T @ weights."""
import torch
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    hidden = torch.tanh(torch.mv(W, s)[None, :] + torch.mm(H, U.t()) + b[None, :])  # (T, d_a)
    return torch.mv(hidden, v)  # (T,)


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    weights = torch.softmax(additive_scores(s, H, W, U, v, b), dim=-1)  # (T,)
    return weights, H.T @ weights  # (T,) @ (T, d_h) -> (d_h,)
