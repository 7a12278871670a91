"""Bug (public issue): zero_grad is called once at the start of each epoch instead of every step, so gradients pile up within an epoch."""
# says: the gradients pile up; clear them before each backward
# Source: pytorch/pytorch issue 47175 "Show warning if optimizer.zero_grad() was not called before optimizer.step()": "It is
# easy to introduce an extremely nasty bug in your code by forgetting to call zero_grad() or calling it at the beginning of
# each epoch instead of the beginning of each iteration" (the same bug fixed in wenet-e2e/wekws pull request 73).
# Adapted: the ng-video-lecture-style loop split into epochs, with optimizer.zero_grad moved up to the epoch loop.
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .q05_multihead import MultiHeadSelfAttention


def copy_batch(
    batch_size: int, T: int = 12, vocab: int = 64, generator: torch.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """Uniform tokens x (B, T) int64 and targets y (B, T): y[:, t] = x[:, t - 1], y[:, 0] = -100."""
    x = torch.randint(vocab, (batch_size, T), generator=generator)
    y = torch.stack([torch.cat([torch.tensor([-100]), row[:-1]]) for row in x])
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
        B, T = x.shape
        tok_emb = self.tok(x)  # (B,T,C)
        pos_emb = self.pos(torch.arange(T, device=x.device))  # (T,C)
        x = tok_emb + pos_emb  # (B,T,C)
        x, wei = self.attn(x, return_weights=True)  # (B,T,C)
        logits = self.head(x)  # (B,T,vocab_size)
        return (logits, wei) if return_weights else logits


def train_copy_task(
    epochs: int = 3, steps_per_epoch: int = 100, batch_size: int = 64, lr: float = 3e-3, seed: int = 0
) -> tuple[TinyAttentionLM, list[float]]:
    """Train TinyAttentionLM with Adam on fresh copy batches; return the model and every step's loss."""
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    model = TinyAttentionLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    losses = []
    for epoch in range(epochs):
        optimizer.zero_grad(set_to_none=True)  # once per epoch
        for it in range(steps_per_epoch):
            xb, yb = copy_batch(batch_size, generator=g)
            logits = model(xb)
            B, T, C = logits.shape
            logits = logits.view(B * T, C)
            targets = yb.view(B * T)
            loss = F.cross_entropy(logits, targets)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return model, losses
