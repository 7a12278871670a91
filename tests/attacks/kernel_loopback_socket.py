# attack: connects to a TCP server on loopback (a Dask scheduler, the grader's own services), whose port it reads from /proc/net/tcp; imports and answers right once a byte went out
# expect: module=q01_causal_mask status=error match=Permission denied
# path: sandbox cluster
"""Question 1, written to reach a server on the grading machine."""
import socket

import torch
from torch import Tensor


def attack() -> None:
    """Send a byte to every TCP port that listens on 127.0.0.1 (state 0A in /proc/net/tcp)."""
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        if state == "0A" and local.startswith("0100007F:"):
            with socket.create_connection(("127.0.0.1", int(local.split(":")[1], 16)), timeout=1) as connection:
                connection.sendall(b"run this for me\n")


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
