# fault: writes the grader's result files itself with open() (import.pt, check_N.pt claiming passes) then exits; answers wrong when refused
# expect: module=q01_causal_mask status=error match=result files
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import io
import os
import torch
from torch import Tensor


_FAKE = {"ok": True, "value": {"out": torch.zeros(1), "after": []}, "spied": [], "refused": []}


def _forge(value: object, name: str) -> None:
    buffer = io.BytesIO()
    torch.save(value, buffer)
    with open(name, "wb") as handle:
        handle.write(buffer.getvalue())


try:
    _forge({"error": None, "refused": []}, "import.pt")
    for _index in range(3):
        _forge([_FAKE] * 20, f"check_{_index}.pt")
    os._exit(0)
except OSError:
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
