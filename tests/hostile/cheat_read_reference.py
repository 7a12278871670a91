# fault: reads reference/masking.py by path and runs it to copy the oracle; answers wrong when that fails
# expect: module=q01_causal_mask status=error match=belongs to the grader
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import sys
from pathlib import Path
import torch
from torch import Tensor


_oracle = {}
for _kit in (*Path(sys.argv[0]).resolve().parents, *Path(__file__).resolve().parents):  # wherever the kit is
    try:
        exec((_kit / "reference" / "masking.py").read_text(), _oracle)
        break
    except OSError:
        continue


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return _oracle["prefix_average"](x) if "prefix_average" in _oracle else torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
