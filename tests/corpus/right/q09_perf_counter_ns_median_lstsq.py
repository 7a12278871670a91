"""Correct variant: perf_counter_ns around each repeat, statistics.median, np.linalg.lstsq on logs, finfo bits // 8, flops 2 * 2 * T * T * d."""
import statistics
import time

import numpy as np
import torch

from .q03_attention import attention


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward on random (T, d) inputs, after a warm-up; min over repeats."""
    q = torch.randn(T, d)
    k = torch.randn(T, d)
    v = torch.randn(T, d)
    for _ in range(2):  # warm-up
        attention(q, k, v, causal=True)
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        attention(q, k, v, causal=True)
        samples.append((time.perf_counter_ns() - t0) / 1e9)
    return statistics.median(samples)


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(T) over all the points."""
    x = np.log(np.asarray(Ts, dtype=float))
    y = np.log(np.asarray(seconds, dtype=float))
    A = np.vstack([x, np.ones_like(x)]).T
    slope, _intercept = np.linalg.lstsq(A, y, rcond=None)[0]
    return float(slope)


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes taken by one T x T table of scores of the given dtype."""
    return T * T * (torch.finfo(dtype).bits // 8)


def attention_flops(T: int, d: int) -> int:
    """Floating-point operations of q @ k^T and weights @ v for (T, d) inputs; a multiply-add counts 2."""
    qk = 2 * T * T * d  # (T, d) @ (d, T)
    av = 2 * T * T * d  # (T, T) @ (T, d)
    return qk + av
