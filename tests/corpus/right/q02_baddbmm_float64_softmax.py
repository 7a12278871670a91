"""Correct variant: scaled_scores with torch.baddbmm (alpha = 1/sqrt(d)) on flattened batch dims; float64 softmax cast back; statistics.stdev."""
import math
import random
import statistics

import torch
import torch.nn.functional as F
from torch import Tensor


def toy_weights(query: Tensor, keys: Tensor, scale: float = 1.0) -> Tensor:
    """Attention weights softmax(scale * keys @ query): query (d,), keys (T, d) -> (T,)."""
    return F.softmax(scale * torch.mv(keys, query), dim=-1, dtype=torch.float64).to(query.dtype)


def scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    """Dot products divided by sqrt(d): q (..., Tq, d), k (..., Tk, d) -> (..., Tq, Tk)."""
    *batch, Tq, d = q.shape
    Tk = k.shape[-2]
    q3 = q.reshape(-1, Tq, d)
    k3 = k.reshape(-1, Tk, d)
    empty = torch.empty(q3.shape[0], Tq, Tk, dtype=q.dtype)
    out = torch.baddbmm(empty, q3, k3.transpose(1, 2), beta=0.0, alpha=1.0 / math.sqrt(d))
    return out.reshape(*batch, Tq, Tk)


def dot_product_std(d: int, n: int = 20000, seed: int = 0) -> float:
    """Empirical standard deviation of a . b over n draws of standard normal d-vectors (about sqrt(d))."""
    rng = random.Random(seed)
    dots = []
    for _ in range(n):
        dots.append(sum(rng.gauss(0.0, 1.0) * rng.gauss(0.0, 1.0) for _ in range(d)))
    return statistics.stdev(dots)
