"""Bug (public issue): vit-pytorch's Attention had self.scale = dim ** -0.5, the model width, instead of dim_head ** -0.5."""
# mistake: q05.scale_sqrt_dmodel
# Source: lucidrains/vit-pytorch, vit_pytorch/vit.py, class Attention, before the fix of issue 65 "doubt about scale in
# Attantion" (the same report: FrancescoSaverioZuppichini/ViT issue 1, omihub777/ViT-CIFAR pull request 12).
# Adapted: to_qkv renamed qkv with a bias (the contract's), einops' rearrange 'b n (h d) -> b h n d' written with
# view/transpose, a causal mask buffer and the contract's ValueErrors added.
import torch
from torch import Tensor, einsum, nn


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("dim must be divisible by heads")
        dim = d_model
        self.heads = n_heads
        self.scale = dim**-0.5
        self.max_len = max_len
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("mask", torch.ones(max_len, max_len).triu(1).bool())

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        b, n, _ = x.shape
        h = self.heads
        if n > self.max_len:
            raise ValueError("sequence is longer than max_len")
        qkv = self.qkv(x).chunk(3, dim=-1)
        q, k, v = map(lambda t: t.view(b, n, h, -1).transpose(1, 2), qkv)
        dots = einsum("b h i d, b h j d -> b h i j", q, k) * self.scale
        dots = dots.masked_fill(self.mask[:n, :n], float("-inf"))
        attn = dots.softmax(dim=-1)
        out = einsum("b h i j, b h j d -> b h i d", attn, v)
        out = out.transpose(1, 2).reshape(b, n, -1)
        out = self.proj(out)
        return (out, attn) if return_weights else out
