"""What the student's code sent back, checked before it is drawn: a tensor of the expected shape, as a numpy array."""
import numpy as np
import torch

from ..engine.asserts import kind
from ..engine.proxy import CheckFailure


def pair(value: object, what: str, names: str) -> tuple[object, object]:
    """value as the two items of a tuple or list; CheckFailure naming what was expected (names: `(output, weights)`)."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise CheckFailure(f"{what} returned {kind(value)}; expected {names}")
    return value[0], value[1]


def table(value: object, shape: tuple[int, ...], what: str) -> np.ndarray:
    """value, a torch.Tensor of this shape, as a float64 array; CheckFailure saying what came back instead."""
    if type(value) is not torch.Tensor:
        raise CheckFailure(f"{what} came back as {kind(value)}; expected a torch.Tensor")
    if tuple(value.shape) != shape:
        raise CheckFailure(f"{what} has shape {tuple(value.shape)}; expected {shape}")
    return value.detach().to(torch.float64).numpy()
