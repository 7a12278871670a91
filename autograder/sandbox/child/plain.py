"""Turn whatever the student returned into plain data the sandbox's codec (sandbox/codec.py) can send."""
import gc
import numbers
from typing import Callable

import torch

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)

_SCALARS = (bool, int, float, str, type(None))
# Bound at import, in the zygote, before any student code runs: patched builtins do not reach this module.
_type, _isinstance, _all, _int, _float = type, isinstance, all, int, float
_clone, _detach, _contiguous = torch.Tensor.clone, torch.Tensor.detach, torch.Tensor.contiguous
_no_function, _no_dispatch = torch._C.DisableTorchFunction, torch._C._DisableTorchDispatch
_collecting, _stop_collecting, _collect = gc.isenabled, gc.disable, gc.enable


def bare(function: Callable, *args: object) -> object:
    """function(*args) with PyTorch's modes and tensor subclasses' handlers off and no garbage collection inside: the
    child's own copies of an answer (here, and its encoding for the grader) run no code of the student's (a finaliser,
    a gc callback) and no mode it left on a stack sees them (tests/attacks/tamper_dispatch_mode_after_call.py)."""
    collecting = _collecting()
    _stop_collecting()
    try:
        with _no_function(), _no_dispatch():
            return function(*args)
    finally:
        if collecting:
            _collect()


def _copy(tensor: torch.Tensor) -> torch.Tensor:
    return _contiguous(_clone(_detach(tensor)))


def describe_type(kind: type) -> dict[str, str]:
    """How the report names an object it cannot take back, as fields the grader words in the student's language:
    {"form": "subclass", "name": "Foo"} (a tensor subclass), {"form": "object", "name": "Linear"} or "numpy.ndarray"."""
    if issubclass(kind, torch.Tensor):
        return {"form": "subclass", "name": kind.__name__}
    if kind.__module__ == "builtins" or kind.__module__.split(".")[0] in ("torch", "exercises"):
        return {"form": "object", "name": kind.__name__}
    return {"form": "object", "name": f"{kind.__module__}.{kind.__qualname__}"}


def plain(value: object, keep: Callable[[object], int], depth: int = 0) -> object:
    """Tensors (exact type only), numbers, strings, dtypes, lists, tuples, str-keyed dicts; anything else a handle.

    keep(obj) stores an object in the child and returns its handle number; the grader receives {"__handle__": number,
    "type": describe_type(...)} in its place; a value it cannot send, {"__unsupported__": fields}."""
    kind = _type(value)  # type(), not isinstance(): a subclass cannot pass for a tensor or a number
    if depth > 8:
        return {"__unsupported__": {"form": "nested"}}
    if kind is torch.Tensor or kind is torch.nn.Parameter:
        if value.device.type != "cpu" or value.layout != torch.strided:
            return {
                "__unsupported__": {
                    "form": "device",
                    "layout": str(value.layout).removeprefix("torch."),
                    "device": str(value.device),
                }
            }
        return bare(_copy, value)
    if kind in _SCALARS or kind is torch.dtype:
        return value
    if not _isinstance(value, torch.Tensor):
        if _isinstance(value, numbers.Integral) and not _isinstance(value, bool):
            return _int(value)
        if _isinstance(value, numbers.Real):
            return _float(value)
        if kind in (list, tuple):
            return kind([plain(item, keep, depth + 1) for item in value])
        if (
            kind is dict
            and _all(_type(key) is str for key in value)
            and not ("__handle__" in value or "__unsupported__" in value)
        ):
            return {key: plain(item, keep, depth + 1) for key, item in value.items()}
    return {"__handle__": keep(value), "type": describe_type(kind)}
