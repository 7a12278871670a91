"""Correct: torch.utils.benchmark.Timer given timer=time.perf_counter, blocked_autorange's median."""
import math
import time

import torch.utils.benchmark as benchmark

import torch

from .q03_attention import attention


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward: the median of torch.utils.benchmark's blocks."""
    q, k, v = torch.randn(3, T, d).unbind(0)
    timer = benchmark.Timer(stmt="attention(q, k, v)", globals={"attention": attention, "q": q, "k": k, "v": v},
                            timer=time.perf_counter, num_threads=1)
    return timer.blocked_autorange(min_run_time=0.2).median


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
