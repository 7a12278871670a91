"""Correct variant: targets by F.pad(x[:, :-1], (1, 0), value=-100), nn.CrossEntropyLoss on logits.permute(0, 2, 1), position ids as a buffer."""
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .q05_multihead import MultiHeadSelfAttention


def copy_batch(
    batch_size: int, T: int = 12, vocab: int = 64, generator: torch.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """Uniform tokens x (B, T) int64 and targets y (B, T): y[:, t] = x[:, t - 1], y[:, 0] = -100."""
    x = torch.randint(high=vocab, size=(batch_size, T), generator=generator)
    y = F.pad(x[:, :-1], (1, 0), value=-100)
    return x, y


class TinyAttentionLM(nn.Module):
    """Token and position embeddings, one causal multi-head attention, a linear head to the vocabulary."""

    def __init__(self, vocab: int = 64, d_model: int = 32, n_heads: int = 4, max_len: int = 12) -> None:
        """Embeddings `tok` and `pos`, attention `attn`, output layer `head`."""
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.attn = MultiHeadSelfAttention(d_model, n_heads, max_len=max_len)
        self.head = nn.Linear(d_model, vocab)
        self.register_buffer("position_ids", torch.arange(max_len).unsqueeze(0), persistent=False)  # (1, max_len)

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """Tokens x (B, T) -> logits (B, T, vocab), plus attention weights (B, H, T, T) when asked."""
        hidden = self.tok(x) + self.pos(self.position_ids[:, : x.shape[1]])  # (B, T, D) + (1, T, D)
        out, weights = self.attn(hidden, return_weights=True)
        logits = self.head(out)
        return (logits, weights) if return_weights else logits


def train_copy_task(
    epochs: int = 3, steps_per_epoch: int = 100, batch_size: int = 64, lr: float = 3e-3, seed: int = 0
) -> tuple[TinyAttentionLM, list[float]]:
    """Train TinyAttentionLM with Adam on fresh copy batches; return the model and every step's loss."""
    torch.manual_seed(seed)
    rng = torch.Generator()
    rng.manual_seed(seed)
    model = TinyAttentionLM()
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(params=model.parameters(), lr=lr)
    history: list[float] = []
    step = 0
    while step < epochs * steps_per_epoch:
        inputs, targets = copy_batch(batch_size, generator=rng)
        opt.zero_grad()
        logits = model(inputs)  # (B, T, V)
        loss = criterion(logits.permute(0, 2, 1), targets)  # (B, V, T) vs (B, T)
        loss.backward()
        opt.step()
        history.append(float(loss.detach()))
        step += 1
    return model, history
