"""Question 7: what happens to additive attention when the tanh is removed."""
import torch
from torch import Tensor

from .q06_additive import additive_scores


def linear_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . (W s + U h_j + b), the additive score without tanh: -> (T,)."""
    # TODO: the additive score with the tanh left out.
    raise NotImplementedError


def weights_across_states(
    states: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor, use_tanh: bool = True
) -> Tensor:
    """Attention weights for each decoder state: states (S, d_s) -> (S, T), one row per state."""
    # TODO: score each state with or without tanh, softmax each row, stack the rows.
    raise NotImplementedError


def no_tanh_weights(H: Tensor, U: Tensor, v: Tensor) -> Tensor:
    """The weights every state gets without tanh: softmax over j of v . U h_j -> (T,)."""
    # TODO: drop the terms that are the same for every position; softmax what is left.
    raise NotImplementedError
