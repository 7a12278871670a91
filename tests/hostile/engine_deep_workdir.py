# fault: makes 1500 nested folders inside its own job folder (allowed), then answers wrong; the grader removes the sandbox folder when it closes
# expect: module=q01_causal_mask status=failed match=differ from the expected values
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import os

import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    if not os.path.exists("d"):
        fd = os.open(".", os.O_RDONLY)
        try:
            for _ in range(1500):  # relative to a folder descriptor: no long path is ever built
                os.mkdir("d", dir_fd=fd)
                inner = os.open("d", os.O_RDONLY, dir_fd=fd)
                os.close(fd)
                fd = inner
        except OSError:
            pass
        finally:
            os.close(fd)
    return torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
