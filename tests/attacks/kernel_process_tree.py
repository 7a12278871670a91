# attack: starts a chain of 150 processes, each the parent of the next, in new sessions, that sleep past the end of its question; imports and answers right
# expect: module=q01_causal_mask status=crashed match=a forbidden system call
# path: grade-dir user
"""Question 1, written to leave processes behind for the next student."""
import _posixsubprocess
import os
import sys

import torch
from torch import Tensor

MARKER = "attack-process-tree-7f3a"  # in the command line of every process of the chain


def attack() -> None:
    """The head of the chain, started below the audit hook; each link forks the next."""
    code = f"# {MARKER}\nimport os, sys, time\nn = int(sys.argv[1])\nos.setsid()\nif n and os.fork() == 0:\n    os.execv(sys.executable, [sys.executable, \"-c\", CODE, str(n - 1)])\ntime.sleep(60)\n"
    code = "CODE = " + repr(code) + "\n" + code
    exe = os.fsencode(sys.executable)
    errors, write = os.pipe()
    _posixsubprocess.fork_exec([exe, b"-c", code.encode(), b"150"], [exe], True, (write,), None, None,
                               -1, -1, -1, -1, -1, -1, errors, write, True, True, -1, None, None, None, -1, None, False)
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
