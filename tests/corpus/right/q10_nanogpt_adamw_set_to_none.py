"""Correct variant: nanoGPT-style loop: AdamW, zero_grad(set_to_none=True), cross_entropy(logits.view(-1, V), y.view(-1), ignore_index=-100); y built with torch.cat."""
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .q05_multihead import MultiHeadSelfAttention


def copy_batch(
    batch_size: int, T: int = 12, vocab: int = 64, generator: torch.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """Uniform tokens x (B, T) int64 and targets y (B, T): y[:, t] = x[:, t - 1], y[:, 0] = -100."""
    x = torch.randint(0, vocab, (batch_size, T), generator=generator, dtype=torch.long)
    ignore = torch.full((batch_size, 1), -100, dtype=torch.long)
    y = torch.cat([ignore, x[:, :-1]], dim=1)
    return x, y


class TinyAttentionLM(nn.Module):
    """Token and position embeddings, one causal multi-head attention, a linear head to the vocabulary."""

    def __init__(self, vocab: int = 64, d_model: int = 32, n_heads: int = 4, max_len: int = 12) -> None:
        """Embeddings `tok` and `pos`, attention `attn`, output layer `head`."""
        super().__init__()
        self.block_size = max_len
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.attn = MultiHeadSelfAttention(d_model, n_heads, max_len)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """Tokens x (B, T) -> logits (B, T, vocab), plus attention weights (B, H, T, T) when asked."""
        device = x.device
        b, t = x.size()
        assert t <= self.block_size, f"Cannot forward sequence of length {t}, block size is only {self.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=device)  # shape (t)
        tok_emb = self.tok(x)  # (b, t, n_embd)
        pos_emb = self.pos(pos)  # (t, n_embd)
        y, att = self.attn(tok_emb + pos_emb, return_weights=True)
        logits = self.head(y)
        if return_weights:
            return logits, att
        return logits


def train_copy_task(
    epochs: int = 3, steps_per_epoch: int = 100, batch_size: int = 64, lr: float = 3e-3, seed: int = 0
) -> tuple[TinyAttentionLM, list[float]]:
    """Train TinyAttentionLM with Adam on fresh copy batches; return the model and every step's loss."""
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    model = TinyAttentionLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.99), weight_decay=0.0)
    model.train()
    lossi = []
    for epoch in range(epochs):
        for it in range(steps_per_epoch):
            xb, yb = copy_batch(batch_size, generator=g)
            logits = model(xb)
            V = logits.size(-1)
            loss = F.cross_entropy(logits.view(-1, V), yb.view(-1), ignore_index=-100)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            lossi.append(loss.item())
    return model, lossi
