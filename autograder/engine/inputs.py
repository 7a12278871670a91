"""Seeded inputs for the suites, as pytest parameters that name themselves in a failure message and can be shrunk.

draw() keeps the choices each input was made from (hypothesis-style: every value below n that make_one's
random.Random drew, every float); shrink() makes the input again from lowered choices, one at a time, and
keeps the smallest that still fails, so that a failure names a small input rather than the first one drawn.
"""
import hashlib
import random
from typing import Callable, Sequence

import pytest
import torch

from ..course.results import INPUT_NOTE, without_input

_SECRET = [b""]  # the course secret of class grading (engine/secret.py), b"" for the public seeds of `check`


def use_secret(secret: str) -> None:
    """Mix secret into every seed drawn from now on ("" for the public seeds); set before the suites are collected."""
    _SECRET[0] = secret.encode()


def seeded(seed: int) -> int:
    """The seed itself (public), or one made from it and the course secret in class grading."""
    if not _SECRET[0]:
        return seed
    return int.from_bytes(hashlib.sha256(_SECRET[0] + b":%d" % seed).digest()[:6], "little")


def randn(*shape: int, seed: int, dtype: torch.dtype = torch.float32, scale: float = 1.0) -> torch.Tensor:
    """A seeded standard normal tensor of the given shape (times scale)."""
    return torch.randn(shape, generator=torch.Generator().manual_seed(seeded(seed)), dtype=dtype) * scale


VALUES_SHOWN = 8  # an integer or boolean tensor of at most this many entries is named with its values too


def describe(value: object) -> str:
    """`float32 (2, 3)` for a tensor (`int64 (2,) [3, 5]` for a small one of integers or booleans, whose values are the
    input), the repr of anything else: how an input is named in a failure message."""
    if isinstance(value, torch.Tensor):
        kind = str(value.dtype).removeprefix("torch.")
        small = not value.is_floating_point() and not value.is_complex() and value.numel() <= VALUES_SHOWN
        return f"{kind} {tuple(value.shape)}" + (f" {value.tolist()}" if small else "")
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value)


def describe_all(values: dict[str, object]) -> str:
    """`q float32 (2, 3), n_heads=4`: every named input described, a tensor by its dtype and shape, any other value
    as code (`causal=True`, `eps=None`), which reads the same in every language."""
    return ", ".join(f"{name} {describe(value)}" if isinstance(value, torch.Tensor) else f"{name}={describe(value)}"
                     for name, value in values.items())


def size(values: dict[str, object]) -> tuple[int, int]:
    """How big an input is, to put the small ones first: (tensor entries, number of dimensions)."""
    tensors = [v for v in values.values() if isinstance(v, torch.Tensor)]
    return sum(t.numel() for t in tensors), sum(t.dim() for t in tensors)


def case(**values: object) -> "pytest.param":
    """One parameter set, its id describing each named value."""
    return pytest.param(*values.values(), id=describe_all(values))


MakeOne = Callable[[random.Random], dict[str, object]]
Choice = tuple[int, int | float]  # (n, a value below n) for a drawn integer, (0, a float in [0, 1)) for random()
SHRINK_TRIES = 40  # re-runs of a check's body at most, when its failure is shrunk
SMALL_RANGE = 64  # choices from wider ranges (seeds) are left as drawn: lowering them makes no input smaller
COUNTS_UP_TO = 3  # a choice this small may count the ones after it (batch dimensions): lowering it first drops them


class Choices(random.Random):
    """A random.Random that keeps each choice it makes, or replays given values (clamped to range, 0 past the end)."""

    def __init__(self, seed: int = 0, replay: Sequence[int | float] | None = None) -> None:
        """seed: as random.Random's; replay: values to give back in order instead of drawing."""
        super().__init__(seed)
        self.made: list[Choice] = []
        self.replay = None if replay is None else list(replay)

    def _next(self) -> int | float:
        return self.replay[len(self.made)] if len(self.made) < len(self.replay) else 0

    def _randbelow(self, n: int) -> int:
        if self.replay is None:
            value = super()._randbelow(n)
        else:
            value = self._next()
            value = min(value, n - 1) if isinstance(value, int) else 0
        self.made.append((n, value))
        return value

    def random(self) -> float:
        """The next float in [0, 1), drawn or replayed."""
        if self.replay is None:
            value = super().random()
        else:
            value = self._next()
            value = value if isinstance(value, float) else 0.0
        self.made.append((0, value))
        return value


