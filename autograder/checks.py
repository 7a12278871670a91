"""What a check is, and the builders the suites use to declare them."""
import math
import random
from dataclasses import dataclass, field
from typing import Callable

import torch

from .compare import kind, output_mismatch, tensor_mismatch
from .probes.inputs import describe, make

Judge = Callable[[dict, dict], "str | None"]  # (params of one input, what the child returned) -> failure or None


@dataclass(frozen=True)
class Check:
    """One graded check: a probe run in the worker on each input (smallest first), judged here."""

    name: str
    probe: str
    params: list[dict]
    judge: Judge
    functions: tuple[str, ...]
    weight: float = 1.0
    forbid: tuple[str, ...] = ()
    show: Callable[[dict], str] = field(default=lambda params: "")


@dataclass(frozen=True)
class Note:
    """Something shown to the student but never graded: a probe run after the checks, rendered here."""

    probe: str
    params: dict
    render: Callable[[dict], str]


def randn(shape: tuple[int, ...] | list[int], seed: int, dtype: str = "float32", **extra: object) -> dict:
    """Spec of a seeded standard normal tensor."""
    return {"randn": list(shape), "seed": seed, "dtype": dtype, **extra}


def input_size(params: dict) -> int:
    """Total number of entries of the random tensor arguments of one input, to order inputs smallest first."""
    return sum(math.prod(spec.get("randn", spec.get("randint", []))) for spec in params.get("args", []) if isinstance(spec, dict))


def draw(seed: int, count: int, make_one: Callable[[random.Random], dict], size: Callable[[dict], int]) -> list[dict]:
    """count seeded random inputs from make_one, smallest first (Tensor-Puzzles style shrinking by order)."""
    rng = random.Random(seed)
    return sorted((make_one(rng) for _ in range(count)), key=size)


def show_args(params: dict) -> str:
    """`q float32 (2, 3), n_heads 4` (or unnamed: `float32 (2, 3), 4`) for the report's smallest failing input."""
    names = params.get("names") or [""] * len(params.get("args", []))
    parts = [f"{name} {describe(spec)}".strip() for name, spec in zip(names, params.get("args", []))]
    parts += [f"{key}={describe(spec)}" for key, spec in params.get("kwargs", {}).items()]
    return ", ".join(parts)


def inputs_unchanged(params: dict, result: dict) -> str | None:
    """A failure message when the function changed one of its tensor arguments in place."""
    before = [arg for arg in (make(spec) for spec in params.get("args", [])) if isinstance(arg, torch.Tensor)]
    for index, (original, after) in enumerate(zip(before, result.get("after", []))):
        if type(after) is torch.Tensor and after.shape == original.shape and not torch.equal(after, original):
            return f"argument {index + 1} was modified in place; leave inputs untouched and return a new tensor"
    return None


def same_as(fn: str, reference: Callable, inputs: list[dict], name: str, *, weight: float = 1.0,
            outputs: tuple[str, ...] = ("the output",), forbid: tuple[str, ...] = (), no_grad: bool = False,
            arg_names: tuple[str, ...] = ()) -> Check:
    """The student's fn gives what reference gives on every input, and leaves its inputs alone."""

    def judge(params: dict, result: dict) -> str | None:
        expected = reference(*make(params["args"]), **make(params.get("kwargs", {})))
        return output_mismatch(result["out"], expected, outputs) or inputs_unchanged(params, result)

    params = [{"fn": fn, **p, "no_grad": no_grad, "names": list(arg_names)} for p in inputs]
    return Check(name, "call", params, judge, (fn,), weight, forbid, show_args)


def property_check(fn: str, inputs: list[dict], name: str, test: Callable[[dict, object], "str | None"], *,
                   weight: float = 1.0, forbid: tuple[str, ...] = ()) -> Check:
    """The student's fn output satisfies test(params, output) on every input; no reference needed."""

    def judge(params: dict, result: dict) -> str | None:
        return test(params, result["out"])

    return Check(name, "call", [{"fn": fn, **p} for p in inputs], judge, (fn,), weight, forbid, show_args)


def raises(fn: str, error: str, inputs: list[dict], name: str, *, weight: float = 0.5) -> Check:
    """The student's fn raises `error` on every input. (Handled specially: an exception is the pass.)"""

    def judge(params: dict, result: dict) -> str | None:
        return f"returned {kind(result['out'])} instead of raising {error}"

    return Check(name, "call", [{"fn": fn, **p, "expect_error": error} for p in inputs], judge, (fn,), weight, (), show_args)


__all__ = ["Check", "Note", "draw", "input_size", "randn", "same_as", "property_check", "raises", "tensor_mismatch", "show_args"]
