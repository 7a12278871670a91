"""Question 4: splitting the model width into heads and putting it back together."""
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    # TODO: check that D divides evenly, cut the last axis into (H, d), move H before T.
    raise NotImplementedError


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    # TODO: move H back after T, then merge (H, d) into one axis.
    raise NotImplementedError
