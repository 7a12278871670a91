"""Question 8: read, read_grad (by hand, checked against autograd), numerical_grad."""
import math
import random

import pytest
import torch

from autograder.engine.asserts import assert_same, kind, steady_factor
from autograder.engine.inputs import case, draw, randn, seed
from autograder.engine.proxy import Student
from autograder.i18n import N_, _, number_text
from autograder.sandbox.child.helpers import FUNCTIONS
from reference import additive


def _read_input(rng: random.Random, with_g: bool) -> dict:
    T, d = rng.randint(1, 6), rng.randint(1, 5)
    kind_, start = rng.choice([torch.float32, torch.float64]), seed(rng)
    values = {"e": randn(T, seed=start, dtype=kind_, scale=2.0), "H": randn(T, d, seed=start + 1, dtype=kind_)}
    if with_g:
        values["g"] = randn(d, seed=start + 2, dtype=kind_)
    return values


# f: a known scalar function kept in the child (autograder/sandbox/child/helpers.py); eps None: numerical_grad's
# default.
NUMERICAL = [
    case(f="cubic", x=randn(3, seed=801, dtype=torch.float64), eps=None),
    case(f="cubic", x=randn(2, 3, seed=802, dtype=torch.float64), eps=1e-3),
    case(f="sin_exp", x=randn(4, seed=803, dtype=torch.float64), eps=0.3),
    case(f="read_loss", x=randn(5, seed=804, dtype=torch.float64), eps=None),
    case(f="quartic", x=randn(2, 2, seed=805, dtype=torch.float64), eps=0.25),
]
def _nudged(points: object, x: torch.Tensor, eps: float | None) -> str:
    """What the points f was evaluated at show about the first entry's nudges, when they are not x + eps and x - eps:
    f seen at x + h and x itself only, or at x +- h with h not eps; else "". (The points are copies the known
    function kept.)"""
    if not isinstance(points, list):
        return ""
    steps: list[float] = []
    at_x = False
    for point in points:
        if type(point) is not torch.Tensor or point.shape != x.shape:
            continue
        moved = (point.double() - x.double()).flatten()
        # x + eps - eps is x, rounded
        moved = torch.where(moved.abs() <= 1e-12 * (1 + x.double().abs().flatten()), 0.0, moved)
        at_x = at_x or not bool(moved.any())
        if (
            moved.numel()
            and moved[0] != 0
            and not bool(moved[1:].any())
            and not any(math.isclose(moved[0].item(), s, rel_tol=1e-6) for s in steps)
        ):
            steps.append(moved[0].item())
    step = 1e-6 if eps is None else eps  # the default numerical_grad's signature gives
    if len(steps) == 1 and at_x:
        h = steps[0]
        return _(
            "numerical_grad evaluates f at x {sign} {h} (entry 0) and at x itself, never at x {other} {h}: central "
            "differences need both f(x + eps) and f(x - eps)"
        ).format(sign="+" if h > 0 else "-", other="-" if h > 0 else "+", h=number_text(abs(h), ".3g"))
    if len(steps) == 2 and eps is not None:
        low, high = sorted(steps)
        if low < 0 < high and math.isclose(-low, high, rel_tol=1e-3) and not math.isclose(high, step, rel_tol=1e-3):
            return _(
                "numerical_grad evaluates f at x +- {h} (entry 0); with eps={eps} the points are x + eps and x - eps"
            ).format(h=number_text(high, ".3g"), eps=number_text(step, ".3g"))
    return ""


@pytest.mark.points(2)
@pytest.mark.parametrize("e, H", draw(801, 10, lambda rng: _read_input(rng, False)))
def test_read(student: Student, e: torch.Tensor, H: torch.Tensor) -> None:
    """read returns softmax weights and their context"""
    assert_same(student.read(e, H), additive.read(e, H), (N_("the weights a"), N_("the context c")))


@pytest.mark.points(4)
@pytest.mark.forbid("torch.autograd")
@pytest.mark.parametrize("e, H, g", draw(802, 12, lambda rng: _read_input(rng, True)))
def test_read_grad(student: Student, e: torch.Tensor, H: torch.Tensor, g: torch.Tensor) -> None:
    """read_grad, written by hand, matches the gradient"""
    with student.no_grad():
        got = student.read_grad(e, H, g)
    assert_same(got, additive.read_grad(e, H, g))


@pytest.mark.points(4)
@pytest.mark.parametrize("f, x, eps", NUMERICAL)
def test_numerical_grad(student: Student, f: str, x: torch.Tensor, eps: float | None) -> None:
    """numerical_grad matches the exact gradient"""
    function = FUNCTIONS[f]
    if eps is None:
        expected, tolerance = additive.autograd_grad(function, x), 1e-6
    else:
        expected, tolerance = additive.central_difference(function, x, eps), 1e-7
    known = student.known_function(f)
    got = student.numerical_grad(known, x, **({} if eps is None else {"eps": eps}))
    assert type(got) is torch.Tensor, _("numerical_grad returned {kind}; expected a torch.Tensor").format(
        kind=kind(got)
    )
    assert got.shape == x.shape and got.dtype == torch.float64, _(
        "numerical_grad returned {dtype} {shape}; expected float64 {expected} like x"
    ).format(dtype=got.dtype, shape=tuple(got.shape), expected=tuple(x.shape))
    error = (got - expected).abs().max().item()
    if not error <= tolerance * (1 + expected.abs().max().item()):
        position = torch.nonzero((got - expected).abs() == error)
        where = _(", worst at {position}").format(position=position[0].tolist()) if len(position) else ""
        factor = steady_factor(got, expected)
        nudged = _nudged(known.points, x, eps)
        if nudged:
            raise AssertionError(
                nudged
                + (
                    _(
                        "; the difference is divided by 2 eps as for central differences: if you saved x[i] before "
                        "nudging it, that is a view of x that the nudge changed too: save x[i].item() or a clone"
                    )
                    if factor is not None and abs(factor - 0.5) < 0.05
                    else ""
                )
            )
        if factor is not None:
            raise AssertionError(
                _(
                    "numerical_grad is {factor} times the gradient at every entry: check the step you nudge x by and "
                    "what you divide by, (f(x+eps) - f(x-eps)) / (2 eps)"
                ).format(factor=number_text(factor, ".3g"))
            )
        raise AssertionError(
            _(
                "numerical_grad is off by {error}{where}: use central differences (f(x+eps) - f(x-eps)) / (2 eps) with "
                "the given eps"
            ).format(error=number_text(error, ".2g"), where=where)
        )
