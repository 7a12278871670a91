"""Bug (public issue): torchdynamo's benchmark `timed` helper: no warm-up, and its `times` argument left at 1, so one cold run is timed."""
# says: the one forward you timed
# Source: pytorch/pytorch issue 93634 "Should we add warmup and more iterations to benchmark timing?" about
# benchmarks/common.py's `timed(model, model_iter_fn, example_inputs, times=1)`: `t0 = time.perf_counter()`, the calls,
# `t1 = time.perf_counter()`, `return (t1 - t0) / times`; "The argument `times` is not used in function calls ... so it's
# always the default value of 1".
# Adapted: timed() kept as a helper and called the same way, without the repeats.
import math
import time

import torch

from .q03_attention import attention


def timed(fn, inputs, times: int = 1) -> float:
    """Seconds per call of fn(*inputs), over `times` calls."""
    t0 = time.perf_counter()
    for _ in range(times):
        fn(*inputs)
    t1 = time.perf_counter()
    return (t1 - t0) / times


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward on random (T, d) inputs, after a warm-up; min over repeats."""
    q, k, v = torch.randn(3, T, d).unbind(0)
    return timed(attention, (q, k, v))


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(T) over all the points."""
    xs, ys = [math.log(T) for T in Ts], [math.log(s) for s in seconds]
    n = len(xs)
    return (n * sum(x * y for x, y in zip(xs, ys)) - sum(xs) * sum(ys)) / (n * sum(x * x for x in xs) - sum(xs) ** 2)


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes taken by one T x T table of scores of the given dtype."""
    return T * T * (torch.finfo(dtype).bits // 8)


def attention_flops(T: int, d: int) -> int:
    """Floating-point operations of q @ k^T and weights @ v for (T, d) inputs; a multiply-add counts 2."""
    return 2 * 2 * T * T * d
