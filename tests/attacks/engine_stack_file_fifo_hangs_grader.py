# attack: replaces stack.txt (where its stack is dumped when the grader stops it) by a FIFO in its own folder (os.mkfifo there is allowed; its faulthandler keeps the old file's descriptor), then loops; at the time limit the grader's where_it_ran (sandbox/base.py) opens stack.txt with a plain open(), which blocks for ever on a FIFO with no writer: check never returns (reproduced: killed by timeout 150 s for a 20 s limit, the grader blocked in openat, wchan wait_for_partner), and grade DIR's worker stalls with the class
# expect: module=q01_causal_mask status=timeout match=stopped after
# path: sandbox
"""Question 1, written to stall the grader at its time limit."""
import os

import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Never returns."""
    os.remove("stack.txt")  # the child's faulthandler keeps its own descriptor of the old file
    os.mkfifo("stack.txt")
    while True:
        pass


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """scores with -inf wherever mask is False, broadcast over leading dimensions."""
    return scores.masked_fill(~mask, float("-inf"))
