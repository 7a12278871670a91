"""Correct variant: dot_product_std returns np.std(..., ddof=1) as numpy's float64 (a float subclass), unwrapped; scores via swapaxes."""
import math

import numpy as np
import torch
from torch import Tensor


def toy_weights(query: Tensor, keys: Tensor, scale: float = 1.0) -> Tensor:
    """Attention weights softmax(scale * keys @ query): query (d,), keys (T, d) -> (T,)."""
    return torch.softmax(scale * (keys @ query), dim=0)


def scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    """Dot products divided by sqrt(d): q (..., Tq, d), k (..., Tk, d) -> (..., Tq, Tk)."""
    return (q @ k.swapaxes(-2, -1)) / math.sqrt(k.shape[-1])


def dot_product_std(d: int, n: int = 20000, seed: int = 0) -> float:
    """Empirical standard deviation of a . b over n draws of standard normal d-vectors (about sqrt(d))."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, d))
    b = rng.standard_normal((n, d))
    return np.std((a * b).sum(axis=1), ddof=1)
