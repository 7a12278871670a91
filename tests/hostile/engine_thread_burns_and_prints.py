# fault: the first call starts threads that busy-loop, print without end and rebind the module's functions between calls; prefix_average answers wrong
# expect: module=q01_causal_mask status=failed|timeout|crashed match=
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import sys
import threading

import torch
from torch import Tensor


_started = []


def _burn() -> None:
    while True:
        pass


def _chatter() -> None:
    module = sys.modules[__name__]
    while True:
        print("Total: 100 / 100  passed " * 20)
        module.causal_mask = lambda T: torch.zeros(T, T, dtype=torch.bool)


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    if not _started:
        _started.extend(threading.Thread(target=f, daemon=True) for f in (_burn, _chatter))
        for thread in _started:
            thread.start()
    return torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
