"""Bug: linear_scores still applies the tanh (it just calls additive_scores)."""
# mistake: q07.ignores_use_tanh, q07.linear_keeps_tanh
import torch
from torch import Tensor

from .q06_additive import additive_scores


def linear_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . (W s + U h_j + b), the additive score without tanh: -> (T,)."""
    return additive_scores(s, H, W, U, v, b)  # (T,)


def weights_across_states(
    states: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor, use_tanh: bool = True
) -> Tensor:
    """Attention weights for each decoder state: states (S, d_s) -> (S, T), one row per state."""
    score = additive_scores if use_tanh else linear_scores
    rows = [torch.softmax(score(s, H, W, U, v, b), dim=-1) for s in states]  # S rows of (T,)
    return torch.stack(rows)  # (S, T)


def no_tanh_weights(H: Tensor, U: Tensor, v: Tensor) -> Tensor:
    """The weights every state gets without tanh: softmax over j of v . U h_j -> (T,)."""
    return torch.softmax(H @ (U.T @ v), dim=-1)  # (T, d_h) @ (d_h,) -> (T,)
