"""Correct variant: numerical_grad with itertools over indices and separate plus/minus copies; read via exp/sum."""
import itertools
from typing import Callable

import torch
from torch import Tensor


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    """a = softmax(e) (T,), c = a @ H (d,) for scores e (T,) and vectors H (T, d)."""
    z = (e - e.max()).exp()
    a = z / z.sum()  # (T,)
    return a, a @ H  # (T,) @ (T, d) -> (d,)


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de (T,) for L = g . c, written out: a_j * (h_j - c) . g, without autograd."""
    a, c = read(e, H)
    return a * ((H - c) @ g)  # (T,) * ((T, d) @ (d,)) -> (T,)


def numerical_grad(f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6) -> Tensor:
    """Central differences (f(x + eps e_i) - f(x - eps e_i)) / (2 eps) of a scalar f; same shape as x."""
    base = x.detach().to(torch.float64)
    grad = torch.empty_like(base)
    for index in itertools.product(*(range(n) for n in base.shape)):
        plus, minus = base.clone(), base.clone()
        plus[index] += eps
        minus[index] -= eps
        grad[index] = (f(plus).item() - f(minus).item()) / (2 * eps)
    return grad
