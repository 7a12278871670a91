"""Bug (public code): copy_batch draws tokens as annotated-transformer's data_gen does, randint(1, vocab) with position 0 fixed to 1."""
# Source: harvardnlp/annotated-transformer, data_gen: `data = torch.randint(1, V, size=(batch_size, 10)); data[:, 0] = 1`.
# Adapted: the same draw in copy_batch, with the course's shift; token 0 never appears, and position 0 is always 1.
# says: draw tokens uniformly
# says: it was trained on other batches than these
# never says: return the model you trained
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .q05_multihead import MultiHeadSelfAttention


def copy_batch(
    batch_size: int, T: int = 12, vocab: int = 64, generator: torch.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """Uniform tokens x (B, T) int64 and targets y (B, T): y[:, t] = x[:, t - 1], y[:, 0] = -100."""
    x = torch.randint(1, vocab, (batch_size, T), generator=generator)  # (B, T) int64
    x[:, 0] = 1
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


def train_copy_task(
    epochs: int = 3, steps_per_epoch: int = 100, batch_size: int = 64, lr: float = 3e-3, seed: int = 0
) -> tuple[TinyAttentionLM, list[float]]:
    """Train TinyAttentionLM with Adam on fresh copy batches; return the model and every step's loss."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model = TinyAttentionLM()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs * steps_per_epoch):
        x, y = copy_batch(batch_size, generator=generator)
        logits = model(x)  # (B, T, vocab)
        loss = F.cross_entropy(logits.flatten(0, 1), y.flatten(), ignore_index=-100)  # (B*T, vocab) vs (B*T,)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return model, losses
