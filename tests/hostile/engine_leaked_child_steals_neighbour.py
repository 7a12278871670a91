# fault: a malformed first frame makes the grader give up on this question without closing its child; a thread of that child then opens the next question's channel (the FIFOs in its folder, or the pipes of the process working there, through /proc: both out of its reach) and drains it
# expect: module=q01_causal_mask status=flagged match=an answer the sandbox did not send
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import fcntl
import io
import os
import select
import stat
import threading
import time

import torch
from torch import Tensor


def _next_channel(folder: str) -> list[str]:
    """Paths to the channel of the job working in folder, whatever the sandbox: the FIFOs in that folder (the Linux
    backend), or, through /proc, the pipes of the process working there (the portable backend's spare child)."""
    fifos = [os.path.join(folder, name) for name in ("requests", "answers") if os.path.exists(os.path.join(folder, name))]
    if fifos:
        return fifos
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and os.readlink(f"/proc/{pid}/cwd") == folder:
                return [f"/proc/{pid}/fd/{fd}" for fd in os.listdir(f"/proc/{pid}/fd") if stat.S_ISFIFO(os.stat(f"/proc/{pid}/fd/{fd}").st_mode)]
        except OSError:
            pass
    return []


def _drain_next_job() -> None:
    """Wait for the next job of this sandbox, open its channel and read everything that arrives, both ways."""
    here = os.getcwd()  # .../autograder-XXXX/jobN, this child's own folder
    number = int(os.path.basename(here).removeprefix("job"))
    folder = os.path.join(os.path.dirname(here), f"job{number + 1}")
    deadline = time.monotonic() + 60
    while not (paths := _next_channel(folder)) and time.monotonic() < deadline:
        time.sleep(0.01)
    fds = [os.open(path, os.O_RDONLY | os.O_NONBLOCK) for path in paths]
    while True:
        select.select(fds, [], [], 1.0)
        for fd in fds:
            try:
                os.read(fd, 1 << 20)
            except BlockingIOError:
                pass


threading.Thread(target=_drain_next_job, daemon=True).start()


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


_buffer = io.BytesIO()
torch.save(["not", "a", "dict"], _buffer)
os.write(_fd(os.O_WRONLY), len(_buffer.getvalue()).to_bytes(8, "little") + _buffer.getvalue())


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T)
    return (weights / weights.sum(dim=-1, keepdim=True)) @ x


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
