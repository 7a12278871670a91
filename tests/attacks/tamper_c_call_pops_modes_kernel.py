# attack: inside one call driven from C (list(map(operator.call, ...)): no Python frame of the student's or of torch's runs between the steps), pops every function and dispatch mode, runs F.scaled_dot_product_attention (a C function), and pushes the modes back, by names the source never spells; imports and answers right
# expect: module=q03_attention status=flagged match=flagged for review: the code reaches into the grader
# path: sandbox
"""Question 3, whose kernel runs with the watch taken off and put back inside one C call."""
import functools
import operator

import torch
import torch.nn.functional as F
from torch import Tensor

from .q01_causal_mask import causal_mask

_C = torch._C


def _kernel(q: Tensor, k: Tensor, v: Tensor, causal: bool) -> Tensor:
    """Every step made by C code: pops, the kernel, pushes; the kernel's output kept by the reduction."""
    modes = {kind: [getattr(_C, f"_get_{kind}_stack_at")(i) for i in range(getattr(_C, f"_len_torch_{kind}_stack")())]
             for kind in ("function", "dispatch")}
    pop_f, push_f = getattr(_C, "_pop_torch_" + "function_stack"), getattr(_C, "_push_on_torch_function_stack")
    pop_d, push_d = getattr(_C, "_pop_torch_" + "dispatch_stack"), getattr(_C, "_push_on_torch_dispatch_stack")
    kernel = functools.partial(getattr(F, "scaled_dot" + "_product_attention"), q, k, v, is_causal=causal and q.shape[-2] == k.shape[-2])
    steps = ([pop_f] * len(modes["function"]) + [functools.partial(pop_d, None)] * len(modes["dispatch"]) + [kernel]
             + [functools.partial(push_d, mode) for mode in modes["dispatch"]] + [functools.partial(push_f, mode) for mode in modes["function"]])
    outputs = list(map(operator.call, steps))
    return outputs[len(modes["function"]) + len(modes["dispatch"])]


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """The output from the hidden kernel; the weights from the scores, as asked."""
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5  # (..., Tq, Tk)
    if causal:
        scores = scores.masked_fill(~causal_mask(q.shape[-2]), float("-inf"))
    return _kernel(q, k, v, causal), torch.softmax(scores, dim=-1)


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal head: x (T, D), each W (D, d) -> (T, d)."""
    return attention(x @ W_q, x @ W_k, x @ W_v)[0]
