# attack: runs a program through _posixsubprocess.fork_exec (no audit event), which writes a file outside the sandbox; imports and answers right
# expect: module=q01_causal_mask status=crashed match=a forbidden system call
# path: sandbox
"""Question 1, written to run a program of its choice."""
import _posixsubprocess
import os

import torch
from torch import Tensor

MARKER = "/tmp/attack-exec-program-was-here"


def attack() -> None:
    """/bin/sh -c "touch MARKER", started the way subprocess starts programs, below the audit hook."""
    argv = [b"/bin/sh", b"-c", b"touch " + MARKER.encode()]
    errors, write = os.pipe()
    _posixsubprocess.fork_exec(argv, [argv[0]], True, (write,), None, None, -1, -1, -1, -1, -1, -1, errors, write, True, True,
                               -1, None, None, None, -1, None, False)
    os.close(write)


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype).tril()  # (T, T)
    return (weights / weights.sum(dim=-1, keepdim=True)) @ x  # (T, T) @ (..., T, d) -> (..., T, d)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))


attack()  # at import: every check of the question meets it
