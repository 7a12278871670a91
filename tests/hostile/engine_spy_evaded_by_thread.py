# fault: the forbidden F.scaled_dot_product_attention runs in a worker thread started at import (before any watched call), from a helper outside the graded functions
# expect: module=q03_attention status=failed match=asks you to do without
"""Question 3: scaled dot-product attention with a causal mask, and one attention head."""
import queue
import threading

import torch
import torch.nn.functional as F
from torch import Tensor

_jobs: "queue.Queue" = queue.Queue()


def _fused(q: Tensor, k: Tensor, v: Tensor, causal: bool) -> tuple[Tensor, Tensor]:
    """Output from the fused kernel; weights from the same scores the kernel uses."""
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if causal:
        scores = scores.masked_fill(~torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(), float("-inf"))
    return out, torch.softmax(scores, dim=-1)


def _worker() -> None:
    while True:
        args, box = _jobs.get()
        box.put(_fused(*args))


threading.Thread(target=_worker, daemon=True).start()  # started now: no call is being watched yet


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    box: "queue.Queue" = queue.Queue()
    _jobs.put(((q, k, v, causal), box))
    return box.get()


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    out, _ = attention(x @ W_q, x @ W_k, x @ W_v, causal=True)
    return out
