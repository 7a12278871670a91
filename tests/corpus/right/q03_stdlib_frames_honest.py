"""Correct variant: uses the standard library's own frame users (typing, dataclasses, namedtuple, enum, warnings.warn, logging, a traceback printed in an except): no reach into the grader."""
import collections
import contextlib
import dataclasses
import enum
import logging
import traceback
import typing
import warnings

import torch
from torch import Tensor

from .q01_causal_mask import causal_mask

Scale = enum.Enum("Scale", "SQRT_D")  # the functional API reads its caller's module name from a frame
Pair = collections.namedtuple("Pair", "out weights")  # so does namedtuple
T = typing.TypeVar("T")  # and TypeVar
log = logging.getLogger(__name__)


class Shapes(typing.NamedTuple):
    """The three sizes an attention call works with."""

    tq: int
    tk: int
    d: int


@dataclasses.dataclass(frozen=True)
class Settings:
    """How scores are scaled and masked."""

    causal: bool = True
    scale: Scale = Scale.SQRT_D
    notes: list = dataclasses.field(default_factory=list)


def _first(items: typing.Iterable[T]) -> T:
    """The first item of items."""
    return next(iter(items))


def _rows(weights: Tensor) -> typing.Iterator[Tensor]:
    """The weight rows, one at a time (a generator)."""
    yield from weights.unbind(-2)


@contextlib.contextmanager
def _quiet() -> typing.Iterator[None]:
    """Warnings of this module kept from the output."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    settings, shapes = Settings(causal), Shapes(q.shape[-2], k.shape[-2], q.shape[-1])
    with _quiet():
        warnings.warn("attention written by hand", UserWarning, stacklevel=2)
    log.warning("attention on %s", shapes)
    try:
        int("not a number")
    except ValueError:
        traceback.print_exc()
        settings.notes.append(traceback.format_exc(limit=1))
    scores = q @ k.transpose(-2, -1) / shapes.d ** 0.5
    if settings.causal:
        scores = scores.masked_fill(~causal_mask(shapes.tq).to(q.device), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    _first(_rows(weights))
    pair = Pair(weights @ v, weights)
    return pair.out, pair.weights


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    return attention(x @ W_q, x @ W_k, x @ W_v, causal=True)[0]
