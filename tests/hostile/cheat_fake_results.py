# fault: at import, writes forged answers (import fine, every call a zero tensor) straight into the grader's answer channel (a FIFO or a pipe, found by fstat), then exits; the grader either sees the exit first (crashed) or reads the forged zeros as wrong answers (failed): both cost the question
# expect: module=q01_causal_mask status=flagged|crashed match=
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import fcntl
import os
import stat
import struct
import torch
from torch import Tensor


def _encode(value: object) -> bytes:
    """The kit's wire format (autograder/sandbox/codec.py), rebuilt by hand as an attacker would."""
    if value is True or value is False:
        return b"T" if value else b"F"
    if isinstance(value, int):
        return struct.pack("<cq", b"i", value)
    if isinstance(value, str):
        return struct.pack("<cI", b"s", len(value)) + value.encode()
    if isinstance(value, list):
        return struct.pack("<cI", b"l", len(value)) + b"".join(_encode(v) for v in value)
    if isinstance(value, dict):
        return struct.pack("<cI", b"d", len(value)) + b"".join(_encode(k) + _encode(v) for k, v in value.items())
    data = value.numpy().tobytes()  # a float32 tensor
    return struct.pack(f"<cBB{value.dim()}qQ", b"X", 0, value.dim(), *value.shape, len(data)) + data


def _frame(value: object) -> bytes:
    data = _encode(value)
    return len(data).to_bytes(8, "little") + data


_FAKE = {"ok": True, "value": torch.zeros(1), "after": [], "spied": [], "refused": [], "reads": 0}

for _fd in range(3, 256):  # the answer channel, whatever the sandbox: a FIFO or a pipe open for writing, found by fstat
    try:
        if stat.S_ISFIFO(os.fstat(_fd).st_mode) and fcntl.fcntl(_fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
            os.write(_fd, _frame({"ok": True, "refused": []}) + _frame(_FAKE) * 20)
            os._exit(0)
    except OSError:
        pass


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    return torch.zeros_like(x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
