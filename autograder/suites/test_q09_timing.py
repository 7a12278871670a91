"""Question 9: time_attention under a virtual clock, fit_exponent, scores_bytes, attention_flops."""
import bisect
import math
from typing import Callable

import pytest
import torch

from autograder.engine.asserts import as_number, kind, known_mistake, number_mismatch
from autograder.engine.inputs import case
from autograder.engine.proxy import CallRecord, Student, StudentError
from autograder.i18n import N_, _, number_text
from autograder.recording.recorded import NotRecorded
from autograder.sandbox.child.clock import BURST_SIZE
from reference import cost

# its import hard-links a probe file (filelock 4.1, on Python 3.10): before the guard
pytestmark = pytest.mark.preload("torch.utils.benchmark")

NOISY_T = [64, 128, 256, 512, 1024, 2048]
NOISY_SECONDS = [3e-5, 2.2e-4, 4.1e-4, 2.6e-3, 6.0e-3, 4.4e-2]
TIMINGS = [case(T=64, d=32, repeats=5), case(T=128, d=64, repeats=5), case(T=96, d=48, repeats=7)]
FITS = [case(Ts=[16, 32, 64, 128], seconds=[1.0, 4.0, 16.0, 64.0]), case(Ts=NOISY_T, seconds=NOISY_SECONDS),
        case(Ts=[10, 100, 1000], seconds=[0.5, 0.2, 3.0])]
BYTES = [case(args=args) for args in ((1,), (1000,), (4096,), (300, torch.float64), (64, torch.float16))]
FLOPS = [case(T=T, d=d) for T, d in ((1, 1), (5, 3), (128, 64), (1000, 16))]
# real timings for the note: as many T as fit in the budget
WALL = {"Ts": [256, 512, 1024, 2048], "d": 64, "budget": 1.5}
# a figure 10**power times one forward
UNITS = ((3, N_("milliseconds")), (6, N_("microseconds")), (9, N_("nanoseconds")))
CLOCK_GRAIN = 2e-6  # seconds: a datetime reading is rounded to the microsecond


def _timed(readings: list[float]) -> list[float]:
    """The intervals a stopwatch loop measured: each odd reading minus the one before it (start, stop, start, stop,
    ...)."""
    return [stop - start for start, stop in zip(readings[0::2], readings[1::2])]


def _equals(value: float, candidate: float, grain: float = 2e-9) -> bool:
    """value is candidate, up to the rounding of a float sum and of a clock that counts in steps of grain (a
    nanosecond)."""
    return abs(value - candidate) <= 1e-6 * abs(candidate) + grain


def _per_forward(record: CallRecord, T: int, d: int) -> list[float]:
    """Sorted: for each interval between two successive clock readings in which T x T score tables over d ran
    (attention on (T, d) inputs), its length divided by how many ran."""
    spans = []
    for start, stop, tables in zip(record.readings, record.readings[1:], record.tables):
        count = sum(entry[2] for entry in tables if isinstance(entry, list) and len(entry) == 3 and entry[:2] == [T, d])
        if count > 0:
            spans.append((stop - start) / count)
    return sorted(spans)


def _forwards(record: CallRecord, T: int, d: int, first: int, last: int | None = None) -> int:
    """How many T x T score tables over d (attention forwards on (T, d) inputs) ran between readings first and last
    (first + 1 when not given)."""
    return sum(entry[2] for tables in record.tables[first:first + 1 if last is None else last] for entry in tables
               if isinstance(entry, list) and len(entry) == 3 and entry[:2] == [T, d])


def _measured(value: float, spans: list[float]) -> bool:
    """value is one of spans or the mean of two of them (the median of an even number of repeats), up to a clock's
    grain."""
    for first in spans:
        at = bisect.bisect_left(spans, 2 * value - first - 2 * CLOCK_GRAIN)
        if any(_equals(value, (first + second) / 2, CLOCK_GRAIN) for second in spans[at:at + 3]):
            return True
    return False


