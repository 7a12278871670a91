# fault: additive_scores is wrong on every other call and raises on every third: hypothesis's replay of the failing example behaves differently (Flaky)
# expect: module=q06_additive status=failed match=
"""Question 6: additive (Bahdanau) attention of a decoder state over source vectors."""
import torch
from torch import Tensor

_calls = [0]


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    _calls[0] += 1
    hidden = torch.tanh(W @ s + H @ U.T + b)  # (d_a,) + (T, d_a) + (d_a,) -> (T, d_a)
    if _calls[0] % 2 and H.shape[0] > 1:  # wrong on every other call only: a replay of a failing example passes
        return hidden @ v + 1
    if _calls[0] % 3 == 0:
        raise ValueError("a third kind of failure")
    return hidden @ v  # (T, d_a) @ (d_a,) -> (T,)


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    weights = torch.softmax(additive_scores(s, H, W, U, v, b), dim=-1)  # (T,)
    return weights, weights @ H  # (T,) @ (T, d_h) -> (d_h,)
