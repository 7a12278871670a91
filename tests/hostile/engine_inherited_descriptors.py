# fault: at import, looks in /proc/self/fd for descriptors it did not open (the zygote's Landlock rules are opened there and each
# child must close them, with its siblings' pidfds, before student code runs); answers wrong when it finds one
# expect: module=q01_causal_mask status=passed match=
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import os

import torch
from torch import Tensor


def _inherited() -> list[str]:
    """What the descriptors beyond stdin, stdout, stderr, the channel (two FIFOs, or two pipes under the portable backend)
    and the child's own stack file point to."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:  # the listing's own descriptor, closed by now
            continue
        if int(name) > 2 and not target.endswith(("/requests", "/answers", "/stack.txt")) and not target.startswith("pipe:"):
            found.append(target)
    return found


INHERITED = _inherited()


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    if INHERITED:
        return x * 0
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T)
    return (weights / weights.sum(dim=-1, keepdim=True)) @ x


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
