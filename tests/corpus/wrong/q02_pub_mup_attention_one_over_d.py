"""Wrong for this lesson (public code): muP's attention scaling, 1/d instead of 1/sqrt(d) ("attn_mult / d"), copied into scaled_scores."""
# mistake: q02.scale_by_d
# Source: microsoft/mup, README ("use 1/d instead of 1/sqrt(d) attention scaling") and its examples' Transformer attention
# (`attn_mult / d` in place of `1 / math.sqrt(d)`); the same choice discussed in charliezchen/scaling-matrix-preconditioning
# issue 2. Right under muP's width scaling, wrong for the lesson's scaled dot product.
# Adapted: attn_mult left at 1.0; toy_weights and dot_product_std written correctly.
import torch
from torch import Tensor


def toy_weights(query: Tensor, keys: Tensor, scale: float = 1.0) -> Tensor:
    """Attention weights softmax(scale * keys @ query): query (d,), keys (T, d) -> (T,)."""
    return (keys @ query * scale).softmax(dim=-1)


def scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    """Dot products divided by sqrt(d): q (..., Tq, d), k (..., Tk, d) -> (..., Tq, Tk)."""
    attn_mult = 1.0
    d = q.size(-1)
    return attn_mult * torch.matmul(q, k.transpose(-1, -2)) / d


def dot_product_std(d: int, n: int = 20000, seed: int = 0) -> float:
    """Empirical standard deviation of a . b over n draws of standard normal d-vectors (about sqrt(d))."""
    g = torch.Generator().manual_seed(seed)
    a, b = torch.randn(n, d, generator=g, dtype=torch.float64), torch.randn(n, d, generator=g, dtype=torch.float64)
    return torch.sum(a * b, dim=1).std().item()
