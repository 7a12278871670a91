"""Question 4: splitting the model width into heads and putting it back together."""
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    ### BEGIN SOLUTION: check that D divides evenly, cut the last axis into (H, d), move H before T.
    B, T, D = x.shape
    if D % n_heads != 0:
        raise ValueError(f"model width {D} is not divisible by {n_heads} heads")
    return x.reshape(B, T, n_heads, D // n_heads).transpose(1, 2)  # (B, T, H, d) -> (B, H, T, d)
    ### END SOLUTION


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    ### BEGIN SOLUTION: move H back after T, then merge (H, d) into one axis.
    B, H, T, d = x.shape
    return x.transpose(1, 2).reshape(B, T, H * d)  # (B, H, T, d) -> (B, T, H, d) -> (B, T, H * d)
    ### END SOLUTION
