# fault: writes files into the kit's folder and into its own package, then answers right
# expect: module=q01_causal_mask status=error match=outside its own folder
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import sys
from pathlib import Path
import torch
from torch import Tensor


_KIT = next(folder for folder in Path(sys.argv[0]).resolve().parents if (folder / "course.yaml").is_file())  # the worker runs in the kit
_written = []
for _folder in (_KIT, Path(__file__).resolve().parent):
    try:
        (_folder / "FAULT_CHEAT_WROTE_HERE.txt").write_text("written by a graded answer")
        _written.append(_folder)
    except OSError:
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
