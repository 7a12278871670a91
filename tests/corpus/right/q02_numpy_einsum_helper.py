"""Correct variant: dot_product_std draws numpy data and a helper takes the dot products with np.einsum."""
import math

import numpy as np
import torch
from torch import Tensor


def toy_weights(query: Tensor, keys: Tensor, scale: float = 1.0) -> Tensor:
    """Attention weights softmax(scale * keys @ query): query (d,), keys (T, d) -> (T,)."""
    return torch.softmax(scale * (keys @ query), dim=-1)  # (T, d) @ (d,) -> (T,)


def scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    """Dot products divided by sqrt(d): q (..., Tq, d), k (..., Tk, d) -> (..., Tq, Tk)."""
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., Tq, d) @ (..., d, Tk) -> (..., Tq, Tk)


def _row_dots(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The dot product of each row of a with the same row of b: (n, d), (n, d) -> (n,)."""
    return np.einsum("nd,nd->n", a, b)


def dot_product_std(d: int, n: int = 20000, seed: int = 0) -> float:
    """Empirical standard deviation of a . b over n draws of standard normal d-vectors (about sqrt(d))."""
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((2, n, d))  # (n, d) each
    return float(_row_dots(a, b).std(ddof=1))
