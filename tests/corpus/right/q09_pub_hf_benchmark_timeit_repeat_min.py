"""Correct (public code): Hugging Face's PyTorchBenchmark speed measure: timeit.repeat(func, repeat=..., number=10), min(runtimes) / 10.0, after timeit.repeat(func, repeat=1, number=5)."""
# Source: Hugging Face transformers, src/transformers/benchmark/benchmark.py, PyTorchBenchmark._measure_speed ("min should be
# taken rather than the average", citing the timeit docs); its 5-run stabilising call is done there for TPU and
# torchscript only, the student keeps it always as the warm-up.
# Adapted: func is one causal attention forward; fit_exponent by statistics.linear_regression; bytes from element_size().
import math
import statistics
import timeit

import torch

from .q03_attention import attention


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward on random (T, d) inputs, after a warm-up; min over repeats."""
    q, k, v = torch.randn(3, T, d).unbind(0)

    def func() -> None:
        attention(q, k, v)

    timeit.repeat(func, repeat=1, number=5)
    # as written in the timeit docs, min should be taken rather than the average
    runtimes = timeit.repeat(func, repeat=repeats, number=10)
    return min(runtimes) / 10.0


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(T) over all the points."""
    return statistics.linear_regression([math.log(T) for T in Ts], [math.log(s) for s in seconds]).slope


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes taken by one T x T table of scores of the given dtype."""
    return T * T * torch.tensor([], dtype=dtype).element_size()


def attention_flops(T: int, d: int) -> int:
    """Floating-point operations of q @ k^T and weights @ v for (T, d) inputs; a multiply-add counts 2."""
    return 2 * T * d * T + 2 * T * T * d
