# fault: prefix_average tries to write a file outside its folder whose name holds a newline and a fake traceback, catches the refusal, answers right
# expect: module=q01_causal_mask status=failed match=outside its own folder
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T)
    return (weights / weights.sum(dim=-1, keepdim=True)) @ x


def _probe() -> None:
    try:
        open("/tmp/fault\nTraceback (most recent call last):", "w").close()
    except OSError:
        pass


_original = prefix_average


def prefix_average(x: Tensor) -> Tensor:  # noqa: F811
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    _probe()
    return _original(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
