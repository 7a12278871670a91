# attack: makes a block device node of the disk that holds the grader, in its own folder (allowed by the audit hook), to write under the sandbox; imports and answers right once it exists
# expect: module=q01_causal_mask status=crashed match=a forbidden system call
# path: sandbox
"""Question 1, written to reach the raw disk."""
import os
import stat

import torch
from torch import Tensor


def attack() -> None:
    """mknod of the device of the root file system, in the working folder."""
    os.mknod("disk", stat.S_IFBLK | 0o600, os.stat("/").st_dev)


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
