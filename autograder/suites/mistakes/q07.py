"""Known mistakes of question 7: linear scores, weights across decoder states, the closed form without tanh."""
from typing import Callable

import torch
from torch import Tensor

from autograder.engine.mistakes import Bank, Mistake
from autograder.i18n import N_
from reference import additive


def _across(
    normalise: Callable[[Tensor], Tensor], first_only: bool = False, always_tanh: bool = False
) -> Callable[..., Tensor]:
    """weights_across_states with its scores (S, T) normalised by normalise, or with one step changed: (S, T)."""

    def weights(states: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor, use_tanh: bool = True) -> Tensor:
        rows = states[:1].expand_as(states) if first_only else states
        pre = (rows @ W.T)[:, None, :] + (H @ U.T)[None, :, :] + b  # (S, T, d_a)
        return normalise((torch.tanh(pre) if use_tanh or always_tanh else pre) @ v)

    return weights


def _over_all(scores: Tensor) -> Tensor:
    """One softmax over all S * T scores: (S, T)."""
    return torch.softmax(scores.flatten(), dim=0).reshape(scores.shape)


def _rows(scores: Tensor) -> Tensor:
    """A softmax over T in each row: (S, T)."""
    return torch.softmax(scores, dim=-1)


BANK = Bank(
    7,
    {
        "linear_scores": additive.linear_scores,
        "weights_across_states": additive.weights_across_states,
        "no_tanh_weights": additive.no_tanh_weights,
    },
    (
        Mistake(
            "linear_drops_b",
            N_("the bias b is left out of the linear score; it cancels in the weights, not in the scores"),
            1,
            {"linear_scores": lambda s, H, W, U, v, b: (W @ s + H @ U.T) @ v},
        ),
        Mistake(
            "linear_keeps_tanh",
            N_("the linear score still applies the tanh"),
            1,
            {"linear_scores": additive.additive_scores},
        ),
        Mistake(
            "first_state_only",
            N_("every row is scored with the first decoder state; row i uses state i"),
            1,
            {"weights_across_states": _across(_rows, first_only=True)},
        ),
        Mistake(
            "ignores_use_tanh",
            N_("the weights go through a tanh even when use_tanh is False (is it left in the linear score?)"),
            1,
            {"weights_across_states": _across(_rows, always_tanh=True)},
        ),
        Mistake(
            "softmax_over_states",
            N_(
                "the columns sum to 1, not the rows: the softmax runs over the S states instead of the "
                "T source positions"
            ),
            2,
            {"weights_across_states": _across(lambda scores: torch.softmax(scores, dim=0))},
        ),
        Mistake(
            "softmax_flattened",
            N_("one softmax normalises all S * T scores together; each row gets its own softmax over T"),
            2,
            {"weights_across_states": _across(_over_all)},
        ),
        Mistake(
            "no_tanh_keeps_tanh",
            N_("a tanh is kept around U h_j; the closed form is the softmax of v . U h_j"),
            3,
            {"no_tanh_weights": lambda H, U, v: torch.softmax(torch.tanh(H @ U.T) @ v, dim=-1)},
        ),
        Mistake(
            "no_tanh_no_softmax",
            N_("the scores v . U h_j are returned without the softmax"),
            3,
            {"no_tanh_weights": lambda H, U, v: (H @ U.T) @ v},
        ),
        Mistake(
            "no_tanh_without_v",
            N_("the coordinates of U h_j are summed instead of dotted with v"),
            3,
            {"no_tanh_weights": lambda H, U, v: torch.softmax((H @ U.T).sum(dim=-1), dim=-1)},
        ),
    ),
)
