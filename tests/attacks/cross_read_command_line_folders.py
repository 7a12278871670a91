# attack: reads the files of every folder named on the grader's command line (the nbgrader course folder with the gradebook and every submission, DIR, OUT, Gradescope's folders); imports and answers right only when it read one
# expect: module=q01_causal_mask status=error match=which belongs to the grader|Permission denied
# path: hidden
"""Question 1, written to read what the grader was pointed at."""
import os

import torch
from torch import Tensor


def attack() -> None:
    """The first file of each folder argument of an ancestor process, opened and read."""
    pid = os.getpid()
    while pid > 1:
        for argument in open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0"):
            folder = os.fsdecode(argument)
            if folder.startswith("/") and os.path.isdir(folder) and folder != "/":
                for name in sorted(os.listdir(folder)):
                    if os.path.isfile(os.path.join(folder, name)):
                        open(os.path.join(folder, name), "rb").read()
                        return
        pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    raise ValueError("no folder found")


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
