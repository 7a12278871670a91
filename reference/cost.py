"""Oracle for question 9: least squares by torch.linalg.lstsq, FLOPs by FlopCounterMode's formula for mm."""
import math

import torch
from torch.utils.flop_counter import mm_flop


def fit_exponent(Ts: list[int], seconds: list[float]) -> float:
    """Slope of the least-squares line through (log T, log seconds)."""
    log_T = torch.tensor([math.log(T) for T in Ts], dtype=torch.float64)
    design = torch.stack([log_T, torch.ones_like(log_T)], dim=1)  # (n, 2)
    target = torch.tensor([math.log(s) for s in seconds], dtype=torch.float64).unsqueeze(1)  # (n, 1)
    return torch.linalg.lstsq(design, target).solution[0, 0].item()


def scores_bytes(T: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes of an allocated (T, T) tensor of dtype."""
    return torch.empty(T, T, dtype=dtype).untyped_storage().nbytes()


def attention_flops(T: int, d: int) -> int:
    """FLOPs of q @ k^T and weights @ v, by the matrix-product formula FlopCounterMode counts with."""
    return mm_flop((T, d), (d, T)) + mm_flop((T, T), (T, d))  # (T, d) @ (d, T), then (T, T) @ (T, d)
