"""Correct variant: additive_scores with an explicit loop over the source positions."""
import torch
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    state_part = W @ s + b  # (d_a,), the same for every position
    scores = [torch.dot(v, torch.tanh(state_part + U @ h)) for h in H]  # T scalars
    return torch.stack(scores) if scores else H.new_zeros(0)


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    weights = torch.softmax(additive_scores(s, H, W, U, v, b), dim=-1)  # (T,)
    return weights, weights @ H  # (T,) @ (T, d_h) -> (d_h,)
