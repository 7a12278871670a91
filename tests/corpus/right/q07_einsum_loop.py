"""Correct variant: linear_scores with einsum, rows built in a loop with explicit if/else, closed form as v @ U @ H.T."""
import torch
from torch import Tensor

from .q06_additive import additive_scores


def linear_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . (W s + U h_j + b), the additive score without tanh: -> (T,)."""
    return torch.einsum("a,ta->t", v, torch.einsum("as,s->a", W, s) + torch.einsum("ah,th->ta", U, H) + b)


def weights_across_states(
    states: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor, use_tanh: bool = True
) -> Tensor:
    """Attention weights for each decoder state: states (S, d_s) -> (S, T), one row per state."""
    rows = []
    for i in range(states.shape[0]):
        if use_tanh:
            e = additive_scores(states[i], H, W, U, v, b)
        else:
            e = linear_scores(states[i], H, W, U, v, b)
        rows.append(torch.softmax(e, dim=0))
    return torch.stack(rows)  # (S, T)


def no_tanh_weights(H: Tensor, U: Tensor, v: Tensor) -> Tensor:
    """The weights every state gets without tanh: softmax over j of v . U h_j -> (T,)."""
    return torch.softmax(v @ U @ H.T, dim=0)  # (T, d_h) @ (d_h,) -> (T,)
