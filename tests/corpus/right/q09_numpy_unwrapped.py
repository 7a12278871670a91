"""Correct variant: np.median of perf_counter laps and np.polyfit(...)[0] returned as numpy float64 (a float subclass), unwrapped."""
import time

import numpy as np
import torch

from .q03_attention import attention


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward on random (T, d) inputs, after a warm-up; min over repeats."""
    q, k, v = torch.randn(T, d), torch.randn(T, d), torch.randn(T, d)
    attention(q, k, v)  # warm-up
    laps = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        attention(q, k, v)
        laps.append(time.perf_counter() - t0)
    return np.median(laps)


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(T) over all the points."""
    return np.polyfit(np.log(Ts), np.log(seconds), deg=1)[0]


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes taken by one T x T table of scores of the given dtype."""
    return T * T * dtype.itemsize


def attention_flops(T: int, d: int) -> int:
    """Floating-point operations of q @ k^T and weights @ v for (T, d) inputs; a multiply-add counts 2."""
    return 4 * T * T * d
