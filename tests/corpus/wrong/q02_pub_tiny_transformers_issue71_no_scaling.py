"""Bug (public issue): scaled_scores returns the raw attention logits q @ k^T, never divided by sqrt(d)."""
# mistake: q02.no_scaling
# Source: PAIR-code/tiny-transformers issue 71 "Fix scaling in attention computation": the raw attention was not divided
# by the square root of the dimension (suspected of loss peaks in tiny models).
# Adapted: the notebook's einsum logits become scaled_scores; the other two functions are written correctly.
import torch
from torch import Tensor


def toy_weights(query: Tensor, keys: Tensor, scale: float = 1.0) -> Tensor:
    """Attention weights softmax(scale * keys @ query): query (d,), keys (T, d) -> (T,)."""
    return torch.softmax(scale * torch.einsum("td,d->t", keys, query), dim=-1)


def scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    """Dot products divided by sqrt(d): q (..., Tq, d), k (..., Tk, d) -> (..., Tq, Tk)."""
    attn_logits = torch.einsum("...qd,...kd->...qk", q, k)
    return attn_logits


def dot_product_std(d: int, n: int = 20000, seed: int = 0) -> float:
    """Empirical standard deviation of a . b over n draws of standard normal d-vectors (about sqrt(d))."""
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(n, d, generator=g)
    b = torch.randn(n, d, generator=g)
    return float((a * b).sum(-1).std())
