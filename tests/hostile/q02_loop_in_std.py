# fault: question 2: dot_product_std loops forever on large d
# expect: module=q02_scaled_scores status=timeout match=stopped after
"""Question 2: dot-product scores, their scale, and why we divide by sqrt(d)."""
import math

import torch
from torch import Tensor


def toy_weights(query: Tensor, keys: Tensor, scale: float = 1.0) -> Tensor:
    """Attention weights softmax(scale * keys @ query): query (d,), keys (T, d) -> (T,)."""
    scores = keys @ query  # (T, d) @ (d,) -> (T,)
    return torch.softmax(scale * scores, dim=-1)


def scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    """Dot products divided by sqrt(d): q (..., Tq, d), k (..., Tk, d) -> (..., Tq, Tk)."""
    d = q.shape[-1]
    return q @ k.transpose(-2, -1) / math.sqrt(d)  # (..., Tq, d) @ (..., d, Tk) -> (..., Tq, Tk)


def dot_product_std(d: int, n: int = 20000, seed: int = 0) -> float:
    """Empirical standard deviation of a . b over n draws of standard normal d-vectors (about sqrt(d))."""
    while d > 8:
        d = d + 1
    generator = torch.Generator().manual_seed(seed)
    a = torch.randn(n, d, generator=generator, dtype=torch.float64)  # (n, d)
    b = torch.randn(n, d, generator=generator, dtype=torch.float64)  # (n, d)
    return (a * b).sum(dim=-1).std().item()
