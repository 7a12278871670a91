"""Seeded inputs for the suites, as pytest parameters that name themselves in a failure message."""
import random
from typing import Callable

import pytest
import torch


def randn(*shape: int, seed: int, dtype: torch.dtype = torch.float32, scale: float = 1.0) -> torch.Tensor:
    """A seeded standard normal tensor of the given shape (times scale)."""
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=dtype) * scale


def describe(value: object) -> str:
    """`float32 (2, 3)` for a tensor, the repr of anything else: how an input is named in a failure message."""
    if isinstance(value, torch.Tensor):
        kind = str(value.dtype).removeprefix("torch.")
        return f"{kind} {tuple(value.shape)}"
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value)


def describe_all(values: dict[str, object]) -> str:
    """`q float32 (2, 3), n_heads 4`: every named input described."""
    return ", ".join(f"{name} {describe(value)}" for name, value in values.items())


def size(values: dict[str, object]) -> tuple[int, int]:
    """How big an input is, to put the small ones first: (tensor entries, number of dimensions)."""
    tensors = [v for v in values.values() if isinstance(v, torch.Tensor)]
    return sum(t.numel() for t in tensors), sum(t.dim() for t in tensors)


def case(**values: object) -> "pytest.param":
    """One parameter set, its id describing each named value."""
    return pytest.param(*values.values(), id=describe_all(values))


def draw(seed: int, count: int, make_one: Callable[[random.Random], dict[str, object]],
         order: Callable[[dict[str, object]], object] = size) -> list:
    """count inputs made by make_one from a seeded random.Random, smallest first, as pytest parameters."""
    rng = random.Random(seed)
    drawn = sorted((make_one(rng) for _ in range(count)), key=order)
    return [case(**values) for values in drawn]


def batch_shape(rng: random.Random, most: int = 2) -> list[int]:
    """Zero to `most` leading batch dimensions of size 1 to 3."""
    return [rng.randint(1, 3) for _ in range(rng.randint(0, most))]


def dtype(rng: random.Random) -> torch.dtype:
    """float32 or float64, at random."""
    return rng.choice([torch.float32, torch.float64])


def seed(rng: random.Random) -> int:
    """A fresh seed for randn."""
    return rng.randrange(10**6)


__all__ = ["batch_shape", "case", "describe", "describe_all", "draw", "dtype", "randn", "seed", "size"]
