# fault: at import, arms a 10 ms interval timer whose SIGALRM handler raises: it would fire inside the sandbox's own loop too, at moments the wall clock decides, so the child is ended as soon as the import leaves it running; prefix_average answers wrong
# expect: module=q01_causal_mask status=error match=signal handlers
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import signal

import torch
from torch import Tensor


def _raise(signum: int, frame: object) -> None:
    raise RuntimeError("alarm")


signal.signal(signal.SIGALRM, _raise)
signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
