# fault: patches torch.allclose, torch.equal, torch.testing.assert_close and Tensor.__eq__ to say True, then answers wrong
# expect: module=q01_causal_mask status=failed match=differ from the expected values
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import torch
from torch import Tensor


torch.allclose = lambda *args, **kwargs: True
torch.equal = lambda *args, **kwargs: True
torch.testing.assert_close = lambda *args, **kwargs: None
torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(a, dtype=torch.bool)
torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)
torch.Tensor.equal = lambda self, other: True
torch.Tensor.allclose = lambda self, other, *args, **kwargs: True


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
