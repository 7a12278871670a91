"""Known mistakes of question 6: additive scores and additive attention."""
from typing import Callable

import torch
from torch import Tensor

from autograder.engine.mistakes import Bank, Mistake
from autograder.i18n import N_
from reference import additive

Scores = Callable[[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor], Tensor]


def _both(scores: Scores) -> dict[str, Callable[..., object]]:
    """A wrong additive_scores, and additive_attention built on it."""
    def attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        weights = torch.softmax(scores(s, H, W, U, v, b), dim=-1)  # (T,)
        return weights, torch.matmul(weights, H)

    return {"additive_scores": scores, "additive_attention": attention}


def _reading(context: Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]) -> dict[str, Callable[..., object]]:
    """additive_attention with the right weights (T,) and a wrong context(weights, H, W, U)."""
    def attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        weights = additive.additive_attention(s, H, W, U, v, b)[0]
        return weights, context(weights, H, W, U)

    return {"additive_attention": attention}


def _normalised(normalise: Callable[[Tensor], Tensor]) -> dict[str, Callable[..., object]]:
    """additive_attention whose weights are normalise(scores) (T,), and its context weights @ H."""
    def attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        weights = normalise(additive.additive_scores(s, H, W, U, v, b))
        return weights, torch.matmul(weights, H)

    return {"additive_attention": attention}


def _raw_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """The scores as the weights, and the right context."""
    return additive.additive_scores(s, H, W, U, v, b), additive.additive_attention(s, H, W, U, v, b)[1]


BANK = Bank(
    6,
    {"additive_scores": additive.additive_scores, "additive_attention": additive.additive_attention},
    (
        Mistake(
            "bias_outside_tanh",
            N_("the bias b is added after the tanh; it belongs inside, with W s and U h_j"),
            2,
            _both(lambda s, H, W, U, v, b: (torch.tanh(W @ s + H @ U.T) + b) @ v),
        ),
        Mistake(
            "no_bias",
            N_("the bias b is missing: it goes inside the tanh, with W s and U h_j"),
            2,
            _both(lambda s, H, W, U, v, b: torch.tanh(W @ s + H @ U.T) @ v),
        ),
        Mistake("no_tanh", N_("the tanh is missing from the score"), 2, _both(additive.linear_scores)),
        Mistake(
            "v_inside_tanh",
            N_("v is applied inside the tanh; take the tanh first, then the dot product with v"),
            2,
            _both(lambda s, H, W, U, v, b: torch.tanh((W @ s + H @ U.T + b) @ v)),
        ),
        Mistake(
            "context_mean",
            N_("the context is a mean of the weighted rows, divided by T; the weights already sum to 1"),
            3,
            _reading(lambda weights, H, W, U: (weights[:, None] * H).mean(dim=0)),
        ),
        Mistake(
            "context_projected",
            N_("the context sums the projected rows U h_j; it is the weighted sum of the rows h_j of H"),
            3,
            _reading(lambda weights, H, W, U: weights @ (H @ U.T)),
        ),
        Mistake(
            "context_uses_W",
            N_("the context weights the rows of W; it is the weighted sum of the rows of H"),
            3,
            _reading(lambda weights, H, W, U: weights @ W),
        ),
        Mistake(
            "log_softmax",
            N_("log_softmax gives log-probabilities; the weights are the softmax itself"),
            3,
            _normalised(lambda e: torch.log_softmax(e, dim=-1)),
        ),
        Mistake(
            "softmax_size1_axis",
            N_("the softmax runs over an axis of size 1, so every weight is 1; it runs over the T positions"),
            3,
            _normalised(lambda e: torch.softmax(e[:, None], dim=-1)[:, 0]),
        ),
        Mistake(
            "returns_scores",
            N_("the weights returned are the raw scores, before the softmax"),
            3,
            {"additive_attention": _raw_scores},
        ),
    ),
)
