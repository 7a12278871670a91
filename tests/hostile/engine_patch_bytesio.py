# fault: prefix_average replaces io.BytesIO by one whose getvalue gives junk; the sandbox's codec never uses BytesIO, so this is harmless and the right answers keep full marks
# expect: module=q01_causal_mask status=passed match=
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import io

import torch
from torch import Tensor


class _Junk(io.BytesIO):
    def getvalue(self) -> bytes:
        return b"PK junk, not an archive"


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    io.BytesIO = _Junk
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T)
    return (weights / weights.sum(dim=-1, keepdim=True)) @ x


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
