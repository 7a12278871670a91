"""Known mistakes: when a comparison fails, the grader replays the student's call on wrong versions of the answer.

Each question may have a bank, autograder/suites/mistakes/qNN.py, holding `BANK`: the right answer of each function
and the mistakes students really make, each a small variant of it. When a check finds that the student's result
differs, `known` reruns every variant of the function on the same arguments, here in the grading process (variants
are the grader's code; the student's code never runs here). A variant whose result equals the student's names the
mistake only when the input tells it apart from the right answer and from every other variant of the bank: it differs
from the right answer where it is a number (NaN, which every way of hiding all keys gives, is no evidence), and no other
variant matches. Otherwise the input is *unsettled* (a match that proves nothing), and the check may look at its next
input. A variant that does not apply to an input (it raises) is skipped.
"""
import importlib
import warnings
from dataclasses import dataclass, field
from typing import Callable

import torch

from ..i18n import _
from .proxy import Call, latest_call

BANKS = "autograder.suites.mistakes"


@dataclass(frozen=True)
class Mistake:
    """A mistake students make: one line saying what is wrong, the hint that helps, and what it returns."""

    name: str  # unique in its bank: q03.softmax_query_axis is `softmax_query_axis` in the bank of question 3
    explanation: str  # marked with N_ where the bank defines it, translated when shown
    hint: int  # the number of the hint, as `python -m autograder hint N` numbers them
    variants: dict[str, Callable[..., object]]  # the student's function (or class) -> its result with this mistake
    hint_of: int | None = None  # the question whose hint helps, when it is not the bank's own


@dataclass(frozen=True)
class Bank:
    """A question's right answers, by the name of the student's function (or class), and its known mistakes."""

    question: int
    correct: dict[str, Callable[..., object]]
    mistakes: tuple[Mistake, ...]

    def name(self, mistake: Mistake) -> str:
        """`q03.softmax_query_axis`: the mistake's name across the course."""
        return f"q{self.question:02d}.{mistake.name}"

    def sentence(self, mistake: Mistake) -> str:
        """What the student reads, in the current language: the explanation and the hint to open."""
        return _(
            "this matches a known mistake: {explanation} (see `python -m autograder hint {question}`, hint {hint})"
        ).format(explanation=_(mistake.explanation), question=mistake.hint_of or self.question, hint=mistake.hint)


@dataclass(frozen=True)
class Built:
    """An object of the student's class, as the grader built it: its constructor's arguments and the weights loaded."""

    args: tuple
    kwargs: dict
    state: dict[str, torch.Tensor] = field(default_factory=dict)


def bank(number: int) -> Bank | None:
    """The bank of question number, or None when it has none."""
    try:
        module = importlib.import_module(f"{BANKS}.q{number:02d}")
    except ModuleNotFoundError:
        return None
    return module.BANK


def replayed(call: Call) -> tuple[str, tuple, dict] | None:
    """(function name, args, kwargs) to give the bank for call; a call on an object of the student's class gets the
    Built object first. None when the object's constructor call is unknown."""
    if isinstance(call.target, str):
        return call.target, call.args, call.kwargs
    made = call.student.made.get(call.target)
    if made is None or not isinstance(made.target, str):
        return None
    built = Built(made.args, made.kwargs, call.student.loaded.get(call.target, {}))
    return made.target, (built, *call.args), call.kwargs