@pytest.mark.points(3)
@pytest.mark.parametrize("T, d, repeats", TIMINGS)
def test_time_attention(student: Student, T: int, d: int, repeats: int) -> None:
    """time_attention reports one forward, robust to noise"""
    # work per virtual second, a function of the input
    with student.virtual_clock("time_attention", T, d, repeats) as speed:
        value = student.time_attention(T, d=d, repeats=repeats)
        record = student.last  # how often that call read the clock, what it read, and the attention that ran in between
    assert type(value) in (int, float), _("time_attention returned {kind}; expected a float number of seconds").format(
        kind=kind(value)
    )
    assert record.reads >= 2, _(
        "time_attention's figure did not come from reading a clock before and after the attention call"
    )
    one_forward = 4 * T**2 * d / speed
    ratio = value / one_forward
    if 0.97 <= ratio <= 1.3:
        assert _measured(value, _per_forward(record, T, d)), _(
            "the figure is not a time your clock measured: it matches no interval between two readings in which "
            "attention on (T, d) inputs ran; time the attention and return what you measured"
        )
        return
    timed = _timed(record.readings)
    readings = record.readings
    in_timed = sum(_forwards(record, T, d, index) for index in range(0, 2 * len(timed), 2))
    totals = (
        [(sum(timed), in_timed), (readings[-1] - readings[0], _forwards(record, T, d, 0, len(readings) - 1))]
        if timed
        else []
    )
    together = next((count for span, count in totals if count > 1 and _equals(value, span)), 0)
    if together:  # what was measured is several forwards, added up
        raise AssertionError(
            _(
                "the figure is the time of all {count} forwards you timed, added up: return the time of one forward "
                "(the minimum or the median of the repeats), not the total"
            ).format(count=together)
        )
    runs = [index for index in range(len(readings) - 1) if _forwards(record, T, d, index) == 1]
    if ratio > 1.3 and any(_equals(value, readings[index + 1] - readings[index], CLOCK_GRAIN) for index in runs):
        raise AssertionError(
            (
                _(
                    "the figure is the one forward you timed, {ratio} times one forward's work: a single run counts "
                    "whatever burst of interference or cold start hit it; time several repeats after a warm-up and "
                    "keep the minimum or the median"
                )
                if len(runs) == 1
                else _(
                    "the figure is one of your {count} timed forwards, {ratio} times one forward's work: a burst of "
                    "interference or a cold start hit it; keep the minimum or the median of the repeats"
                )
            ).format(ratio=number_text(ratio, ".1f"), count=len(runs))
        )
    # a mean may hold a burst
    unit = next((name for power, name in UNITS if 0.5 <= ratio / 10**power <= BURST_SIZE + 2), None)
    if unit is not None:
        raise AssertionError(
            _("the figure looks like {unit}: return seconds, as time.perf_counter gives them").format(unit=_(unit))
        )
    if len(timed) > 1 and _equals(value, sum(timed) / len(timed)):
        raise AssertionError(
            _(
                "the figure is {ratio} times one forward: it is the mean of your timed repeats, which the bursts of "
                "interference pull up (up to {burst}x); keep the minimum or the median"
            ).format(ratio=number_text(ratio, ".1f"), burst=number_text(BURST_SIZE + 1))
        )
    assert ratio <= 1.3, _(
        "the figure is {ratio} times one forward of random (T, d) inputs: a noisy or cold run got in, or more "
        "work than one forward was timed; time each repeat on its own after a warm-up and keep the minimum or the "
        "median (a mean is pulled up by bursts up to {burst}x)"
    ).format(ratio=number_text(ratio, ".1f"), burst=number_text(BURST_SIZE + 1))
    raise AssertionError(
        _(
            "the figure is {ratio} times the work of one forward: run the attention between the two clock readings"
        ).format(ratio=number_text(ratio, ".2f"))
    )


