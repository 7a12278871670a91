# attack: starts 3,000 threads with 64 KiB stacks that wait for ever, which under an ordinary user eats the user's process quota that the grader and every classmate graded at the same time share; imports and answers right only when all of them started
# expect: module=q01_causal_mask status=error match=can't start new thread
# path: sandbox user
"""Question 1, written to take the instructor's process quota."""
import threading

import torch
from torch import Tensor

_never = threading.Event()


def attack() -> None:
    """3,000 threads, each waiting on an event that is never set."""
    threading.stack_size(1 << 16)
    for _ in range(3000):
        threading.Thread(target=_never.wait, daemon=True).start()


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
