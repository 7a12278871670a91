# attack: holds more than its memory limit (the address space it is given) in memory files (memfd_create, 8 MiB each: its output limit), whose pages count in no address-space limit; thousands of them would take the machine's memory and have the kernel kill the grader or a classmate; imports and answers right only when it held them all
# expect: module=q01_causal_mask status=error match=Operation not permitted
# path: sandbox user
"""Question 1, written to take memory beyond its limit."""
import os
import resource

import torch
from torch import Tensor

HELD = []


def attack() -> None:
    """Memory files of 8 MiB, written and kept open, a quarter of a GiB past the address-space limit."""
    block = b"m" * (8 << 20)
    for _ in range(resource.getrlimit(resource.RLIMIT_AS)[0] // len(block) + 32):
        fd = os.memfd_create("hoard")
        os.write(fd, block)
        HELD.append(fd)


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