@pytest.mark.points(2)
@pytest.mark.parametrize("Ts, seconds", FITS)
def test_fit_exponent(student: Student, Ts: list[int], seconds: list[float]) -> None:
    """fit_exponent is a least-squares slope in log-log space"""
    got = student.fit_exponent(Ts, seconds)
    problem = number_mismatch(got, cost.fit_exponent(Ts, seconds), N_("the exponent"), rel=1e-6)
    assert not problem, problem + (
        known_mistake(got, rel=1e-6) or _(" (fit a least-squares line to every point in log-log space)")
    )


def _exact_int(got: object, expected: int, factors: str) -> None:
    """got is the int expected, else a failure that names the factors to check but does not give the count away."""
    assert type(got) is int, _("returned {kind}; expected an int").format(kind=kind(got))
    if got != expected:
        # named, the count is left out: with the mistake's factor it would give the answer away
        mistake = known_mistake(got)
        raise AssertionError(
            _("the count returned is not the right one") + mistake
            if mistake
            else _("returned {got}, which is not the right count").format(got=got)
            + _(" (check each factor: {factors})").format(factors=_(factors))
        )


@pytest.mark.points(1.5)
@pytest.mark.parametrize("args", BYTES)
def test_scores_bytes(student: Student, args: tuple) -> None:
    """scores_bytes counts T * T entries of the dtype"""
    _exact_int(
        student.scores_bytes(*args),
        cost.scores_bytes(*args),
        N_("T queries, T keys, the bytes of one entry of the dtype"),
    )


@pytest.mark.points(1.5)
@pytest.mark.parametrize("T, d", FLOPS)
def test_attention_flops(student: Student, T: int, d: int) -> None:
    """attention_flops counts both matrix products"""
    _exact_int(student.attention_flops(T, d), cost.attention_flops(T, d), N_("T, d, both products, 2 per multiply-add"))


def _vouched_fit(student: Student, Ts: list[int], seconds: list[float]) -> float | None:
    """The student's fit_exponent of the timings, when it agrees with the recorded reference on every public fit (FITS);
    None when it does not, raises, or gives no finite number."""
    try:
        if any(
            number_mismatch(
                student.fit_exponent(*fit.values), cost.fit_exponent(*fit.values), N_("the exponent"), rel=1e-6
            )
            for fit in FITS
        ):
            return None
        exponent = as_number(student.fit_exponent(Ts, seconds))
    except StudentError:
        return None
    return exponent if exponent is not None and math.isfinite(exponent) else None


def _trend(student: Student, Ts: list[int], seconds: list[float]) -> str:
    """The note's trend: `; time grows like T^p` by the reference fit. The student build holds no reference fit of
    timings measured on the student's machine (it cannot be recorded): there the student's own fit_exponent gives
    it, when it agrees with the reference on the public fits, and the note says whose figure it is."""
    if len(Ts) < 2 or min(seconds) <= 0:
        return ""
    try:
        return _("; time grows like T^{exponent}").format(exponent=number_text(cost.fit_exponent(Ts, seconds), ".2f"))
    except NotRecorded:
        pass
    exponent = _vouched_fit(student, Ts, seconds)
    if exponent is None:
        return _(
            "; the trend T^p is left out: your copy of the kit has no reference fit for timings measured on your "
            "machine, and your fit_exponent does not pass its checks yet"
        )
    return _(
        "; time grows like T^{exponent} by your fit_exponent (it passes its checks; your copy of the kit has no "
        "reference fit for timings measured on your machine)"
    ).format(exponent=number_text(exponent, ".2f"))


@pytest.mark.ungraded
def test_wall_time_note(student: Student, note: Callable[[str], None]) -> None:
    """time_attention on the real clock: a note under the question, never graded"""
    measured = student.wall_times("time_attention", WALL["Ts"], WALL["d"], WALL["budget"])
    Ts, seconds = measured["Ts"], measured["seconds"]
    figures = ", ".join(_("T={T}: {ms} ms").format(T=T, ms=number_text(s * 1e3, ".2f")) for T, s in zip(Ts, seconds))
    note(
        _("your time_attention on this machine's real clock (not graded): {figures}").format(figures=figures)
        + _trend(student, Ts, seconds)
    )
