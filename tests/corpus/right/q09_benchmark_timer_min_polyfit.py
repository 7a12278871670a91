"""Correct variant: torch.utils.benchmark.Timer with a stmt string, min over .timeit(1) runs; np.polyfit(log T, log s, 1)[0]; bytes from storage nbytes."""
import numpy as np
import torch
import torch.utils.benchmark as benchmark

from .q03_attention import attention


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward on random (T, d) inputs, after a warm-up; min over repeats."""
    q, k, v = torch.randn(T, d), torch.randn(T, d), torch.randn(T, d)
    t = benchmark.Timer(stmt="attention(q, k, v)", globals={"attention": attention, "q": q, "k": k, "v": v})
    t.timeit(1)  # warm-up
    return min(t.timeit(1).mean for _ in range(repeats))


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(T) over all the points."""
    slope, intercept = np.polyfit(np.log(Ts), np.log(seconds), 1)
    return float(slope)


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes taken by one T x T table of scores of the given dtype."""
    return torch.zeros(T, T, dtype=dtype).untyped_storage().nbytes()


def attention_flops(T: int, d: int) -> int:
    """Floating-point operations of q @ k^T and weights @ v for (T, d) inputs; a multiply-add counts 2."""
    return 2 * T * d * T + 2 * T * T * d
