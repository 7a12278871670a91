# fault: empties the sandbox's tables of watched events and replaces the audit hook's methods (through __main__), then starts a process
# expect: module=q01_causal_mask status=error match=starts a process
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import subprocess
import sys

import torch
from torch import Tensor

worker = sys.modules.get("__main__")
for name in ("WATCHED_EVENTS", "SPAWN_EVENTS", "PATH_EVENTS", "C_EVENTS"):
    if hasattr(worker, name):
        setattr(worker, name, frozenset())
if hasattr(worker, "REACH_EVENTS"):
    worker.REACH_EVENTS.clear()
if hasattr(worker, "Guard"):
    worker.Guard.__call__ = lambda self, event, args: None
    worker.Guard._refuse = lambda self, what: None
    worker.Guard._writable = lambda self, path: True
try:
    subprocess.run([sys.executable, "-c", "pass"], check=False)
except Exception:
    pass


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T), ones on and below the diagonal
    return (weights / weights.sum(-1, keepdim=True)) @ x


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
