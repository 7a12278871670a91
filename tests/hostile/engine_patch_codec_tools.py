# fault: prefix_average replaces what the sandbox's codec encodes answers with (struct.pack, Tensor.numpy, Tensor.view, Tensor.contiguous, bytes-making) by functions that raise; the codec bound them before the import, so the right answers keep full marks
# expect: module=q01_causal_mask status=passed match=
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import struct

import torch
from torch import Tensor


def _broken(*args: object, **kwargs: object) -> object:
    raise RuntimeError("patched by the student")


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T)
    result = (weights / weights.sum(dim=-1, keepdim=True)) @ x
    struct.pack = _broken
    struct.unpack_from = _broken
    for name in ("numpy", "view", "contiguous", "reshape", "detach", "clone"):
        setattr(torch.Tensor, name, _broken)
    torch.frombuffer = _broken
    return result


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
