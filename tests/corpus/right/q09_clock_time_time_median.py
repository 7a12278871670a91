"""Correct: wall time from time.time(), median of the repeats (sorted by hand)."""
import math
import time

import torch

from .q03_attention import attention


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward: median of repeats after a warm-up."""
    q, k, v = torch.randn(3, T, d).unbind(0)
    for _ in range(2):
        attention(q, k, v)
    durations = []
    for _ in range(repeats):
        tic = time.time()
        attention(q, k, v)
        toc = time.time()
        durations.append(toc - tic)
    durations.sort()
    return durations[len(durations) // 2]


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
