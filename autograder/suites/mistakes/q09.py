"""Known mistakes of question 9: the fitted exponent, the bytes of the scores, the FLOPs of attention."""
import math
import statistics
import sys

import torch

from autograder.engine.mistakes import Bank, Mistake
from autograder.i18n import N_
from reference import cost


def _slope(xs: list[float], ys: list[float]) -> float:
    """The least-squares slope of ys against xs."""
    return statistics.linear_regression(xs, ys).slope


def _logs(values: list[float]) -> list[float]:
    """Natural logarithms of values."""
    return [math.log(value) for value in values]


def _intercept(Ts: list[int], seconds: list[float]) -> float:
    """The intercept of the least-squares line through (log T, log seconds)."""
    xs, ys = _logs(Ts), _logs(seconds)
    return sum(ys) / len(ys) - cost.fit_exponent(Ts, seconds) * sum(xs) / len(xs)


BANK = Bank(
    9,
    {"fit_exponent": cost.fit_exponent, "scores_bytes": cost.scores_bytes, "attention_flops": cost.attention_flops},
    (
        Mistake(
            "fit_two_point",
            N_(
                "the slope is taken between the first and the last points only; fit a least-squares line "
                "through all of them"
            ),
            2,
            {
                "fit_exponent": lambda Ts, seconds: (
                    (math.log(seconds[-1]) - math.log(seconds[0])) / (math.log(Ts[-1]) - math.log(Ts[0]))
                )
            },
        ),
        Mistake(
            "fit_axes_swapped",
            N_("log T is regressed on log seconds, which gives about 1 / p; put log T on the x axis"),
            2,
            {"fit_exponent": lambda Ts, seconds: _slope(_logs(seconds), _logs(Ts))},
        ),
        Mistake(
            "fit_no_logs",
            N_("the line is fitted to the raw T and seconds; fit it to their logarithms"),
            2,
            {"fit_exponent": lambda Ts, seconds: _slope([float(T) for T in Ts], list(seconds))},
        ),
        Mistake(
            "fit_returns_intercept",
            N_("the intercept of the fitted line is returned, not its slope"),
            2,
            {"fit_exponent": _intercept},
        ),
        Mistake(
            "fit_mixed_log_bases",
            N_("T and the seconds get logarithms of different bases; use the same for both"),
            2,
            {"fit_exponent": lambda Ts, seconds: _slope(_logs(Ts), [math.log10(s) for s in seconds])},
        ),
        Mistake(
            "bytes_ignore_dtype",
            N_("every entry is counted as 4 bytes; the size depends on the dtype"),
            3,
            {"scores_bytes": lambda T, dtype=torch.float32: T * T * 4},
        ),
        Mistake(
            "bytes_getsizeof",
            N_("sys.getsizeof adds the Python object's own overhead to the data"),
            3,
            {"scores_bytes": lambda T, dtype=torch.float32: sys.getsizeof(torch.empty(T, T, dtype=dtype))},
        ),
        Mistake(
            "flops_half",
            N_(
                "the count is half the right one: a multiply-add is 2 flops (a multiplication and an addition), "
                "and there are two products (q k^T and weights v); one of the two is left out"
            ),
            3,
            {"attention_flops": lambda T, d: 2 * T * T * d},
        ),
        Mistake(
            "flops_counts_softmax",
            N_("the softmax's T * T is counted; count only the two matrix products"),
            3,
            {"attention_flops": lambda T, d: 4 * T * T * d + T * T},
        ),
    ),
)
