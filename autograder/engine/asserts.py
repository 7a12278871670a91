"""The suites' assertion helpers: compare a student's value with the oracle's and say what differs, never what the
expected value is.

Each `*_mismatch` function returns None or a one-line message; each `assert_*` raises CheckFailure with it.
"""
import math

import torch

from ..i18n import N_, _, ngettext, number_text
from .mistakes import recognise
from .proxy import CheckFailure, Handle, Unsupported

# (rtol, atol): assert_close's for float32; float64's are set by the error of genuine float64 work (about 1e-15 at these
# sizes, 1e-13 after a few reductions), well below float32's rounding (about 1e-7), so that float32 work cast to float64
# is told apart.
TOLERANCES = {torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-10, 1e-10)}


def kind(value: object) -> str:
    """How to name what came back: `a list`, `a tensor subclass Foo`, `None`."""
    if isinstance(value, Handle):
        return value.kind
    if isinstance(value, Unsupported):
        return value.description
    if value is None:
        return "None"
    return _("a tuple") if isinstance(value, tuple) else _("a {type}").format(type=type(value).__name__)


def named(what: str) -> str:
    """A result's name (`the output`, marked with N_ in the suites) in the current language; the empty name stays
    empty."""
    return _(what) if what else what


def first_position(where: torch.Tensor) -> list[int]:
    """The index of the first True entry of a bool tensor that has one: [0, 2]."""
    return torch.nonzero(where)[0].tolist()


def tensor_mismatch(got: object, expected: torch.Tensor, what: str = "the output") -> str | None:
    """None when got matches expected within the dtype's tolerance; otherwise one line saying how it differs."""
    what = named(what)
    if type(got) is not torch.Tensor:
        return _("{what} came back as {kind}; expected a torch.Tensor").format(what=what, kind=kind(got))
    if got.shape != expected.shape:
        return _("{what}: shape {got}, expected {expected}").format(
            what=what, got=tuple(got.shape), expected=tuple(expected.shape)
        )
    if got.dtype != expected.dtype:
        return _("{what}: dtype {got}, expected {expected}").format(what=what, got=got.dtype, expected=expected.dtype)
    if got.numel() == 0:
        return None
    if expected.dtype in TOLERANCES:
        rtol, atol = TOLERANCES[expected.dtype]
        unexpected = ~torch.isfinite(got) & torch.isfinite(expected)
        if unexpected.any():
            position = first_position(unexpected)
            return _("{what}: {value} at position {position}, where a finite number is expected").format(
                what=what, value=got[tuple(position)].item(), position=position
            )
        wrong = ~torch.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        wrong = got != expected
    if not wrong.any():
        return None
    position = first_position(wrong)
    count = int(wrong.sum())
    if expected.dtype in TOLERANCES:
        error = (got[wrong].double() - expected[wrong].double()).abs().max().item()
        size = (
            _("infinitely")
            if math.isinf(error) or math.isnan(error)
            else _("up to {error}").format(error=number_text(error, ".3g"))
        )
        # the English is the same for one position (and stays as it was), the French is not
        return (
            ngettext(
                "{what}: {count} of {total} positions differ from the expected values, first at {position}, off by "
                "{size} (tolerance about {tolerance})",
                "{what}: {count} of {total} positions differ from the expected values, first at {position}, off by "
                "{size} (tolerance about {tolerance})",
                count,
            ).format(
                what=what, count=count, total=got.numel(), position=position, size=size, tolerance=number_text(atol)
            )
            + row_sums(got, expected)
            + single_precision(error, expected)
        )
    return ngettext(
        "{what}: {count} of {total} positions differ, first at {position}",
        "{what}: {count} of {total} positions differ, first at {position}",
        count,
    ).format(what=what, count=count, total=got.numel(), position=position)


def single_precision(error: float, expected: torch.Tensor) -> str:
    """`; an error the size of float32's rounding: ...` when a float64 result is off by no more than float32 work
    would be."""
    if expected.dtype != torch.float64 or not math.isfinite(error):
        return ""
    rtol, atol = TOLERANCES[torch.float32]
    if error > atol + rtol * expected.abs().max().item():
        return ""
    return _(
        "; an error the size of float32's rounding: is part of the work done in float32? keep float64 inputs in "
        "float64 throughout"
    )


