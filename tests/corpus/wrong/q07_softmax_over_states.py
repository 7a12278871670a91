"""Bug: weights_across_states normalises each column over the S states instead of each row over T."""
# mistake: q07.softmax_over_states
import torch
from torch import Tensor

from .q06_additive import additive_scores


def linear_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . (W s + U h_j + b), the additive score without tanh: -> (T,)."""
    return (W @ s + H @ U.T + b) @ v  # (T, d_a) @ (d_a,) -> (T,)


def weights_across_states(
    states: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor, use_tanh: bool = True
) -> Tensor:
    """Attention weights for each decoder state: states (S, d_s) -> (S, T), one row per state."""
    score = additive_scores if use_tanh else linear_scores
    scores = torch.stack([score(s, H, W, U, v, b) for s in states])  # (S, T)
    return torch.softmax(scores, dim=0)  # (S, T)


def no_tanh_weights(H: Tensor, U: Tensor, v: Tensor) -> Tensor:
    """The weights every state gets without tanh: softmax over j of v . U h_j -> (T,)."""
    return torch.softmax(H @ (U.T @ v), dim=-1)  # (T, d_h) @ (d_h,) -> (T,)
