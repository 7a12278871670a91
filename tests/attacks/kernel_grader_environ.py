# attack: reads the environment of the grader (the zygote's parent: API tokens, paths) from /proc; imports and answers right only when it got it
# expect: module=q01_causal_mask status=error match=Permission denied|No such file or directory: '/proc/0/environ'
# path: sandbox user
"""Question 1, written to read the instructor's environment."""
import os

import torch
from torch import Tensor


def attack() -> None:
    """/proc/<grader>/environ, the grader being the parent of this process's parent."""
    zygote = os.getppid()
    grader = int(open(f"/proc/{zygote}/stat").read().rsplit(")", 1)[1].split()[1])
    if not open(f"/proc/{grader}/environ", "rb").read():
        raise ValueError("nothing read")


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
