"""Question 8: read, read_grad (by hand, checked against autograd), numerical_grad."""
import random

import torch

from reference import additive

from ..checks import Check, draw, input_size, randn, same_as
from ..compare import kind
from ..probes.calls import TEST_FUNCTIONS
from ..probes.inputs import describe, make


def _read(rng: random.Random, with_g: bool) -> dict:
    T, d = rng.randint(1, 6), rng.randint(1, 5)
    dtype, seed = rng.choice(["float32", "float64"]), rng.randrange(10**6)
    args = [randn([T], seed, dtype, scale=2.0), randn([T, d], seed + 1, dtype)]
    return {"args": args + ([randn([d], seed + 2, dtype)] if with_g else [])}




def _numerical(params: dict, result: dict) -> str | None:
    """Same as the oracle's central difference at the given eps (or autograd at the default); x left alone."""
    x, f = make(params["x"]), TEST_FUNCTIONS[params["f"]]
    if "eps" in params:
        expected, tolerance = additive.central_difference(f, x, params["eps"]), 1e-7
    else:
        expected, tolerance = additive.autograd_grad(f, x), 1e-6
    got = result["out"]
    if type(got) is not torch.Tensor:
        return f"numerical_grad returned {kind(got)}; expected a torch.Tensor"
    if got.shape != x.shape or got.dtype != torch.float64:
        return f"numerical_grad returned {got.dtype} {tuple(got.shape)}; expected float64 {tuple(x.shape)} like x"
    error = (got - expected).abs().max().item()
    if not error <= tolerance * (1 + expected.abs().max().item()):
        position = torch.nonzero((got - expected).abs() == error)
        where = f", worst at {position[0].tolist()}" if len(position) else ""
        return f"numerical_grad is off by {error:.2g}{where}: use central differences (f(x+eps) - f(x-eps)) / (2 eps) with the given eps"
    after = result["after"][0]
    if type(after) is torch.Tensor and not torch.allclose(after, x, rtol=0, atol=1e-12):
        return "numerical_grad left x changed: restore each entry after nudging it, or work on a copy"
    return None


def _show_numerical(params: dict) -> str:
    eps = f", eps={params['eps']:g}" if "eps" in params else ""
    return f"f={params['f']}, x {describe(params['x'])}{eps}"


NUMERICAL = [
    {"f": "cubic", "x": randn([3], 801, "float64")},
    {"f": "cubic", "x": randn([2, 3], 802, "float64"), "eps": 1e-3},
    {"f": "sin_exp", "x": randn([4], 803, "float64"), "eps": 0.3},
    {"f": "read_loss", "x": randn([5], 804, "float64")},
    {"f": "quartic", "x": randn([2, 2], 805, "float64"), "eps": 0.25},
]

CHECKS = [
    same_as("read", additive.read, draw(801, 10, lambda rng: _read(rng, False), input_size), "read returns softmax weights and their context",
            outputs=("the weights a", "the context c"), weight=2, arg_names=("e", "H")),
    same_as("read_grad", additive.read_grad, draw(802, 12, lambda rng: _read(rng, True), input_size), "read_grad, written by hand, matches the gradient",
            weight=4, forbid=("torch.autograd",), no_grad=True, arg_names=("e", "H", "g")),
    Check("numerical_grad matches the exact gradient", "numerical_grad", NUMERICAL, _numerical, ("numerical_grad",), 4, (), _show_numerical),
]
