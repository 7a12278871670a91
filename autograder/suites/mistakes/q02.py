"""Known mistakes of question 2: the toy weights, the scaling of the scores, the spread of dot products."""
import math

import torch
from torch import Tensor

from autograder.engine.mistakes import Bank, Mistake
from autograder.i18n import N_
from reference import dot_product


def _scores(q: Tensor, k: Tensor, divide: float) -> Tensor:
    """q k^T over the last two axes, divided by divide: (..., Tq, Tk)."""
    return torch.matmul(q, k.transpose(-2, -1)) / divide


BANK = Bank(
    2,
    {
        "toy_weights": dot_product.toy_weights,
        "scaled_scores": dot_product.scaled_scores,
        "dot_product_std": lambda d, n=20000, seed=0: math.sqrt(d),
    },
    (
        Mistake(
            "toy_scale_after_softmax",
            N_("the weights are multiplied by scale after the softmax; scale the scores before it"),
            1,
            {"toy_weights": lambda query, keys, scale=1.0: torch.softmax(keys @ query, dim=-1) * scale},
        ),
        Mistake(
            "toy_divides_by_scale",
            N_("the scores are divided by scale; multiply them by it"),
            1,
            {"toy_weights": lambda query, keys, scale=1.0: torch.softmax(keys @ query / scale, dim=-1)},
        ),
        Mistake(
            "no_scaling",
            N_("the scores are the raw dot products, never divided by sqrt(d)"),
            2,
            {"scaled_scores": lambda q, k: _scores(q, k, 1.0)},
        ),
        Mistake(
            "scale_by_d",
            N_("the scores are divided by d instead of sqrt(d)"),
            2,
            {"scaled_scores": lambda q, k: _scores(q, k, q.shape[-1])},
        ),
        Mistake(
            "scale_by_Tk",
            N_("the scores are divided by the square root of the number of keys, not of the width d"),
            2,
            {"scaled_scores": lambda q, k: _scores(q, k, math.sqrt(k.shape[-2]))},
        ),
        Mistake(
            "k_dot_T",
            N_("k.T reverses every axis of a batched k; swap only the last two"),
            2,
            {"scaled_scores": lambda q, k: torch.matmul(q, k.T) / math.sqrt(q.shape[-1])},
        ),
        Mistake(
            "std_returns_variance",
            N_("the figure is the variance of the dot products (about d), not their standard deviation"),
            3,
            {"dot_product_std": lambda d, n=20000, seed=0: float(d)},
        ),
        Mistake(
            "std_elementwise",
            N_("the figure is the spread of single products a_i * b_i (about 1), not of whole dot products"),
            3,
            {"dot_product_std": lambda d, n=20000, seed=0: 1.0},
        ),
    ),
)
