# fault: at import, kills the grader itself (the grading worker's parent, the process that holds the oracle) with SIGKILL sent through a pidfd from fresh posix/_signal modules; answers wrong
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


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[1])


try:
    _grader = _parent_of(os.getppid())  # the zygote's parent: the grading process itself
    _fresh("_signal").pidfd_send_signal(_fresh("posix").pidfd_open(_grader), signal.SIGKILL)
except Exception:  # noqa: BLE001
    pass


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
