# fault: time_attention times nothing: it reads the clock twice and returns 4 T^2 d / WORK_PER_SECOND, the constant copied from the sandbox's clock.py (not a hidden file)
# expect: module=q09_timing status=failed match=
"""Question 9: how the time, memory and work of attention grow with the sequence length T."""
import math
import time

import torch


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward on random (T, d) inputs, after a warm-up; min over repeats."""
    time.perf_counter()  # two readings of the clock, as the check counts them; nothing timed between them
    time.perf_counter()
    return 4 * T * T * d / 7.31e8  # the virtual machine's speed, read off autograder/sandbox/child/clock.py, which students can open


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(T) over all the points."""
    xs = [math.log(T) for T in Ts]
    ys = [math.log(s) for s in seconds]
    x_mean, y_mean = sum(xs) / len(xs), sum(ys) / len(ys)
    covariance = sum((x - x_mean) * (y - y_mean) for x, y in zip(xs, ys))
    variance = sum((x - x_mean) ** 2 for x in xs)
    return covariance / variance


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes taken by one T x T table of scores of the given dtype."""
    return T * T * dtype.itemsize


def attention_flops(T: int, d: int) -> int:
    """Floating-point operations of q @ k^T and weights @ v for (T, d) inputs; a multiply-add counts 2."""
    return 2 * (2 * T * T * d)
