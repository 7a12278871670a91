# fault: the first call starts a thread that reads and drops every later request from its request channel (found by fstat: a FIFO or a pipe); answers right
# expect: module=q01_causal_mask status=timeout match=stopped after
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import fcntl
import os
import stat
import threading

import torch
from torch import Tensor


def _fd(mode: int) -> int:
    """This child's descriptor of its channel to the grader open for mode (os.O_RDONLY: the requests, os.O_WRONLY: the
    answers), whatever the sandbox: a FIFO (the Linux backend) or a pipe (the portable one)."""
    for fd in range(3, 256):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == mode:
                return fd
        except OSError:
            pass
    return -1


_started = []


def _steal() -> None:
    fd = _fd(os.O_RDONLY)
    while True:
        os.read(fd, 1 << 16)


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    if not _started:
        _started.append(threading.Thread(target=_steal, daemon=True))
        _started[0].start()
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T)
    return (weights / weights.sum(dim=-1, keepdim=True)) @ x


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
