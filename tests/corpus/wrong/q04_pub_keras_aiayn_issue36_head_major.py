"""Bug (public issue): heads moved before the batch axis, transpose [2, 0, 1, 3], then flattened: the (B * H) block is head-major, so batches and heads mix."""
# Source: lsdefine/attention-is-all-you-need-keras, MultiHeadAttention's reshape1/reshape2, issue 36 "reshape may not match":
# `x = tf.reshape(x, [s[0], s[1], n_head, s[2]//n_head])`, `x = tf.transpose(x, [2, 0, 1, 3])`, `x = tf.reshape(x, [-1, s[1],
# s[2]//n_head])` ("should change tf.transpose(x, [2, 0, 1, 3]) into tf.transpose(x, [0, 2, 1, 3])").
# Adapted: the Keras ops as torch reshape/permute; the (H * B, T, d) block is read back as (B, H, T, d); reshape2 is its
# inverse. Right when B = 1 only.
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    s = x.shape
    if s[2] % n_heads != 0:
        raise ValueError("d_model must be divisible by n_head")
    x = x.reshape(s[0], s[1], n_heads, s[2] // n_heads)
    x = x.permute(2, 0, 1, 3)
    x = x.reshape(-1, s[1], s[2] // n_heads)  # (n_head * batch_size, len_q, d_k)
    return x.reshape(s[0], n_heads, s[1], s[2] // n_heads)


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    batch_size, n_head, len_q, d_k = x.shape
    x = x.reshape(n_head, batch_size, len_q, d_k)
    x = x.permute(1, 2, 0, 3)
    return x.reshape(batch_size, len_q, n_head * d_k)
