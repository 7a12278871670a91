# fault: a malformed first frame makes the grader give up on this question without closing its child; a thread of that child then opens the next question's answer FIFO (reading /tmp is allowed) and drains it
# expect: module=q01_causal_mask status=flagged match=an answer the sandbox did not send
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import io
import os
import select
import threading
import time

import torch
from torch import Tensor


def _drain_next_job() -> None:
    """Wait for the next job folder of this sandbox, open its answer FIFO and read everything that arrives."""
    here = os.getcwd()  # .../autograder-XXXX/jobN, this child's own folder
    number = int(os.path.basename(here).removeprefix("job"))
    target = os.path.join(os.path.dirname(here), f"job{number + 1}", "answers")
    deadline = time.monotonic() + 60
    while not os.path.exists(target) and time.monotonic() < deadline:
        time.sleep(0.01)
    fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK)
    while True:
        select.select([fd], [], [], 1.0)
        try:
            os.read(fd, 1 << 20)
        except BlockingIOError:
            pass


threading.Thread(target=_drain_next_job, daemon=True).start()

_buffer = io.BytesIO()
torch.save(["not", "a", "dict"], _buffer)
for _fd in os.listdir("/proc/self/fd"):
    try:
        if os.readlink(f"/proc/self/fd/{_fd}").endswith("answers"):
            os.write(int(_fd), len(_buffer.getvalue()).to_bytes(8, "little") + _buffer.getvalue())
    except OSError:
        pass


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
