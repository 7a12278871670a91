# attack: finds the kit's folder in its own /proc/self/cmdline (the zygote's worker.py) and reads autograder.zip at its top, where the docs used to build the Gradescope zip (the suites and the course secret in it); imports and answers right only when it read one
# expect: module=q01_causal_mask status=error match=Permission denied|belongs to the grader
# path: sandbox
"""Question 1, written to read the course secret out of the Gradescope zip."""
import os

import torch
from torch import Tensor


def attack() -> None:
    """autograder.zip beside the kit's course.yaml, where `python -m autograder gradescope autograder.zip` wrote it."""
    words = open("/proc/self/cmdline", "rb").read().split(b"\0")
    worker = next(os.fsdecode(w) for w in words if w.endswith(b"worker.py"))
    kit = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(worker))))
    if not open(os.path.join(kit, "autograder.zip"), "rb").read():
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
