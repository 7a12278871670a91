# fault: at grading time, reads the q01 module of the other submissions graded beside it (sibling packages on disk, not hidden) and runs the most common one; answers wrong when it finds none
# expect: module=q01_causal_mask status=error|failed match=
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import collections
import os

import torch
from torch import Tensor

_own = os.path.dirname(os.path.abspath(__file__))  # .../<this submission>/exercises
_found: collections.Counter = collections.Counter()
try:
    _batch = os.path.dirname(os.path.dirname(_own))  # the folder holding every submission of the batch
    for _other in os.listdir(_batch):
        _path = os.path.join(_batch, _other, "exercises", "q01_causal_mask.py")
        if os.path.join(_batch, _other, "exercises") != _own and os.path.exists(_path):
            with open(_path, encoding="utf-8") as _handle:
                _found[_handle.read()] += 1
except OSError:
    pass
_copied: dict = {}
if _found:
    try:
        exec(_found.most_common(1)[0][0], _copied)
    except Exception:  # noqa: BLE001
        _copied = {}


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return _copied["prefix_average"](x) if "prefix_average" in _copied else torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