def _quietly(function: Callable[..., object], args: tuple, kwargs: dict) -> object:
    """function(*args, **kwargs) with warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@dataclass(frozen=True)
class Recognition:
    """What the bank says of a result: the mistake it names, if any, and whether the input left the question open."""

    bank: Bank | None = None
    mistake: Mistake | None = None
    # a variant matched, but this input cannot tell it from the right answer or from another variant
    unsettled: bool = False
    # the mistakes (`q07.softmax_over_states`) whose variant ran here and did not give got
    refuted: frozenset[str] = frozenset()


def _numbers_only(wrong: object, right: object) -> object:
    """wrong with each NaN replaced by right's value there: what is left is the evidence a result gives."""
    if isinstance(wrong, (tuple, list)) and isinstance(right, (tuple, list)) and len(wrong) == len(right):
        return type(wrong)(_numbers_only(w, r) for w, r in zip(wrong, right))
    if (
        type(wrong) is torch.Tensor
        and type(right) is torch.Tensor
        and wrong.shape == right.shape
        and wrong.dtype == right.dtype
        and wrong.is_floating_point()
    ):
        return torch.where(torch.isnan(wrong), right, wrong)
    return wrong


def _far(got: object, wrong: object) -> bool:
    """True when got is not wrong even at float32's rounding: evidence against the mistake, not a second, smaller bug
    such as float32 work on float64 inputs."""
    if isinstance(got, (tuple, list)) and isinstance(wrong, (tuple, list)):
        return len(got) != len(wrong) or any(_far(g, w) for g, w in zip(got, wrong))
    if type(got) is torch.Tensor and type(wrong) is torch.Tensor:
        if got.shape != wrong.shape or got.dtype.is_floating_point != wrong.dtype.is_floating_point:
            return True
        if not got.dtype.is_floating_point:
            return not torch.equal(got, wrong)
        return not torch.allclose(got.double(), wrong.double(), rtol=1e-3, atol=1e-4, equal_nan=True)
    if type(got) in (int, float) and type(wrong) in (int, float):
        return abs(got - wrong) > 1e-3 * max(1.0, abs(wrong))
    return type(got) is not type(wrong) or not isinstance(got, (str, bool, type(None))) or got != wrong


def recognise(got: object, same: Callable[[object, object], bool]) -> Recognition:
    """The bank and the one mistake whose variant returns got on the arguments of the call that returned got, where the
    input tells that variant apart from the right answer (by its numbers, not its NaNs) and from every other variant;
    unsettled when a variant matches but the input cannot tell; empty when got is not the latest call's result."""
    call = latest_call()
    if call is None or call.value is not got:
        return Recognition()
    found, replay = bank(call.student._question.number), replayed(call)
    if found is None or replay is None or replay[0] not in found.correct:
        return Recognition()
    name, args, kwargs = replay
    right: list[object] = []
    matches, unsettled, refuted = [], False, set()
    for mistake in found.mistakes:
        variant = mistake.variants.get(name)
        if variant is None:
            continue
        try:
            wrong = _quietly(variant, args, kwargs)
            right = right or [_quietly(found.correct[name], args, kwargs)]
        except Exception:  # noqa: BLE001 - a variant that does not apply to this input is skipped
            continue
        if not same(got, wrong):
            if _far(got, wrong):  # a student who made this mistake would have returned wrong here (beyond rounding)
                refuted.add(found.name(mistake))
            continue
        if same(_numbers_only(wrong, right[0]), right[0]):
            unsettled = True  # it agrees with the right answer wherever it gives a number: this input proves nothing
        else:
            matches.append(mistake)
    if len(matches) == 1 and not unsettled:
        return Recognition(found, matches[0], refuted=frozenset(refuted))
    # two mistakes that agree here: naming one could mislead
    return Recognition(found, None, unsettled or len(matches) > 1, frozenset(refuted))


def known(got: object, same: Callable[[object, object], bool]) -> str | None:
    """`this matches a known mistake: ... (see ...)` for got, or None; same(a, b) says whether two results agree."""
    found = recognise(got, same)
    return found.bank.sentence(found.mistake) if found.mistake else None


def named_in(number: int, message: str) -> str:
    """The id (`q03.softmax_query_axis`) of the known mistake of question number whose sentence message holds, or ""."""
    found = bank(number) if message else None
    if found is None:
        return ""
    return next((found.name(mistake) for mistake in found.mistakes if found.sentence(mistake) in message), "")
