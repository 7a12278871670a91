"""Bug: additive_scores leaves the bias b out of the tanh (e_j = v . tanh(W s + U h_j))."""
# mistake: q06.no_bias
import torch
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    hidden = torch.tanh(W @ s + H @ U.T)  # (d_a,) + (T, d_a) + (d_a,) -> (T, d_a)
    return hidden @ v  # (T, d_a) @ (d_a,) -> (T,)


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    weights = torch.softmax(additive_scores(s, H, W, U, v, b), dim=-1)  # (T,)
    return weights, weights @ H  # (T,) @ (T, d_h) -> (d_h,)
