"""Correct variant: timeit.Timer(...).repeat(number=1) after timeit warm-up, min; closed-form least squares in log2; bytes from element_size()."""
import math
import timeit

import torch

from .q03_attention import attention


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward on random (T, d) inputs, after a warm-up; min over repeats."""
    q, k, v = (torch.randn(T, d) for _ in range(3))
    timer = timeit.Timer(lambda: attention(q, k, v))
    timer.timeit(number=1)  # warm-up
    return min(timer.repeat(repeat=repeats, number=1))


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(T) over all the points."""
    n = len(Ts)
    xs = [math.log2(T) for T in Ts]
    ys = [math.log2(s) for s in seconds]
    sx, sy = sum(xs), sum(ys)
    sxy = sum(x * y for x, y in zip(xs, ys))
    sxx = sum(x * x for x in xs)
    return (n * sxy - sx * sy) / (n * sxx - sx * sx)


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes taken by one T x T table of scores of the given dtype."""
    return T * T * torch.empty((), dtype=dtype).element_size()


def attention_flops(T: int, d: int) -> int:
    """Floating-point operations of q @ k^T and weights @ v for (T, d) inputs; a multiply-add counts 2."""
    return int(4 * T**2 * d)
