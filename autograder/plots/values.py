"""What the student's code sent back, checked before it is drawn: a tensor of the expected shape, as a numpy array."""
import numpy as np
import torch

from ..engine.asserts import kind
from ..engine.proxy import CheckFailure
from ..i18n import _


def pair(value: object, what: str, names: str) -> tuple[object, object]:
    """value as the two items of a tuple or list; CheckFailure naming what was expected (names: `(output, weights)`)."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise CheckFailure(
            _("{what} returned {kind}; expected {names}").format(what=what, kind=kind(value), names=names)
        )
    return value[0], value[1]


def table(value: object, shape: tuple[int, ...], what: str) -> np.ndarray:
    """value, a torch.Tensor of this shape, as a float64 array; CheckFailure saying what came back instead."""
    if type(value) is not torch.Tensor:
        raise CheckFailure(_("{what} came back as {kind}; expected a torch.Tensor").format(what=what, kind=kind(value)))
    if tuple(value.shape) != shape:
        raise CheckFailure(
            _("{what} has shape {got}; expected {shape}").format(what=what, got=tuple(value.shape), shape=shape)
        )
    return value.detach().to(torch.float64).numpy()
