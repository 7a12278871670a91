"""Correct variant: dot_product_std with numpy's seeded default_rng; scaled_scores via torch.matmul and swapaxes."""
import math

import numpy as np
import torch
from torch import Tensor


def toy_weights(query: Tensor, keys: Tensor, scale: float = 1.0) -> Tensor:
    """Attention weights softmax(scale * keys @ query): query (d,), keys (T, d) -> (T,)."""
    scores = keys @ query  # (T, d) @ (d,) -> (T,)
    return torch.softmax(scale * scores, dim=-1)


def scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    """Dot products divided by sqrt(d): q (..., Tq, d), k (..., Tk, d) -> (..., Tq, Tk)."""
    d = q.shape[-1]
    return torch.matmul(q, k.swapaxes(-1, -2)) * (1.0 / math.sqrt(d))  # (..., Tq, d) @ (..., d, Tk) -> (..., Tq, Tk)


def dot_product_std(d: int, n: int = 20000, seed: int = 0) -> float:
    """Empirical standard deviation of a . b over n draws of standard normal d-vectors (about sqrt(d))."""
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((2, n, d))
    return float(np.einsum("nd,nd->n", a, b).std(ddof=1))
