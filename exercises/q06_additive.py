"""Question 6: additive (Bahdanau) attention of a decoder state over source vectors."""
import torch
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    # TODO: project the state and every source vector into the d_a space, add, tanh, dot with v.
    raise NotImplementedError


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    # TODO: softmax the additive scores over the source positions, then average H with them.
    raise NotImplementedError
