"""Bug (public issue): the subsequent-mask recipe (torch.triu(torch.ones(T, T)) == 1) copied without its .transpose(0, 1), so the mask keeps the future."""
# mistake: q01.mask_triu
# Source: pytorch/pytorch issue 29546 "Flipped look-ahead attention mask for transformer" and pytorch/examples
# issue 649 "Transformer Language Model Example Wrong Mask": nn.Transformer.generate_square_subsequent_mask builds
# (torch.triu(torch.ones(sz, sz)) == 1).transpose(0, 1); the threads show the flipped (upper-triangular) result.
# Adapted: a student copies the triu line, drops the transpose as "just a layout detail", and returns the bool table.
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.tril(torch.ones(T, T, dtype=x.dtype, device=x.device))
    return (weights / weights.sum(dim=1, keepdim=True)) @ x


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    mask = torch.triu(torch.ones(T, T)) == 1
    return mask


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(mask == 0, float("-inf"))
