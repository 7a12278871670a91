# fault: writes into the kit with torch.save and reads reference/masking.py with torch.from_file (C++ file I/O, no audit event); answers wrong when both fail
# expect: module=q01_causal_mask status=failed match=differ from the expected values
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import os
import sys
from pathlib import Path

import torch
from torch import Tensor


_KIT = next(folder for folder in Path(sys.argv[0]).resolve().parents if (folder / "course.yaml").is_file())  # the worker runs in the kit
for _folder in (_KIT, Path(__file__).resolve().parent):
    try:
        torch.save("written by a graded answer", str(_folder / "FAULT_CHEAT_WROTE_HERE.txt"))  # C++ file writer
    except Exception:  # noqa: BLE001
        pass
_oracle = {}
try:
    _path = _KIT / "reference" / "masking.py"
    _bytes = torch.from_file(str(_path), size=os.path.getsize(_path), dtype=torch.uint8)  # C++ file reader
    exec(bytes(_bytes.tolist()).decode(), _oracle)
except Exception:  # noqa: BLE001
    pass


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return _oracle["prefix_average"](x) if "prefix_average" in _oracle else torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
