"""Bug (public issue): heads split by Q.view(batch_size * num_head, -1, dim_head) and merged by context.view(batch_size, -1, dim_head * num_head), no transposes."""
# mistake: q04.split_no_transpose, q04.combine_no_transpose
# Source: 649453932/Chinese-Text-Classification-Pytorch, models/Transformer.py, Multi_Head_Attention.forward (issue 53);
# the same code and report in reczoo/FuxiCTR issue 30 "MultiHeadAttention bug when num_heads is greater than 1".
# Adapted: the (B * H, T, d) view is shown to the contract as (B, H, T, d), and the merge views it back; the repo's
# `assert dim_model % num_head == 0` becomes a ValueError.
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    batch_size, seq_len, dim_model = x.size()
    if dim_model % n_heads != 0:
        raise ValueError("dim_model must be divisible by num_head")
    dim_head = dim_model // n_heads
    Q = x.view(batch_size * n_heads, -1, dim_head)
    return Q.view(batch_size, n_heads, seq_len, dim_head)


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    batch_size, num_head, seq_len, dim_head = x.size()
    context = x.contiguous()
    return context.view(batch_size, -1, dim_head * num_head)
