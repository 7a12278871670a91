"""Bug: additive_attention returns the raw scores e as the weights, without the softmax."""
# mistake: q06.returns_scores
import torch
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    hidden = torch.tanh(W @ s + H @ U.T + b)  # (d_a,) + (T, d_a) + (d_a,) -> (T, d_a)
    return hidden @ v  # (T, d_a) @ (d_a,) -> (T,)


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    weights = additive_scores(s, H, W, U, v, b)  # (T,)
    return weights, torch.softmax(weights, dim=-1) @ H  # (T,) @ (T, d_h) -> (d_h,)
