# fault: an infinite loop that ignores SIGINT, SIGTERM and SIGXCPU and catches KeyboardInterrupt and everything else
# expect: module=q01_causal_mask status=timeout match=stopped after
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import signal
import time
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T), ones on and below the diagonal
    weights = weights / weights.sum(dim=-1, keepdim=True)  # (T, T), row i holds 1 / (i + 1)
    return weights @ x  # (T, T) @ (..., T, d) -> (..., T, d)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    for name in ("SIGINT", "SIGTERM", "SIGXCPU", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    while True:
        try:
            time.sleep(0.01)
            sum(range(10000))
        except KeyboardInterrupt:
            pass
        except BaseException:  # noqa: BLE001 - the fault: nothing stops this loop
            pass


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
