"""Bug: combine_heads permutes to (B, T, d, H) before flattening, interleaving the heads' columns."""
# mistake: q04.combine_wrong_permute
from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    B, T, D = x.shape
    if D % n_heads != 0:
        raise ValueError(f"model width {D} is not divisible by {n_heads} heads")
    return x.reshape(B, T, n_heads, D // n_heads).transpose(1, 2)  # (B, T, H, d) -> (B, H, T, d)


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    B, H, T, d = x.shape
    return x.permute(0, 2, 3, 1).reshape(B, T, H * d)  # (B, H, T, d) -> (B, T, H, d) -> (B, T, H * d)
