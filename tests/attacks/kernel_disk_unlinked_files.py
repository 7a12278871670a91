# attack: writes 12 files of 7 MiB (84 MiB, over the question's 64 MiB) in its folder and removes each while it keeps it open, so that no listing of the folder shows them while the disk holds them (thousands would fill the disk the grader writes the reports to), and keeps them a second; imports and answers right
# expect: module=q01_causal_mask status=error match=MiB or
# path: sandbox user
"""Question 1, written to fill the disk where no listing looks."""
import os
import time

import torch
from torch import Tensor

HELD = []


def attack() -> None:
    """12 files of 7 MiB, each removed once written and kept open; then a second's wait, holding them."""
    block = b"x" * (7 << 20)
    for number in range(12):
        handle = open(f"hoard-{number}", "wb")
        handle.write(block)
        handle.flush()
        os.remove(f"hoard-{number}")
        HELD.append(handle)
    time.sleep(1)


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
