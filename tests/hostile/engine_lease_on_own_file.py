# fault: at import, takes a write lease with Python's fcntl (F_SETLEASE) on a file it made in its own folder, the kind of lease that, on a file of the instructor's (every one, when the grader runs as an ordinary user), makes any other process's open of it wait up to 45 s; answers right only when the lease was taken
# expect: module=q01_causal_mask status=error match=takes a lease on a file
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import fcntl
import os

import torch
from torch import Tensor

F_SETLEASE = 1024
with open("leased.txt", "w") as _made:
    _made.write("mine")
_held = os.open("leased.txt", os.O_RDONLY)
fcntl.fcntl(_held, F_SETLEASE, fcntl.F_WRLCK)  # allowed by the kernel: the file is the child's own


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
