# fault: at import, writes one well-formed frame holding a list (not the dict the grader expects) into its answer FIFO, ahead of the sandbox's own first word; answers right
# expect: module=q01_causal_mask status=flagged match=an answer the sandbox did not send
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import io
import os

import torch
from torch import Tensor

_buffer = io.BytesIO()
torch.save(["not", "a", "dict"], _buffer)
for _fd in os.listdir("/proc/self/fd"):
    try:
        if os.readlink(f"/proc/self/fd/{_fd}").endswith("answers"):
            os.write(int(_fd), len(_buffer.getvalue()).to_bytes(8, "little") + _buffer.getvalue())
    except OSError:
        pass


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T)
    return (weights / weights.sum(dim=-1, keepdim=True)) @ x


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
