# attack: opens a Unix socket pair and a netlink socket (a way to talk to other processes and to the kernel without a file); imports and answers right when it got them
# expect: module=q01_causal_mask status=error match=Permission denied
# path: sandbox
"""Question 1, written to open sockets that need no network."""
import socket

import torch
from torch import Tensor


def attack() -> None:
    """A Unix socket pair, then a netlink socket."""
    left, right = socket.socketpair(socket.AF_UNIX)
    left.close(), right.close()
    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close()


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
