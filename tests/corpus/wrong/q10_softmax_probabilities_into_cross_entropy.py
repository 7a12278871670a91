"""Bug: the model returns softmax probabilities and the loop feeds them to CrossEntropyLoss, which applies the softmax again."""
# Source: the SciCo issue 2 pattern (a model ending in nn.Softmax trained with nn.CrossEntropyLoss), adapted to the copy task.
# says: the model's outputs are probabilities
# never says: are the gradients cleared
# keeps: copy_batch: targets are the inputs shifted by one
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
        logits = torch.softmax(self.head(out), dim=-1)  # (B, T, vocab) probabilities
        return (logits, weights) if return_weights else logits


def train_copy_task(
    epochs: int = 3, steps_per_epoch: int = 100, batch_size: int = 64, lr: float = 3e-3, seed: int = 0
) -> tuple[TinyAttentionLM, list[float]]:
    """Train TinyAttentionLM with Adam on fresh copy batches; return the model and every step's loss."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model = TinyAttentionLM()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss(ignore_index=-100)
    losses = []
    for _ in range(epochs * steps_per_epoch):
        x, y = copy_batch(batch_size, generator=generator)
        logits = model(x)  # (B, T, vocab)
        loss = criterion(logits.flatten(0, 1), y.flatten())  # (B*T, vocab) vs (B*T,)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return model, losses
