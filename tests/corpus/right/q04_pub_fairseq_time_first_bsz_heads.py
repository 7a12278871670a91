"""Correct (public code): fairseq's time-first head split, q.contiguous().view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1), and its inverse."""
# Source: facebookresearch/fairseq, fairseq/modules/multihead_attention.py, MultiheadAttention.forward: inputs are
# (tgt_len, bsz, embed_dim); heads are split with `.view(tgt_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)` and
# merged with `attn.transpose(0, 1).contiguous().view(tgt_len, bsz, embed_dim)`.
# Adapted: the contract's batch-first (B, T, D) is transposed to fairseq's time-first layout and back; the (B * H, T, d)
# block is viewed as (B, H, T, d); fairseq's `assert self.head_dim * num_heads == self.embed_dim` becomes a ValueError.
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    bsz, tgt_len, embed_dim = x.size()
    head_dim = embed_dim // n_heads
    if head_dim * n_heads != embed_dim:
        raise ValueError("embed_dim must be divisible by num_heads")
    q = x.transpose(0, 1)  # Time x Batch x Channel
    q = q.contiguous().view(tgt_len, bsz * n_heads, head_dim).transpose(0, 1)  # (bsz * heads, tgt_len, head_dim)
    return q.view(bsz, n_heads, tgt_len, head_dim)


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    bsz, num_heads, tgt_len, head_dim = x.size()
    attn = x.reshape(bsz * num_heads, tgt_len, head_dim)
    attn = attn.transpose(0, 1).contiguous().view(tgt_len, bsz, num_heads * head_dim)  # Time x Batch x Channel
    return attn.transpose(0, 1)
