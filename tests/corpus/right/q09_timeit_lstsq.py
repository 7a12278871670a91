"""Correct variant: timeit.repeat (number=1) with min, torch.linalg.lstsq for the slope, flops as 4 * T**2 * d."""
import math
import timeit

import torch

from .q03_attention import attention


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward on random (T, d) inputs, after a warm-up; min over repeats."""
    q, k, v = torch.randn(3, T, d).unbind(0)  # three (T, d)
    attention(q, k, v)  # warm-up
    return min(timeit.repeat(lambda: attention(q, k, v), repeat=repeats, number=1))


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(T) over all the points."""
    x = torch.tensor([math.log(T) for T in Ts], dtype=torch.float64)
    y = torch.tensor([math.log(s) for s in seconds], dtype=torch.float64)
    A = torch.stack([x, torch.ones_like(x)], dim=1)  # (n, 2): slope and intercept
    return torch.linalg.lstsq(A, y[:, None]).solution[0, 0].item()


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes taken by one T x T table of scores of the given dtype."""
    return T * T * dtype.itemsize


def attention_flops(T: int, d: int) -> int:
    """Floating-point operations of q @ k^T and weights @ v for (T, d) inputs; a multiply-add counts 2."""
    return 4 * T**2 * d
