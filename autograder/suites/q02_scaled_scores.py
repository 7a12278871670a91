"""Question 2: toy_weights, scaled_scores, dot_product_std."""
import math
import random

import torch

from reference import dot_product

from ..checks import Check, draw, input_size, property_check, randn, same_as, show_args
from ..compare import as_number, number_mismatch, tensor_mismatch

LESSON_KEYS = [[0.1, 0.9], [0.0, 1.0], [0.9, 0.1], [1.0, 0.0], [0.8, 0.2]]
LESSON_WEIGHTS = {1.0: [0.12, 0.11, 0.26, 0.29, 0.23], 5.0: [0.01, 0.00, 0.30, 0.50, 0.18]}


def _lesson(params: dict, out: object) -> str | None:
    expected = torch.tensor(LESSON_WEIGHTS[params["kwargs"]["scale"]])
    if type(out) is torch.Tensor and out.shape == expected.shape and out.dtype == torch.float32:
        if not torch.allclose(out, expected, atol=0.006, rtol=0):
            return f"the lesson's example gives weights that do not round to the lesson's figures at scale {params['kwargs']['scale']:g}"
        return None
    return tensor_mismatch(out, expected, "the weights")


def _toy(rng: random.Random) -> dict:
    T, d = rng.randint(1, 6), rng.randint(1, 4)
    dtype = rng.choice(["float32", "float64"])
    return {"args": [randn([d], rng.randrange(10**6), dtype), randn([T, d], rng.randrange(10**6), dtype)],
            "kwargs": {"scale": rng.choice([0.5, 1.0, 3.0])}}


def _scores(rng: random.Random) -> dict:
    batch = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
    Tq, Tk, d = rng.randint(1, 5), rng.randint(1, 5), rng.choice([1, 2, 3, 8, 16])
    dtype = rng.choice(["float32", "float64"])
    return {"args": [randn([*batch, Tq, d], rng.randrange(10**6), dtype), randn([*batch, Tk, d], rng.randrange(10**6), dtype)]}




def _std_near_sqrt_d(params: dict, result: dict) -> str | None:
    d = params["args"][0]
    return number_mismatch(result["out"], math.sqrt(d), f"dot_product_std({d})", rel=0.05)


def _std_uses_seed(params: dict, result: dict) -> str | None:
    """Same seed, same figure; another seed or another n, another figure."""
    values = [as_number(v) for v in result["outs"]]
    if any(v is None for v in values):
        return "dot_product_std should return a number (a Python float)"
    first, other_seed, again, fewer = values
    if first != again:
        return "two calls with the same seed give different results: draw from a torch.Generator seeded with `seed`"
    if first == other_seed:
        return "seeds 0 and 1 give the same figure: the result must come from random draws made with `seed`"
    if first == fewer:
        return "n=5000 and n=100 give the same figure: draw n pairs of vectors"
    return None


LESSON_INPUTS = [{"args": [{"tensor": [1.0, 0.0]}, {"tensor": LESSON_KEYS}], "kwargs": {"scale": s}} for s in (1.0, 5.0)]

CHECKS = [
    property_check("toy_weights", LESSON_INPUTS, "toy_weights reproduces the lesson's example", _lesson, weight=1),
    same_as("toy_weights", dot_product.toy_weights, draw(201, 10, _toy, input_size), "toy_weights on random queries and keys", weight=2,
            arg_names=("query", "keys")),
    same_as("scaled_scores", dot_product.scaled_scores, draw(202, 12, _scores, input_size), "scaled_scores divides q k^T by sqrt(d)", weight=3,
            arg_names=("q", "k")),
    Check("dot_product_std is about sqrt(d)", "call", [{"fn": "dot_product_std", "args": [d], "kwargs": {"n": 20000, "seed": 0}} for d in (1, 4, 16, 64)],
          _std_near_sqrt_d, ("dot_product_std",), 1, (), show_args),
    Check("dot_product_std depends on its seed and n", "calls",
          [{"calls": [{"fn": "dot_product_std", "args": [8], "kwargs": {"n": n, "seed": s}} for n, s in ((5000, 0), (5000, 1), (5000, 0), (100, 0))]}],
          _std_uses_seed, ("dot_product_std",), 1),
]
