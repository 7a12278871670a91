"""Question 8: reading with attention weights, and the gradient of that read by hand."""
from typing import Callable

import torch
from torch import Tensor


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    """a = softmax(e) (T,), c = a @ H (d,) for scores e (T,) and vectors H (T, d)."""
    # TODO: softmax the scores, then the weighted sum of the rows of H.
    raise NotImplementedError


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de (T,) for L = g . c, written out: a_j * (h_j - c) . g, without autograd."""
    # TODO: compare each row of H with the context along g, weighted by a.
    raise NotImplementedError


def numerical_grad(f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6) -> Tensor:
    """Central differences (f(x + eps e_i) - f(x - eps e_i)) / (2 eps) of a scalar f; same shape as x."""
    # TODO: nudge one entry at a time up and down on a copy of x.
    raise NotImplementedError
