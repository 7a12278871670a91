"""Turn whatever the student returned into plain data that torch.load(weights_only=True) accepts."""
import numbers

import torch

_SCALARS = (bool, int, float, str, type(None))
# Bound at import, in the zygote, before any student code runs: patched builtins do not reach this module.
_type, _isinstance, _all, _int, _float = type, isinstance, all, int, float


def plain(value: object, depth: int = 0) -> object:
    """Tensors (exact type only), numbers, strings, lists, tuples, str-keyed dicts; anything else a marker."""
    kind = _type(value)  # type(), not isinstance(): a subclass cannot pass for a tensor or a number
    if depth > 8:
        return {"__unsupported__": "a structure nested too deeply"}
    if kind is torch.Tensor or kind is torch.nn.Parameter:
        if value.device.type != "cpu" or value.layout != torch.strided:
            return {"__unsupported__": f"a {value.layout} tensor on {value.device}"}
        return torch.Tensor.clone(torch.Tensor.detach(value)).contiguous()
    if _isinstance(value, torch.Tensor):
        return {"__unsupported__": f"a tensor subclass `{kind.__name__}`"}
    if kind in _SCALARS:
        return value
    if _isinstance(value, numbers.Integral) and not _isinstance(value, bool):
        return _int(value)
    if _isinstance(value, numbers.Real):
        return _float(value)
    if kind in (list, tuple):
        return kind([plain(item, depth + 1) for item in value])
    if kind is dict and _all(_type(key) is str for key in value):
        return {key: plain(item, depth + 1) for key, item in value.items()}
    if kind is torch.dtype:
        return {"__dtype__": str(value)}
    return {"__unsupported__": f"a {kind.__module__}.{kind.__qualname__}" if kind.__module__ != "builtins" else f"a {kind.__name__}"}
