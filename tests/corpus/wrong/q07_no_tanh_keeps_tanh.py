"""Bug: no_tanh_weights keeps a tanh around U h_j, so it is not the closed form of the linear score."""
# mistake: q07.no_tanh_keeps_tanh
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
    rows = [torch.softmax(score(s, H, W, U, v, b), dim=-1) for s in states]  # S rows of (T,)
    return torch.stack(rows)  # (S, T)


def no_tanh_weights(H: Tensor, U: Tensor, v: Tensor) -> Tensor:
    """The weights every state gets without tanh: softmax over j of v . U h_j -> (T,)."""
    return torch.softmax(torch.tanh(H @ U.T) @ v, dim=-1)  # (T, d_h) @ (d_h,) -> (T,)
