# fault: a wrong answer in a tensor subclass whose comparisons always say True
# expect: module=q01_causal_mask status=failed match=subclass
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import torch
from torch import Tensor


class AlwaysEqual(torch.Tensor):
    """Says it equals anything."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in (torch.equal, torch.allclose, torch.Tensor.equal, torch.Tensor.allclose):
            return True
        return super().__torch_function__(func, types, args, kwargs or {})

    __hash__ = torch.Tensor.__hash__


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return torch.zeros_like(x).as_subclass(AlwaysEqual)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
