"""Bug (public code): nanoGPT's loss line, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1), meets the copy task's -100 targets."""
# Source: karpathy/nanoGPT, model.py, GPT.forward: `loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
# ignore_index=-1)` (nanoGPT marks ignored targets with -1). The copy task marks position 0 with -100, which is then
# neither ignored nor a valid class: cross_entropy raises on the first batch.
# Adapted: the rest of the module is the ng-video-lecture-style model and loop, with nanoGPT's loss line pasted in.
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
    for iter in range(epochs * steps_per_epoch):
        xb, yb = copy_batch(batch_size, generator=g)
        logits = model(xb)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), yb.view(-1), ignore_index=-1)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return model, losses
