# attack: sets the immutable flag (chattr +i) on a file of its own folder, so that the grader cannot remove the folder afterwards; imports and answers right
# expect: module=q01_causal_mask status=crashed match=a forbidden system call
# path: sandbox
"""Question 1, written to leave a folder nobody can remove."""
import fcntl
import os
import struct

import torch
from torch import Tensor

FS_IOC_SETFLAGS, FS_IMMUTABLE_FL = 0x40086602, 0x10


def attack() -> None:
    """FS_IOC_SETFLAGS with the immutable flag, as chattr +i does."""
    fd = os.open("stuck.txt", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("l", FS_IMMUTABLE_FL))
    finally:
        os.close(fd)


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
