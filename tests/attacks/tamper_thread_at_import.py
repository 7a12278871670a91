# attack: runs F.scaled_dot_product_attention in a thread started at import with the low-level _thread module (outside threading's bookkeeping and hooks), before any call is watched, and hands the results back through a lock; answers right
# expect: module=q03_attention status=failed match=asks you to do without
# path: sandbox
"""Question 3, whose kernel runs in a thread of its own."""
import _thread
import collections

import torch
import torch.nn.functional as F
from torch import Tensor

_KERNEL = getattr(F, "scaled_dot" + "_product_attention")
_jobs: collections.deque = collections.deque()
_ready = _thread.allocate_lock()


def _worker() -> None:
    """Run each job's kernel and release its lock."""
    while True:
        if _jobs:
            (q, k, v, causal), box, done = _jobs.popleft()
            box.append(_KERNEL(q, k, v, is_causal=causal and q.shape[-2] == k.shape[-2]))
            done.release()
        else:
            _ready.acquire(True, 0.001)


_thread.start_new_thread(_worker, ())


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """The output from the thread's kernel; the weights from the scores."""
    box: list = []
    done = _thread.allocate_lock()
    done.acquire()
    _jobs.append(((q, k, v, causal), box, done))
    done.acquire()
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if causal:
        scores = scores.masked_fill(~torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(), float("-inf"))
    return box[0], torch.softmax(scores, dim=-1)


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal head: x (T, D), each W (D, d) -> (T, d)."""
    return attention(x @ W_q, x @ W_k, x @ W_v)[0]
