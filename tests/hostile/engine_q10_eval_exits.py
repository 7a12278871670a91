# fault: train_copy_task returns at once a model whose eval(), which the grader calls through the handle, calls os._exit(3)
# expect: module=q10_train status=crashed match=exit code 3
"""Question 10: a tiny attention model trained to copy the previous token."""
import os

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .q05_multihead import MultiHeadSelfAttention


def copy_batch(
    batch_size: int, T: int = 12, vocab: int = 64, generator: torch.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """Uniform tokens x (B, T) int64 and targets y (B, T): y[:, t] = x[:, t - 1], y[:, 0] = -100."""
    x = torch.randint(vocab, (batch_size, T), generator=generator)  # (B, T) int64
    y = torch.full_like(x, -100)  # (B, T)
    y[:, 1:] = x[:, :-1]
    return x, y


class TinyAttentionLM(nn.Module):
    """Token and position embeddings, one causal multi-head attention, a linear head to the vocabulary."""

    def __init__(self, vocab: int = 64, d_model: int = 32, n_heads: int = 4, max_len: int = 12) -> None:
        """Embeddings `tok` and `pos`, attention `attn`, output layer `head`."""
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.attn = MultiHeadSelfAttention(d_model, n_heads, max_len)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """Tokens x (B, T) -> logits (B, T, vocab), plus attention weights (B, H, T, T) when asked."""
        positions = torch.arange(x.shape[1], device=x.device)  # (T,)
        h = self.tok(x) + self.pos(positions)  # (B, T, D) + (T, D) -> (B, T, D)
        out, weights = self.attn(h, return_weights=True)  # (B, T, D), (B, H, T, T)
        logits = self.head(out)  # (B, T, vocab)
        return (logits, weights) if return_weights else logits


class _Trained(TinyAttentionLM):
    """What train_copy_task hands back: eval() (the grader calls it through a handle) ends the process."""

    def eval(self):  # noqa: D102
        os._exit(3)


def train_copy_task(
    epochs: int = 3, steps_per_epoch: int = 100, batch_size: int = 64, lr: float = 3e-3, seed: int = 0
) -> tuple[TinyAttentionLM, list[float]]:
    """Untrained, at once: the losses are made up."""
    return _Trained(), [4.1] * (epochs * steps_per_epoch)
