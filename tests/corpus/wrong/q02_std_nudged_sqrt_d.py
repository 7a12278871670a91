"""Bug: dot_product_std returns sqrt(d) with a small nudge that depends on seed and n, instead of drawing dot products."""
import math
import random

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
    """sqrt(d), nudged by a fraction of a percent that depends on seed and n: no dot product is ever drawn."""
    return math.sqrt(d) * (1 + 0.002 * random.Random(seed * 100003 + n).random())