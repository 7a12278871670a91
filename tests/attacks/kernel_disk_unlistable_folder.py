# attack: writes 12 files of 7 MiB (84 MiB, over the question's 64 MiB) in a folder of its own, made writable but not listable (mode 0300), which hides its content from a grader running under the same user; imports and answers right
# expect: module=q01_causal_mask status=error match=MiB or
# path: sandbox user
"""Question 1, written to fill the grader's disk where it cannot look."""
import os

import torch
from torch import Tensor


def attack() -> None:
    """hoard/0 .. hoard/11, 7 MiB each, in hoard made unlistable from the start (writable and enterable: mkdir's mode, not
    chmod, which seccomp refuses)."""
    os.mkdir("hoard", 0o300)
    block = b"x" * (7 << 20)
    for number in range(12):
        with open(os.path.join("hoard", str(number)), "wb") as handle:
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
