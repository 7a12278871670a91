"""Question 4: split_heads and combine_heads."""
import random

from reference import dot_product

from ..checks import Check, draw, input_size, raises, randn, same_as
from ..compare import tensor_mismatch
from ..probes.inputs import make


def _split(rng: random.Random) -> dict:
    B, T, H, d = rng.randint(1, 3), rng.randint(1, 5), rng.randint(1, 4), rng.randint(1, 4)
    return {"args": [randn([B, T, H * d], rng.randrange(10**6), rng.choice(["float32", "float64"])), H]}


def _combine(rng: random.Random) -> dict:
    B, H, T, d = rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 5), rng.randint(1, 4)
    return {"args": [randn([B, H, T, d], rng.randrange(10**6), rng.choice(["float32", "float64"]))]}




def _round_trip(params: dict, result: dict) -> str | None:
    x = make(params["calls"][0]["args"][0])
    return tensor_mismatch(result["outs"][1], x, "combine_heads(split_heads(x))")


def _trip(B: int, T: int, H: int, d: int, seed: int) -> dict:
    split = {"fn": "split_heads", "args": [randn([B, T, H * d], seed, "float64"), H]}
    return {"calls": [split, {"fn": "combine_heads", "args": [{"result_of": 0}]}]}


ROUND_TRIPS = [_trip(1, 1, 1, 1, 401), _trip(2, 3, 2, 3, 402), _trip(3, 4, 4, 2, 403)]

CHECKS = [
    same_as("split_heads", dot_product.split_heads, draw(401, 12, _split, input_size), "split_heads gives head h the columns h*d .. (h+1)*d - 1", weight=3,
            arg_names=("x", "n_heads")),
    same_as("combine_heads", dot_product.combine_heads, draw(402, 10, _combine, input_size), "combine_heads puts the heads side by side", weight=3),
    Check("split then combine gives x back exactly", "calls", ROUND_TRIPS, _round_trip, ("split_heads", "combine_heads"), 1),
    raises("split_heads", "ValueError", [{"args": [randn([1, 2, 6], 3), 4]}, {"args": [randn([2, 1, 5], 4), 2]}],
           "split_heads raises ValueError when D % H != 0", weight=1),
]
