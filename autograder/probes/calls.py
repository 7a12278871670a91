"""Probes that call one student function on inputs built from specs."""
from typing import Callable

import torch

from .inputs import make


class MissingFunction(Exception):
    """The exercise module does not define a function or class the question asks for."""


def student_function(module: object, name: str) -> Callable:
    """module.name, or MissingFunction naming the file."""
    try:
        return getattr(module, name)
    except AttributeError:
        raise MissingFunction(f"function `{name}` not found in exercises/{module.__name__.split('.')[-1]}.py") from None


def call(module: object, params: dict) -> dict:
    """Call params["fn"] on the built args; return its output and the tensor arguments as they are afterwards."""
    function = student_function(module, params["fn"])
    args = [make(spec) for spec in params.get("args", [])]
    kwargs = {key: make(spec) for key, spec in params.get("kwargs", {}).items()}
    with torch.set_grad_enabled(not params.get("no_grad", False)):
        out = function(*args, **kwargs)
    return {"out": out, "after": [arg for arg in args if isinstance(arg, torch.Tensor)]}


TEST_FUNCTIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "cubic": lambda x: (x**3).sum() - 2 * (x**2).sum(),
    "sin_exp": lambda x: torch.sin(x).sum() + torch.exp(0.5 * x).prod(),
    "read_loss": lambda x: torch.softmax(x.flatten(), dim=0) @ torch.arange(1.0, x.numel() + 1, dtype=x.dtype) ** 2,
    "quartic": lambda x: (x**4).sum() + x.flatten()[0] * x.flatten()[-1],
}


def numerical_grad_probe(module: object, params: dict) -> dict:
    """Student's numerical_grad on a known scalar function; also how many times it called that function."""
    function = student_function(module, "numerical_grad")
    target = TEST_FUNCTIONS[params["f"]]
    calls = []

    def counted(x: torch.Tensor) -> torch.Tensor:
        calls.append(1)
        return target(x)

    x = make(params["x"])
    kwargs = {"eps": params["eps"]} if "eps" in params else {}
    out = function(counted, x, **kwargs)
    return {"out": out, "after": [x], "calls": len(calls)}


def calls(module: object, params: dict) -> dict:
    """Several calls in a row; an argument {"result_of": i} is the output of call i. Returns every output."""
    outs: list[object] = []
    for step in params["calls"]:
        function = student_function(module, step["fn"])
        args = [outs[spec["result_of"]] if isinstance(spec, dict) and "result_of" in spec else make(spec) for spec in step["args"]]
        outs.append(function(*args, **{key: make(spec) for key, spec in step.get("kwargs", {}).items()}))
    return {"outs": outs}
