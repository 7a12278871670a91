"""Correct (public code): PyTorch's own F.multi_head_attention_forward math path: packed in-projection unflattened to (3, E), (T, B*H, d) views, q scaled, baddbmm over the mask, bmm."""
# Source: pytorch/pytorch, torch/nn/functional.py, `_in_projection_packed` (`proj.unflatten(-1, (3, E)).unsqueeze(0)
# .transpose(0, -2).squeeze(-2).contiguous()`) and `multi_head_attention_forward` (need_weights branch: `q_scaled = q *
# math.sqrt(1.0 / float(E))`, `torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))`, softmax, bmm, `.view(tgt_len *
# bsz, embed_dim)`, out projection, weights `.view(bsz, num_heads, tgt_len, src_len)`).
# Adapted: batch-first input transposed to PyTorch's (T, B, E), a float causal mask buffer of 0 and -inf as attn_mask,
# the module's own qkv and proj layers as in_proj and out_proj, the contract's ValueErrors.
import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        head_dim = d_model // n_heads
        if head_dim * n_heads != d_model:
            raise ValueError(f"embed_dim {d_model} not divisible by num_heads {n_heads}")
        self.num_heads, self.head_dim, self.max_len = n_heads, head_dim, max_len
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        mask = torch.zeros(max_len, max_len).masked_fill(torch.ones(max_len, max_len, dtype=torch.bool).triu(1), float("-inf"))
        self.register_buffer("attn_mask", mask, persistent=False)

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        bsz, tgt_len, embed_dim = x.shape
        if tgt_len > self.max_len:
            raise ValueError(f"sequence length {tgt_len} is longer than max_len {self.max_len}")
        query = x.transpose(0, 1)  # (tgt_len, bsz, embed_dim)
        proj = F.linear(query, self.qkv.weight, self.qkv.bias)
        proj = proj.unflatten(-1, (3, embed_dim)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        q, k, v = proj[0], proj[1], proj[2]
        q = q.view(tgt_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        k = k.view(k.shape[0], bsz * self.num_heads, self.head_dim).transpose(0, 1)
        v = v.view(v.shape[0], bsz * self.num_heads, self.head_dim).transpose(0, 1)
        src_len = k.size(1)
        B, Nt, E = q.shape
        q_scaled = q * math.sqrt(1.0 / float(E))
        attn_mask = self.attn_mask[:tgt_len, :src_len].to(q.dtype)
        attn_output_weights = torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        attn_output_weights = F.softmax(attn_output_weights, dim=-1)
        attn_output = torch.bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        attn_output = F.linear(attn_output, self.proj.weight, self.proj.bias)
        attn_output = attn_output.view(tgt_len, bsz, embed_dim).transpose(0, 1)
        if return_weights:
            return attn_output, attn_output_weights.view(bsz, self.num_heads, tgt_len, src_len)
        return attn_output
