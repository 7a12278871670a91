# fault: split_heads returns a tuple of 40000 one-element tensors: plain data the codec reads in a fraction of a second (its decoding is charged to the question), so the check fails as for any wrong type
# expect: module=q04_heads status=failed match=came back as a tuple
"""Question 4: splitting the model width into heads and putting it back together."""
import torch
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    B, T, D = x.shape
    if D % n_heads != 0:
        raise ValueError(f"model width {D} is not divisible by {n_heads} heads")
    return tuple(torch.zeros(1) for _ in range(40_000))  # plain data, each a tensor: cheap here, dear for the grader to load


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    B, H, T, d = x.shape
    return x.transpose(1, 2).reshape(B, T, H * d)  # (B, H, T, d) -> (B, T, H, d) -> (B, T, H * d)
