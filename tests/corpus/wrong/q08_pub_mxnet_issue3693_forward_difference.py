"""Bug (public issue): mxnet's numeric_grad used the one-sided (f(x + eps) - f(x)) / eps, whose error is of order eps, not the central difference."""
# Source: apache/mxnet, python/mxnet/test_utils.py, numeric_grad, issue 3693 "Numerical Gradient Improvement": "uses
# (f(x + h) - f(x)) / h instead of the centered difference method (f(x + h) - f(x - h)) / 2h" (the same one-sided form:
# cs231n/cs231n.github.io issue 186, optimization-1's eval_numerical_gradient).
# Adapted: mxnet's loop over v.ravel() with old_value restored, on a copy of x; read and read_grad written correctly.
from typing import Callable

import torch
from torch import Tensor


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    """a = softmax(e) (T,), c = a @ H (d,) for scores e (T,) and vectors H (T, d)."""
    a = torch.exp(e - e.max())
    a = a / a.sum()
    return a, a @ H


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de (T,) for L = g . c, written out: a_j * (h_j - c) . g, without autograd."""
    a, c = read(e, H)
    return a * (H @ g - c @ g)


def numerical_grad(f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6) -> Tensor:
    """Central differences (f(x + eps e_i) - f(x - eps e_i)) / (2 eps) of a scalar f; same shape as x."""
    v = x.detach().clone()
    approx_grad = torch.zeros_like(v)
    f_x = float(f(v))
    flat, flat_grad = v.view(-1), approx_grad.view(-1)
    for i in range(flat.numel()):
        old_value = flat[i].item()
        flat[i] = old_value + eps
        f_peps = float(f(v))
        flat_grad[i] = (f_peps - f_x) / eps
        flat[i] = old_value
    return approx_grad
