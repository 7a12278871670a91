"""Bug (public code): numerical_grad keeps `tmp_val = x[idx]`, a view in torch, so the second point is x itself, not x - eps."""
# Source: oreilly-japan/deep-learning-from-scratch, common/gradient.py, _numerical_gradient_no_batch: `tmp_val = x[idx]`,
# `x[idx] = float(tmp_val) + h`, `fxh1 = f(x)`, `x[idx] = tmp_val - h`, `fxh2 = f(x)`, `grad[idx] = (fxh1 - fxh2) / (2*h)`; in NumPy
# x[idx] is a copied scalar, in torch a view. Adapted: the same loop on a flat view of a copy of x.
# says: never at x - 
# says: that is a view of x that the nudge changed too
# never says: check the step you nudge x by
from typing import Callable

import torch
from torch import Tensor


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    """a = softmax(e) (T,), c = a @ H (d,) for scores e (T,) and vectors H (T, d)."""
    a = torch.softmax(e, dim=-1)  # (T,)
    return a, a @ H  # (T,) @ (T, d) -> (d,)


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de (T,) for L = g . c, written out: a_j * (h_j - c) . g, without autograd."""
    a, c = read(e, H)
    return a * ((H - c) @ g)  # (T,) * ((T, d) @ (d,)) -> (T,)


def numerical_grad(f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6) -> Tensor:
    """Central differences (f(x + eps e_i) - f(x - eps e_i)) / (2 eps) of a scalar f; same shape as x."""
    x = x.detach().clone()
    grad = torch.zeros_like(x)
    flat, flat_grad = x.view(-1), grad.view(-1)
    for idx in range(flat.numel()):
        tmp_val = flat[idx]  # a view of x, not a copy: it changes when flat[idx] is written
        flat[idx] = float(tmp_val) + eps
        fxh1 = float(f(x))  # f(x+h)
        flat[idx] = tmp_val - eps  # tmp_val is x + h by now: this writes x back, not x - h
        fxh2 = float(f(x))  # f(x-h)
        flat_grad[idx] = (fxh1 - fxh2) / (2 * eps)
        flat[idx] = tmp_val
    return grad