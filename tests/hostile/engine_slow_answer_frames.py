# fault: right answers, but the first three calls send their answer as a hand-made frame padded with 3 million pickle opcodes: the grader's torch.load takes seconds per frame, time no limit counts (whether the grader reads them before the time limit depends on the machine: a timeout, or answers out of step)
# expect: module=q01_causal_mask status=flagged match=an answer the sandbox did not send
"""Question 1: prefix averages as one matrix product, and the causal mask."""
import fcntl
import io
import os
import stat
import zipfile

import torch
from torch import Tensor

_write = os.write
_calls = [0]
PADDING = 3_000_000  # None opcodes per frame: about 1.5 microseconds each for the grader to load


def _answers_fd() -> int:
    """This child's answer channel to the grader, whatever the sandbox: the FIFO (the Linux backend) or pipe (the portable
    one) it has open for writing, found by fstat."""
    for fd in range(3, 256):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                return fd
        except OSError:
            pass
    return -1


def _padded_frame(answer: dict) -> bytes:
    """answer, torch.save'd, with one more entry: a list of PADDING Nones written straight into the pickle."""
    buffer = io.BytesIO()
    torch.save(dict(answer, padding="PADPADPAD"), buffer)
    archive = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as rebuilt:
        for info in archive.infolist():
            data = archive.read(info.filename)
            if info.filename.endswith("data.pkl"):
                data = data.replace(b"X\x09\x00\x00\x00PADPADPAD", b"](" + b"N" * PADDING + b"e", 1)
            rebuilt.writestr(info.filename, data)
    data = out.getvalue()
    return len(data).to_bytes(8, "little") + data


def _send_instead(value: Tensor) -> None:
    """Send the answer ourselves, and swallow the sandbox's own next write of it."""
    fd = _answers_fd()
    frame = _padded_frame({"ok": True, "value": value, "spied": [], "refused": [], "reads": 0})
    view = memoryview(frame)
    while view:
        view = view[_write(fd, view):]

    def swallow(target: int, data: bytes) -> int:
        if target == fd:
            os.write = _write  # once
            return len(data)
        return _write(target, data)

    os.write = swallow


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype, device=x.device).tril()  # (T, T)
    out = (weights / weights.sum(dim=-1, keepdim=True)) @ x
    _calls[0] += 1
    if _calls[0] <= 3:
        _send_instead(out)
    return out


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    return scores.masked_fill(~mask, float("-inf"))
