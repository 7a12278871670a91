# fault: kills the grading worker through a pidfd taken from fresh copies of the posix and _signal modules; answers right
# expect: module=q01_causal_mask status=error match=second copy of the built-in module
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import importlib.machinery
import importlib.util
import os
import signal

import torch
from torch import Tensor


def _fresh(name: str) -> object:
    """A new copy of a built-in module, with the functions the grader may have taken away."""
    spec = importlib.machinery.BuiltinImporter.find_spec(name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


try:
    _fresh("_signal").pidfd_send_signal(_fresh("posix").pidfd_open(os.getppid()), signal.SIGKILL)
except Exception:  # noqa: BLE001
    pass


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T), ones on and below the diagonal
    weights = weights / weights.sum(dim=-1, keepdim=True)  # (T, T), row i holds 1 / (i + 1)
    return weights @ x  # (T, T) @ (..., T, d) -> (..., T, d)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
