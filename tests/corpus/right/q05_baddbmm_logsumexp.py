"""Correct variant: additive float mask buffer fed to torch.baddbmm, log-sum-exp softmax, output projection written as F.linear."""
import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError("d_model % n_heads != 0")
        self.h, self.d = n_heads, d_model // n_heads
        self.max_len = max_len
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        future = torch.triu(torch.ones(max_len, max_len, dtype=torch.bool), diagonal=1)
        self.register_buffer("attn_bias", torch.zeros(max_len, max_len).masked_fill(future, float("-inf")))

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        B, T, D = x.shape
        if T > self.max_len:
            raise ValueError("input too long")
        qkv = F.linear(x, self.qkv.weight, self.qkv.bias).view(B, T, 3, self.h, self.d)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).reshape(3, B * self.h, T, self.d)
        bias = self.attn_bias[:T, :T].to(x.dtype).expand(B * self.h, T, T)
        scores = torch.baddbmm(bias, q, k.transpose(-1, -2), alpha=1 / math.sqrt(self.d))
        weights = (scores - scores.logsumexp(dim=-1, keepdim=True)).exp()
        y = torch.bmm(weights, v).view(B, self.h, T, self.d).permute(0, 2, 1, 3).reshape(B, T, D)
        out = F.linear(y, self.proj.weight, self.proj.bias)
        if return_weights:
            return out, weights.view(B, self.h, T, T)
        return out
