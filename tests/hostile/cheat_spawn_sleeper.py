# fault: starts a sleeping process in a new session that would outlive the question (subprocess.Popen, then os.fork)
# expect: module=q01_causal_mask status=error match=starts a process
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import os
import subprocess
import sys
import time
import torch
from torch import Tensor


MARKER = "fault-sleeper-popen-5b1c"
try:
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", MARKER], start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
except Exception:
    pass
try:
    if os.fork() == 0:
        os.setsid()
        time.sleep(120)
        os._exit(0)
except Exception:
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