def row_sums(got: torch.Tensor, expected: torch.Tensor) -> str:
    """`; its rows sum to 0.3 to 1.9, not 1` when expected is weights (each row, along the last axis, sums to 1) and
    got's rows do not; else the empty string."""
    if expected.dim() == 0 or expected.numel() == 0:
        return ""
    wanted, sums = expected.double().sum(dim=-1), got.double().sum(dim=-1)
    if not torch.allclose(wanted, torch.ones_like(wanted), atol=1e-4) or not torch.isfinite(sums).all():
        return ""
    if torch.allclose(sums, torch.ones_like(sums), atol=1e-4):
        return ""
    low, high = sums.min().item(), sums.max().item()
    low, high = number_text(low, ".3g"), number_text(high, ".3g")
    measured = low if low == high else _("{low} to {high}").format(low=low, high=high)
    sentence = _("; its rows sum to {measured}, not 1") if expected.dim() > 1 else _("; it sums to {measured}, not 1")
    return sentence.format(measured=measured)


def softmax_axis(got: object) -> str:
    """`; the weights sum to 1 over the head axis (dim 1), not over the keys (the last axis): ...` when got,
    attention weights (..., T, T), sum to 1 along another axis and not along the last one (sums that are not numbers
    are left out); else ""."""
    if type(got) is not torch.Tensor or got.dim() < 2 or not got.is_floating_point() or got.numel() == 0:
        return ""

    def sums_to_one(dim: int) -> bool:
        sums = got.double().sum(dim=dim)
        finite = sums[torch.isfinite(sums)]
        return finite.numel() > 0 and bool(torch.allclose(finite, torch.ones_like(finite), atol=1e-4))

    if sums_to_one(-1):
        return ""
    names = {got.dim() - 2: N_("the query axis"), 0: N_("the batch axis")} | (
        {1: N_("the head axis")} if got.dim() == 4 else {}
    )
    axes = [dim for dim in range(got.dim() - 1) if sums_to_one(dim)]
    if not axes:
        return ""
    axis = (
        _("{name} (dim {dim})").format(name=_(names[axes[0]]), dim=axes[0])
        if axes[0] in names
        else _("dim {dim}").format(dim=axes[0])
    )
    return _(
        "; the weights sum to 1 over {axis}, not over the keys (the last axis): the softmax runs over that axis; give "
        "it dim=-1"
    ).format(axis=axis)


def steady_factor(got: torch.Tensor, expected: torch.Tensor) -> float | None:
    """The factor c when got is c times expected at every entry (c far from 1, both finite, expected not all zero);
    else None."""
    if (
        got.shape != expected.shape
        or not got.is_floating_point()
        or not torch.isfinite(got).all()
        or not torch.isfinite(expected).all()
    ):
        return None
    scale = expected.double().abs().max().item()
    if scale == 0:
        return None
    factor = (got.double() * expected.double()).sum().item() / (expected.double() ** 2).sum().item()  # least squares
    if abs(factor - 1) < 1e-3 or not torch.allclose(
        got.double(), factor * expected.double(), rtol=1e-4, atol=1e-6 * scale
    ):
        return None
    return factor


def past_change(first: torch.Tensor, second: torch.Tensor, start: int, dim: int) -> str | None:
    """None when two outputs agree (beyond rounding) before position start along dim; else what changed there, such as
    `position 1 changed by up to 0.31`: the future leaked in."""
    if first.shape != second.shape:
        return _("the two outputs have shapes {first} and {second}").format(
            first=tuple(first.shape), second=tuple(second.shape)
        )
    before, after = first.narrow(dim, 0, start), second.narrow(dim, 0, start)
    moved = ~torch.isclose(before, after, atol=1e-5, equal_nan=True)  # the same test as torch.allclose
    if not moved.any():
        return None
    position = int(moved.movedim(dim, 0).flatten(1).any(dim=1).nonzero()[0])
    return _("position {position} changed by up to {change}").format(
        position=position, change=number_text((before - after).abs()[moved].max().item(), ".3g")
    )


def unmoved_from(first: torch.Tensor, second: torch.Tensor, start: int, dim: int) -> bool:
    """True when two outputs of the same shape also agree (beyond rounding) from position start on along dim, where the
    inputs differed: an output that ignores its input passes a future-blind check, and this tells it apart."""
    length = first.shape[dim] - start
    return first.shape == second.shape and bool(
        torch.isclose(
            first.narrow(dim, start, length), second.narrow(dim, start, length), atol=1e-5, equal_nan=True
        ).all()
    )


