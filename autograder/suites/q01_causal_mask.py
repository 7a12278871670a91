"""Question 1: prefix_average, causal_mask, mask_scores."""
import random

import torch

from reference import masking

from ..checks import Check, draw, randn, same_as, show_args
from ..compare import kind, tensor_mismatch
from ..probes.inputs import make


def _batched(rng: random.Random) -> dict:
    batch = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
    dtype = rng.choice(["float32", "float64"])
    return {"args": [randn([*batch, rng.randint(1, 7), rng.randint(1, 5)], rng.randrange(10**6), dtype)]}


def _size(params: dict) -> tuple[int, int]:
    shape = params["args"][0]["randn"]
    return (len(shape), torch.Size(shape).numel())


PREFIX_INPUTS = [{"args": [randn([1, 3], 1)]}, {"args": [randn([4, 2], 2, "float64")]}] + draw(101, 10, _batched, _size)


def _mask_inputs(rng: random.Random) -> dict:
    batch = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
    T = rng.randint(1, 6)
    dtype = rng.choice(["float32", "float64"])
    mask = {"bools": [T, T], "seed": rng.randrange(10**6)} if rng.random() < 0.5 else {"tensor": torch.ones(T, T, dtype=torch.bool).tril().tolist(), "dtype": "bool"}
    return {"args": [randn([*batch, T, T], rng.randrange(10**6), dtype), mask]}


def _masked_judge(params: dict, result: dict) -> str | None:
    """Visible scores copied exactly; hidden ones -inf (or -1e9 and below, which softmax treats the same)."""
    scores, mask = make(params["args"])
    got = result["out"]
    if type(got) is not torch.Tensor:
        return f"the output came back as {kind(got)}; expected a torch.Tensor"
    expected = masking.mask_scores(scores, mask)
    problem = tensor_mismatch(got, expected) if got.shape != expected.shape or got.dtype != expected.dtype else None
    if problem:
        return problem
    visible = mask.expand_as(scores)
    if not torch.equal(got[visible], scores[visible]):
        return "a position where the mask is True does not keep its score (check which side of the mask you fill)"
    if not bool((got[~visible] <= -1e9).all()):
        return "a position where the mask is False is not -inf (fill where the mask is False, with float('-inf'))"
    after = result["after"][0]
    if not torch.equal(after, scores):
        return "the input scores were modified in place; return a new tensor (masked_fill, not masked_fill_)"
    return None


MASK_INPUTS = draw(103, 10, _mask_inputs, lambda p: torch.Size(p["args"][0]["randn"]).numel())

CHECKS = [
    same_as("prefix_average", masking.prefix_average, PREFIX_INPUTS, "prefix_average gives the running mean", weight=3, arg_names=("x",)),
    same_as("causal_mask", masking.causal_mask, [{"args": [T]} for T in (1, 2, 3, 5, 8)], "causal_mask is a bool lower triangle", weight=2),
    Check("mask_scores hides exactly the masked scores", "call", [{"fn": "mask_scores", **p} for p in MASK_INPUTS], _masked_judge, ("mask_scores",), 3, (), show_args),
]
