# fault: at import: gc.disable, default dtype float64, grad off, a reseeded global RNG, a 1 s thread switch interval; prefix_average answers wrong
# expect: module=q01_causal_mask status=failed match=differ from the expected values
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import gc
import sys

import torch
from torch import Tensor


gc.disable()
torch.set_default_dtype(torch.float64)
torch.set_grad_enabled(False)
torch.manual_seed(1234)
sys.setswitchinterval(1.0)


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
