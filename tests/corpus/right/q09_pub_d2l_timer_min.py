"""Correct (public code): d2l's Timer class (time.time() in start/stop, a list of times, avg/sum/cumsum), min(timer.times) after a warm-up."""
# Source: d2l-ai/d2l-en, d2l/torch.py, `class Timer: """Record multiple running times."""` (start: self.tik = time.time();
# stop: self.times.append(time.time() - self.tik)); the book averages with timer.avg(), the student keeps the minimum.
# Adapted: one causal attention forward between start and stop; fit_exponent by np.linalg.lstsq; bytes by finfo bits.
import time

import numpy as np
import torch

from .q03_attention import attention


class Timer:
    """Record multiple running times."""

    def __init__(self) -> None:
        """Start the timer at once."""
        self.times = []
        self.start()

    def start(self) -> None:
        """Start the timer."""
        self.tik = time.time()

    def stop(self) -> float:
        """Stop the timer and record the time in a list."""
        self.times.append(time.time() - self.tik)
        return self.times[-1]

    def avg(self) -> float:
        """Return the average time."""
        return sum(self.times) / len(self.times)

    def sum(self) -> float:
        """Return the sum of time."""
        return sum(self.times)

    def cumsum(self) -> list:
        """Return the accumulated time."""
        return np.array(self.times).cumsum().tolist()


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Seconds of one causal attention forward on random (T, d) inputs, after a warm-up; min over repeats."""
    q, k, v = torch.randn(3, T, d).unbind(0)
    attention(q, k, v)  # warm-up
    timer = Timer()
    for _ in range(repeats):
        timer.start()
        attention(q, k, v)
        timer.stop()
    return min(timer.times)


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(T) over all the points."""
    X = np.stack([np.log(np.asarray(Ts, dtype=float)), np.ones(len(Ts))], axis=1)
    slope, _ = np.linalg.lstsq(X, np.log(np.asarray(seconds, dtype=float)), rcond=None)[0]
    return float(slope)


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes taken by one T x T table of scores of the given dtype."""
    return T * T * torch.finfo(dtype).bits // 8


def attention_flops(T: int, d: int) -> int:
    """Floating-point operations of q @ k^T and weights @ v for (T, d) inputs; a multiply-add counts 2."""
    return 2 * (2 * T * d * T)
