"""Correct variant: Annotated-Transformer style scores (matmul / sqrt(d_k)), Tensor.softmax, std via var().sqrt() in float32."""
import math

import torch
from torch import Tensor


def toy_weights(query: Tensor, keys: Tensor, scale: float = 1.0) -> Tensor:
    """Attention weights softmax(scale * keys @ query): query (d,), keys (T, d) -> (T,)."""
    scores = torch.matmul(query, keys.transpose(-2, -1)) * scale
    return scores.softmax(dim=-1)


def scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    """Dot products divided by sqrt(d): q (..., Tq, d), k (..., Tk, d) -> (..., Tq, Tk)."""
    d_k = q.size(-1)
    return torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)


def dot_product_std(d: int, n: int = 20000, seed: int = 0) -> float:
    """Empirical standard deviation of a . b over n draws of standard normal d-vectors (about sqrt(d))."""
    g = torch.Generator().manual_seed(seed)
    a, b = torch.randn(2, n, d, generator=g)
    dots = torch.einsum("nd,nd->n", a, b)
    return float(dots.var().sqrt())
