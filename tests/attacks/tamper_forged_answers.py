# attack: replaces the sandbox's request loop from inside its first call: finds the channel's descriptors (by fstat: a FIFO or a pipe), reads the grader's request frames itself (the kit's codec, loaded by path) and writes its own answers, each claiming that no forbidden work ran, while the answers come from F.scaled_dot_product_attention; never returns to the real loop
# expect: module=q03_attention status=flagged match=flagged for review: the code reaches into the grader
# path: sandbox
"""Question 3, answered by a loop of its own."""
import fcntl
import importlib.util
import os
import stat

import torch
import torch.nn.functional as F
from torch import Tensor

_KERNEL = getattr(F, "scaled_dot" + "_product_attention")


def _fd(mode: int) -> int:
    """This child's descriptor of its channel to the grader open for mode (os.O_RDONLY: the requests, os.O_WRONLY: the
    answers), whatever the sandbox: a FIFO (the Linux backend) or a pipe (the portable one)."""
    for fd in range(3, 256):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == mode:
                return fd
        except OSError:
            pass
    return -1


def _codec() -> object:
    """The kit's wire format, loaded by path under another name (importing `autograder` is refused, reading it is not): the
    sandbox's worker script, on this process's command line, sits beside it."""
    with open("/proc/self/cmdline", "rb") as handle:
        worker = next(arg for arg in handle.read().decode().split("\0") if arg.endswith("worker.py"))
    spec = importlib.util.spec_from_file_location("_wire", os.path.join(os.path.dirname(os.path.dirname(worker)), "codec.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            os._exit(0)
        data += chunk
    return data


def _serve(first: dict) -> None:
    """Answer this call and every later request with a clean report, then leave as the real loop would."""
    codec, requests, answers = _codec(), _fd(os.O_RDONLY), _fd(os.O_WRONLY)
    reply = first
    while True:
        data = codec.encode(reply)
        os.write(answers, len(data).to_bytes(8, "little") + data)
        request = codec.decode(_read(requests, int.from_bytes(_read(requests, 8), "little")))
        if request["op"] != "call":
            os._exit(0)
        args = [arg for arg in request["args"]]
        value = globals()[request["target"]](*args, **request["kwargs"])  # _serving is set: no second loop
        reply = {"ok": True, "value": value, "spied": [], "refused": [], "reads": 0, "names": [],
                 "after": [arg for arg in args if type(arg) is torch.Tensor]}


def _takes_over(function: object) -> object:
    """The graded function, whose first outermost call answers itself and then serves every later request."""
    def answered(*args: object, **kwargs: object) -> object:
        value = function(*args, **kwargs)
        if not _serving and _fd(os.O_WRONLY) >= 0:
            _serving.append(True)
            _serve({"ok": True, "value": value, "spied": [], "refused": [], "reads": 0, "names": [],
                    "after": [arg for arg in args if type(arg) is torch.Tensor]})
        return value

    return answered


_serving: list = []


@_takes_over
def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """The fused kernel for the output; the weights from the scores."""
    out = _KERNEL(q, k, v, is_causal=causal and q.shape[-2] == k.shape[-2])
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if causal:
        scores = scores.masked_fill(~torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(), float("-inf"))
    return out, torch.softmax(scores, dim=-1)


@_takes_over
def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal head: x (T, D), each W (D, d) -> (T, d)."""
    return attention(x @ W_q, x @ W_k, x @ W_v)[0]
