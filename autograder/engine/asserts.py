"""The suites' assertion helpers: compare a student's value with the oracle's and say what differs, never what the expected value is.

Each `*_mismatch` function returns None or a one-line message; each `assert_*` raises CheckFailure with it.
"""
import math

import torch

from .mistakes import known
from .proxy import CheckFailure, Handle, Unsupported

TOLERANCES = {torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7)}  # (rtol, atol): assert_close's defaults


def kind(value: object) -> str:
    """How to name what came back: `a list`, `a tensor subclass Foo`, `None`."""
    if isinstance(value, Handle):
        return value.kind
    if isinstance(value, Unsupported):
        return value.description
    if value is None:
        return "None"
    return "a tuple" if isinstance(value, tuple) else f"a {type(value).__name__}"


def tensor_mismatch(got: object, expected: torch.Tensor, what: str = "the output") -> str | None:
    """None when got matches expected within the dtype's tolerance; otherwise one line saying how it differs."""
    if type(got) is not torch.Tensor:
        return f"{what} came back as {kind(got)}; expected a torch.Tensor"
    if got.shape != expected.shape:
        return f"{what}: shape {tuple(got.shape)}, expected {tuple(expected.shape)}"
    if got.dtype != expected.dtype:
        return f"{what}: dtype {got.dtype}, expected {expected.dtype}"
    if got.numel() == 0:
        return None
    if expected.dtype in TOLERANCES:
        rtol, atol = TOLERANCES[expected.dtype]
        unexpected = ~torch.isfinite(got) & torch.isfinite(expected)
        if unexpected.any():
            position = tuple(torch.nonzero(unexpected)[0].tolist())
            return f"{what}: {got[position].item()} at position {list(position)}, where a finite number is expected"
        wrong = ~torch.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        wrong = got != expected
    if not wrong.any():
        return None
    position = tuple(torch.nonzero(wrong)[0].tolist())
    count = int(wrong.sum())
    if expected.dtype in TOLERANCES:
        error = (got[wrong].double() - expected[wrong].double()).abs().max().item()
        size = "infinitely" if math.isinf(error) or math.isnan(error) else f"up to {error:.3g}"
        return f"{what}: {count} of {got.numel()} positions differ from the expected values, first at {list(position)}, off by {size} (tolerance about {atol:g})"
    return f"{what}: {count} of {got.numel()} positions differ, first at {list(position)}"


def past_changed(first: torch.Tensor, second: torch.Tensor, start: int, dim: int) -> bool:
    """True when two outputs differ (beyond rounding) at a position before start along dim: the future leaked in."""
    return first.shape != second.shape or not torch.allclose(first.narrow(dim, 0, start), second.narrow(dim, 0, start), atol=1e-5)


def output_mismatch(got: object, expected: object, names: tuple[str, ...]) -> str | None:
    """Compare a tensor or a tuple of tensors, named in order (`the output`, `the weights`)."""
    if len(names) == 1:
        return tensor_mismatch(got, expected, names[0])
    if not isinstance(got, (tuple, list)) or len(got) != len(names):
        return f"returned {kind(got)}; expected a tuple ({', '.join(names)})"
    for part, reference, name in zip(got, expected, names):
        problem = tensor_mismatch(part, reference, name)
        if problem:
            return problem
    return None


def as_number(got: object) -> float | None:
    """A returned Python number, or a one-element tensor, as a float; None when it is neither."""
    if type(got) in (int, float):
        return float(got)
    if type(got) is torch.Tensor and got.numel() == 1 and not got.dtype.is_complex:
        return float(got.item())
    return None


def number_mismatch(got: object, expected: float, what: str, rel: float = 1e-9, abs_: float = 0.0) -> str | None:
    """None when got is a number within rel (relative) or abs_ of expected."""
    value = as_number(got)
    if value is None:
        return f"{what} came back as {kind(got)}; expected a number"
    if not math.isfinite(value):
        return f"{what} is {value}; expected a finite number"
    if abs(value - expected) > max(rel * abs(expected), abs_):
        return f"{what} is off by {abs(value - expected) / max(abs(expected), 1e-300):.1%} of the expected value"
    return None


def same(got: object, value: object, rel: float | None = None, abs_: float = 0.0) -> bool:
    """True when got equals value: tensors (or tuples of them) within the dtype's tolerance, numbers within rel or abs_."""
    if isinstance(value, (tuple, list)):
        return isinstance(got, (tuple, list)) and len(got) == len(value) and all(same(g, v, rel, abs_) for g, v in zip(got, value))
    if type(value) is torch.Tensor:
        return tensor_mismatch(got, value) is None
    if type(value) in (int, float):
        return type(got) in (int, float) and number_mismatch(got, value, "", 1e-9 if rel is None else rel, abs_) is None
    return False


def known_mistake(got: object, rel: float | None = None, abs_: float = 0.0) -> str:
    """`; this matches a known mistake: ...` when got, the latest call's result, is what a mistake of the bank returns
    on the same input (numbers compared within rel or abs_); else the empty string."""
    sentence = known(got, lambda a, b: same(a, b, rel, abs_))
    return f"; {sentence}" if sentence else ""


def _fail(problem: str | None) -> None:
    __tracebackhide__ = True  # pytest shows the test's line, not the helper's
    if problem:
        raise CheckFailure(problem)


def assert_same(got: object, expected: object, names: str | tuple[str, ...] = "the output") -> None:
    """got equals expected (a tensor, or a tuple of tensors named in order) within the dtype's tolerance."""
    __tracebackhide__ = True
    problem = output_mismatch(got, expected, (names,) if isinstance(names, str) else names)
    _fail(problem and problem + known_mistake(got))


def assert_number(got: object, expected: float, what: str, rel: float = 1e-9, abs_: float = 0.0) -> None:
    """got is a number within rel (relative) or abs_ of expected."""
    __tracebackhide__ = True
    problem = number_mismatch(got, expected, what, rel, abs_)
    _fail(problem and problem + known_mistake(got, rel, abs_))


def assert_future_blind(first: torch.Tensor, second: torch.Tensor, start: int, dim: int, what: str) -> None:
    """Two outputs agree before position start along dim (the inputs differed only from start on)."""
    __tracebackhide__ = True
    _fail(what if past_changed(first, second, start, dim) else None)
