"""Correct (public code): Hugging Face Whisper's attention scales the queries first (q * head_dim**-0.5), then q @ k.transpose(1, 2)."""
# Source: Hugging Face transformers, models/whisper/modeling_whisper.py, WhisperAttention: `self.scaling = self.head_dim**-0.5`
# and `query_states = self.q_proj(hidden_states) * self.scaling` before the batched product with the keys.
# Adapted: scaled_scores scales q by d**-0.5 and multiplies by k.transpose(-1, -2) (Whisper's (1, 2) on 3-D tensors);
# toy_weights and dot_product_std written in the same style.
import torch
from torch import Tensor


def toy_weights(query: Tensor, keys: Tensor, scale: float = 1.0) -> Tensor:
    """Attention weights softmax(scale * keys @ query): query (d,), keys (T, d) -> (T,)."""
    query_states = query * scale
    attn_weights = torch.matmul(keys, query_states)
    return torch.nn.functional.softmax(attn_weights, dim=-1)


def scaled_scores(q: Tensor, k: Tensor) -> Tensor:
    """Dot products divided by sqrt(d): q (..., Tq, d), k (..., Tk, d) -> (..., Tq, Tk)."""
    head_dim = q.size(-1)
    scaling = head_dim**-0.5
    query_states = q * scaling
    return torch.matmul(query_states, k.transpose(-1, -2))


def dot_product_std(d: int, n: int = 20000, seed: int = 0) -> float:
    """Empirical standard deviation of a . b over n draws of standard normal d-vectors (about sqrt(d))."""
    generator = torch.Generator().manual_seed(seed)
    a, b = torch.randn(2, n, d, generator=generator, dtype=torch.float64)
    return torch.std(torch.einsum("nd,nd->n", a, b)).item()