def remake(make_one: MakeOne, values: Sequence[int | float]) -> tuple[dict[str, object], tuple[Choice, ...]]:
    """The input make_one builds from the given choice values, and the choices it actually took."""
    rng = Choices(replay=values)
    return make_one(rng), tuple(rng.made)


def draw(seed: int, count: int, make_one: MakeOne, order: Callable[[dict[str, object]], object] = size) -> list:
    """count inputs made by make_one from a seeded random.Random, smallest first, as pytest parameters.

    Each parameter carries a `drawn(make_one, choices, order)` mark, from which a failing input is shrunk.
    """
    rng, drawn = Choices(seeded(seed)), []
    for _ in range(count):
        start = len(rng.made)
        values = make_one(rng)
        drawn.append((values, tuple(rng.made[start:])))
    drawn.sort(key=lambda pair: order(pair[0]))
    return [
        pytest.param(
            *values.values(), id=describe_all(values), marks=pytest.mark.drawn.with_args(make_one, choices, order)
        )
        for values, choices in drawn
    ]


def _lowered(values: list[int | float], index: int, value: int | float, dropped: int = 0) -> list[int | float]:
    return values[:index] + [value] + values[index + 1 + dropped :]


def shrink(
    make_one: MakeOne,
    choices: tuple[Choice, ...],
    still_fails: Callable[[dict[str, object]], bool],
    order: Callable[[dict[str, object]], object] = size,
    tries: int = SHRINK_TRIES,
) -> dict[str, object] | None:
    """The smallest input found that still fails, made from choices lowered one at a time; None when none smaller fails.

    A candidate is tried (still_fails, at most `tries` times) only when it is smaller than the best so far:
    by order, then by its choices. Each choice is tried at its lowest value (first without the choices it
    may count), then bisected; floats are tried at 0. Passes repeat while one of them made progress.
    """
    best_values, best = remake(make_one, [value for _, value in choices])
    shrunk, left = False, tries

    def attempt(values: list[int | float]) -> bool:
        nonlocal best_values, best, shrunk, left
        candidate, made = remake(make_one, values)
        if left <= 0 or (order(candidate), [v for _, v in made]) >= (order(best_values), [v for _, v in best]):
            return False
        left -= 1
        if not still_fails(candidate):
            return False
        best_values, best, shrunk = candidate, made, True
        return True

    progress = True
    while progress and left > 0:
        progress, index = False, 0
        while index < len(best) and left > 0:
            n, value = best[index]
            values = [v for _, v in best]
            if n == 0 and value:
                progress |= attempt(_lowered(values, index, 0.0))
            elif 0 < n <= SMALL_RANGE and value:
                if (value <= COUNTS_UP_TO and attempt(_lowered(values, index, 0, value))) or attempt(
                    _lowered(values, index, 0)
                ):
                    progress = True
                else:
                    low, high = 0, value  # low passes, high fails
                    while high - low > 1 and left > 0:
                        middle = (low + high) // 2
                        if attempt(_lowered([v for _, v in best], index, middle)):
                            high, progress = middle, True
                        else:
                            low = middle
            index += 1
    return best_values if shrunk else None


def entries(tensor: torch.Tensor) -> str:
    """`[[1, 0], [0.5, 0.5]]`: a small tensor's entries to 3 significant digits, nested as its shape."""
    if tensor.dim() == 0:
        value = tensor.item()
        return str(value) if isinstance(value, (bool, int)) else f"{value:.3g}"
    return "[" + ", ".join(entries(row) for row in tensor) + "]"


def batch_shape(rng: random.Random, most: int = 2) -> list[int]:
    """Zero to `most` leading batch dimensions of size 1 to 3."""
    return [rng.randint(1, 3) for _ in range(rng.randint(0, most))]


def dtype(rng: random.Random) -> torch.dtype:
    """float32 or float64, at random."""
    return rng.choice([torch.float32, torch.float64])


def seed(rng: random.Random) -> int:
    """A fresh seed for randn."""
    return rng.randrange(10**6)


__all__ = [
    "INPUT_NOTE",
    "Choices",
    "batch_shape",
    "case",
    "describe",
    "describe_all",
    "draw",
    "dtype",
    "entries",
    "randn",
    "remake",
    "seed",
    "shrink",
    "size",
    "without_input",
]
