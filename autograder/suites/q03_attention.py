"""Question 3: attention by hand, and single_head."""
import random

import torch

from reference import dot_product

from ..checks import Check, draw, input_size, randn, same_as
from ..compare import kind, past_changed

FORBID = ("F.scaled_dot_product_attention", "nn.MultiheadAttention")


def _qkv(rng: random.Random, causal: bool) -> dict:
    batch = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
    Tq = rng.randint(1, 6)
    Tk = Tq if causal else rng.randint(1, 6)
    d, dv = rng.randint(1, 6), rng.randint(1, 5)
    dtype = rng.choice(["float32", "float64"])
    seed = rng.randrange(10**6)
    return {"args": [randn([*batch, Tq, d], seed, dtype), randn([*batch, Tk, d], seed + 1, dtype), randn([*batch, Tk, dv], seed + 2, dtype)],
            "kwargs": {"causal": causal}}




def _single(rng: random.Random) -> dict:
    T, D, d = rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 4)
    dtype = rng.choice(["float32", "float64"])
    seed = rng.randrange(10**6)
    return {"args": [randn([T, D], seed, dtype), *(randn([D, d], seed + i, dtype) for i in (1, 2, 3))]}


def _future_blind(params: dict, result: dict) -> str | None:
    """Outputs at positions before `start` are the same when later keys and values change."""
    start = params["start"]
    first, second = result["outs"]
    for out in (first, second):
        if not isinstance(out, tuple | list) or len(out) != 2 or type(out[0]) is not torch.Tensor:
            return f"attention returned {kind(out)}; expected (output, weights)"
    if past_changed(first[0], second[0], start, dim=-2):
        return f"changing keys and values at positions {start} and later changed the output at an earlier position: the future leaks in"
    return None


def _future_inputs(T: int, start: int, seed: int) -> dict:
    shape = [2, T, 3]
    q, k, v = (randn(shape, seed + i) for i in range(3))
    resample = {"axis": 1, "from": start, "seed": seed + 7}
    changed = [q, randn(shape, seed + 1, resample=resample), randn(shape, seed + 2, resample=resample)]
    return {"calls": [{"fn": "attention", "args": [q, k, v]}, {"fn": "attention", "args": changed}], "start": start}


CAUSAL = draw(301, 12, lambda rng: _qkv(rng, True), input_size)
NON_CAUSAL = draw(302, 8, lambda rng: _qkv(rng, False), input_size)

CHECKS = [
    same_as("attention", dot_product.attention, CAUSAL, "causal attention matches F.scaled_dot_product_attention",
            outputs=("the output", "the weights"), forbid=FORBID, weight=4, arg_names=("q", "k", "v")),
    same_as("attention", dot_product.attention, NON_CAUSAL, "attention with causal=False and Tq != Tk",
            outputs=("the output", "the weights"), forbid=FORBID, weight=2, arg_names=("q", "k", "v")),
    Check("changing a future key never changes a past output", "calls", [_future_inputs(T, s, 40 + T) for T, s in ((2, 1), (5, 2), (6, 5))],
          _future_blind, ("attention",), 2, FORBID),
    same_as("single_head", dot_product.single_head, draw(303, 8, _single, input_size), "single_head projects x and attends causally",
            forbid=FORBID, weight=2, arg_names=("x", "W_q", "W_k", "W_v")),
]
