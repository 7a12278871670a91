# attack: fills its folder with 120 files of 7 MiB (each under the per-file limit of 8 MiB: 840 MiB in all); imports and answers right
# expect: module=q01_causal_mask status=error match=MiB or
# path: sandbox
"""Question 1, written to fill the grader's disk."""
import os

import torch
from torch import Tensor


def attack() -> None:
    """120 files of 7 MiB each, in the working folder."""
    block = b"x" * (7 << 20)
    for number in range(120):
        with open(f"fill{number}.bin", "wb") as handle:
            handle.write(block)


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype).tril()  # (T, T)
    return (weights / weights.sum(dim=-1, keepdim=True)) @ x  # (T, T) @ (..., T, d) -> (..., T, d)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))


attack()  # at import: every check of the question meets it
