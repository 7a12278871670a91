"""Bug (public code): fairseq's MultiheadAttention takes utils.softmax(attn_weights, dim=-1), which computes in float32, then type_as: float64 inputs lose their precision."""
# Source: facebookresearch/fairseq, fairseq/modules/multihead_attention.py (`attn_weights_float = utils.softmax(attn_weights,
# dim=-1, onnx_trace=self.onnx_trace)`, `attn_weights = attn_weights_float.type_as(attn_weights)`) and fairseq/utils.py
# (`softmax` returns `F.softmax(x, dim=dim, dtype=torch.float32)`); q is scaled first (`q *= self.scaling`).
# Adapted: batch-first input, the fused qkv split in q, k, v order, the (B * H, T, d) bmm layout kept, a causal mask
# buffer of -inf added as fairseq's attn_mask, and the contract's ValueErrors.
import torch
import torch.nn.functional as F
from torch import Tensor, nn


def softmax(x: Tensor, dim: int) -> Tensor:
    """fairseq.utils.softmax without the onnx branch."""
    return F.softmax(x, dim=dim, dtype=torch.float32)


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        self.embed_dim = d_model
        self.num_heads = n_heads
        self.head_dim = d_model // n_heads
        if self.head_dim * n_heads != d_model:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.scaling = self.head_dim**-0.5
        self.max_len = max_len
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("attn_mask", torch.triu(torch.full((max_len, max_len), float("-inf")), 1))

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        bsz, tgt_len, embed_dim = x.size()
        if tgt_len > self.max_len:
            raise ValueError("tgt_len is longer than max_len")
        q, k, v = self.qkv(x).split(embed_dim, dim=-1)
        q = q * self.scaling
        q = q.contiguous().view(bsz, tgt_len, self.num_heads, self.head_dim).transpose(1, 2).reshape(bsz * self.num_heads, tgt_len, self.head_dim)
        k = k.contiguous().view(bsz, tgt_len, self.num_heads, self.head_dim).transpose(1, 2).reshape(bsz * self.num_heads, tgt_len, self.head_dim)
        v = v.contiguous().view(bsz, tgt_len, self.num_heads, self.head_dim).transpose(1, 2).reshape(bsz * self.num_heads, tgt_len, self.head_dim)
        attn_weights = torch.bmm(q, k.transpose(1, 2))
        attn_weights = attn_weights + self.attn_mask[:tgt_len, :tgt_len].to(attn_weights.dtype)
        attn_weights_float = softmax(attn_weights, dim=-1)
        attn_weights = attn_weights_float.type_as(attn_weights)
        attn = torch.bmm(attn_weights, v)
        attn = attn.view(bsz, self.num_heads, tgt_len, self.head_dim).transpose(1, 2).reshape(bsz, tgt_len, embed_dim)
        attn = self.proj(attn)
        if return_weights:
            return attn, attn_weights.view(bsz, self.num_heads, tgt_len, tgt_len)
        return attn
