"""Bug (public code): attention_flops counts as fvcore does, one flop per multiply-add, for both products."""
# Source: facebookresearch/fvcore's FlopCountAnalysis, whose matmul handle (fvcore/nn/jit_handles.py) counts one flop per
# fused multiply-add; adapted: the same convention for the two products of attention.
# mistake: q09.flops_half
# says: a multiply-add is 2 flops
import math
import time

import torch

from .q03_attention import attention


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward on random (T, d) inputs, after a warm-up; min over repeats."""
    q, k, v = torch.randn(3, T, d).unbind(0)  # three (T, d)
    attention(q, k, v)  # warm-up: first calls pay one-off costs
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        attention(q, k, v)
        times.append(time.perf_counter() - start)
    return min(times)


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
    """FLOPs of QK^T and weights @ V for one (T, d) head (2 per multiply-add)."""
    # fvcore's convention: one flop per multiply-add (its matmul handle counts T * T * d for q @ k^T)
    return T * T * d + T * T * d