def output_mismatch(got: object, expected: object, names: tuple[str, ...]) -> str | None:
    """Compare a tensor or a tuple of tensors, named in order (`the output`, `the weights`)."""
    if len(names) == 1:
        return tensor_mismatch(got, expected, names[0])
    if not isinstance(got, (tuple, list)) or len(got) != len(names):
        return _("returned {kind}; expected a tuple ({names})").format(
            kind=kind(got), names=", ".join(named(name) for name in names)
        )
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
    value, what = as_number(got), named(what)
    if value is None:
        return _("{what} came back as {kind}; expected a number").format(what=what, kind=kind(got))
    if not math.isfinite(value):
        return _("{what} is {value}; expected a finite number").format(what=what, value=value)
    if abs(value - expected) > max(rel * abs(expected), abs_):
        off = number_text(abs(value - expected) / max(abs(expected), 1e-300), ".1%")
        return _("{what} is off by {off} of the expected value").format(what=what, off=off)
    return None


def same(got: object, value: object, rel: float | None = None, abs_: float = 0.0) -> bool:
    """True when got equals value: tensors (or tuples of them) within the dtype's tolerance, numbers within rel or
    abs_."""
    if isinstance(value, (tuple, list)):
        return (
            isinstance(got, (tuple, list))
            and len(got) == len(value)
            and all(same(g, v, rel, abs_) for g, v in zip(got, value))
        )
    if type(value) is torch.Tensor:
        return tensor_mismatch(got, value) is None
    if type(value) in (int, float):
        return type(got) in (int, float) and number_mismatch(got, value, "", 1e-9 if rel is None else rel, abs_) is None
    return False


def naming(got: object, rel: float | None = None, abs_: float = 0.0) -> tuple[str, str, str, frozenset[str]]:
    """(`; this matches a known mistake: ...` or "", how the bank judged got: `named`, `unsettled` or "", the named
    mistake's id, the ids of the mistakes this result rules out): got, the latest call's result, compared with what
    each mistake of the bank returns on the same input (numbers within rel or abs_)."""
    found = recognise(got, lambda a, b: same(a, b, rel, abs_))
    if found.mistake is None:
        return "", "unsettled" if found.unsettled else "", "", found.refuted
    # French puts a no-break space before the semicolon
    sentence = _("; {mistake}").format(mistake=found.bank.sentence(found.mistake))
    return sentence, "named", found.bank.name(found.mistake), found.refuted


def known_mistake(got: object, rel: float | None = None, abs_: float = 0.0) -> str:
    """`; this matches a known mistake: ...` when got, the latest call's result, is what a mistake of the bank
    returns on the same input (numbers compared within rel or abs_), and the input tells that mistake apart; else the
    empty string."""
    return naming(got, rel, abs_)[0]


def _fail(problem: str | None, compared: tuple | None = None, judged: tuple = ("", "", "", frozenset())) -> None:
    """Raise the CheckFailure of problem, which ends with judged's sentence (judged: what naming() said)."""
    __tracebackhide__ = True  # pytest shows the test's line, not the helper's
    if problem:
        sentence, naming_, named, refutes = judged
        raise CheckFailure(problem, compared=compared, naming=naming_, named=named, refutes=refutes, sentence=sentence)


def assert_same(got: object, expected: object, names: str | tuple[str, ...] = "the output") -> None:
    """got equals expected (a tensor, or a tuple of tensors named in order) within the dtype's tolerance."""
    __tracebackhide__ = True
    names = (names,) if isinstance(names, str) else names
    problem = output_mismatch(got, expected, names)
    if problem:
        judged = naming(got)
        weights = [
            part
            for part, name in zip(got if isinstance(got, (tuple, list)) else (got,), names)
            if name == N_("the weights")
        ]
        _fail(
            problem + (judged[0] or "".join(softmax_axis(part) for part in weights[:1])), (got, expected, names), judged
        )


def assert_number(got: object, expected: float, what: str, rel: float = 1e-9, abs_: float = 0.0) -> None:
    """got is a number within rel (relative) or abs_ of expected."""
    __tracebackhide__ = True
    problem = number_mismatch(got, expected, what, rel, abs_)
    if problem:
        judged = naming(got, rel, abs_)
        _fail(problem + judged[0], judged=judged)


def assert_future_blind(first: torch.Tensor, second: torch.Tensor, start: int, dim: int, what: str) -> None:
    """Two outputs agree before position start along dim (the inputs differed only from start on); what: the failure,
    to which the change measured is added."""
    __tracebackhide__ = True
    change = past_change(first, second, start, dim)
    _fail(change and f"{named(what)} ({change})")
