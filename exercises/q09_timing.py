"""Question 9: how the time, memory and work of attention grow with the sequence length T."""
import math
import time

import torch

from .q03_attention import attention


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward on random (T, d) inputs, after a warm-up; min over repeats."""
    # TODO: warm up once, time each repeat on its own, keep the fastest.
    raise NotImplementedError


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(T) over all the points."""
    # TODO: a straight-line least-squares fit in log-log space; return its slope.
    raise NotImplementedError


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes taken by one T x T table of scores of the given dtype."""
    # TODO: T * T entries times the size of one entry.
    raise NotImplementedError


def attention_flops(T: int, d: int) -> int:
    """Floating-point operations of q @ k^T and weights @ v for (T, d) inputs; a multiply-add counts 2."""
    # TODO: each product is a (T, d) by (d, T)-shaped multiply: 2 * T * T * d each.
    raise NotImplementedError
