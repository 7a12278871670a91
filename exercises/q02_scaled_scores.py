"""Question 2: dot-product scores, their scale, and why we divide by sqrt(d)."""
import math

import torch
from torch import Tensor


def toy_weights(query: Tensor, keys: Tensor, scale: float = 1.0) -> Tensor:
    """Attention weights softmax(scale * keys @ query): query (d,), keys (T, d) -> (T,).

    A worked example: keys [[.1, .9], [0, 1], [.9, .1], [1, 0], [.8, .2]] and query [1, 0] give about
    [.12, .11, .26, .29, .23]; with scale=5, about [.01, .00, .30, .50, .18].
    """
    # TODO: score every key against the query, multiply by scale, normalise with softmax.
    raise NotImplementedError


def scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    """Dot products divided by sqrt(d): q (..., Tq, d), k (..., Tk, d) -> (..., Tq, Tk)."""
    # TODO: every query against every key, divided by the square root of the vector width.
    raise NotImplementedError


def dot_product_std(d: int, n: int = 20000, seed: int = 0) -> float:
    """Empirical standard deviation of a . b over n draws of standard normal d-vectors (about sqrt(d))."""
    # TODO: draw n pairs of d-vectors from a seeded generator and take the std of their dot products.
    raise NotImplementedError
