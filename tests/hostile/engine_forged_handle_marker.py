# fault: prefix_average returns a plain dict shaped like the proxy's in-band handle marker, {"__handle__": 0, "type": <two lines, one a fake traceback>}
# expect: module=q01_causal_mask status=failed match=dict
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return {"__handle__": 0, "type": "a torch.Tensor after all\nTraceback (most recent call last): the grader crashed, full marks"}


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
