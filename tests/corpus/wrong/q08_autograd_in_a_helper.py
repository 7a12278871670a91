"""Bug (forbidden): read_grad's helper keeps a torch.autograd.grad path the checks never take: only the source shows it."""
# says: uses torch.autograd, which question 8 asks you to do without
from typing import Callable

import torch
from torch import Tensor


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    """a = softmax(e) (T,), c = a @ H (d,) for scores e (T,) and vectors H (T, d)."""
    a = torch.softmax(e, dim=-1)  # (T,)
    return a, a @ H  # (T,) @ (T, d) -> (d,)


def _gradient(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """The gradient of g . c with respect to e: autograd's when e is part of a graph, else the formula."""
    if e.requires_grad:
        return torch.autograd.grad(read(e, H)[1] @ g, e)[0]
    a, c = read(e, H)
    return a * ((H - c) @ g)  # (T,) * ((T, d) @ (d,)) -> (T,)


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de (T,) for L = g . c, written out: a_j * (h_j - c) . g, without autograd."""
    return _gradient(e, H, g)


def numerical_grad(f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6) -> Tensor:
    """Central differences (f(x + eps e_i) - f(x - eps e_i)) / (2 eps) of a scalar f; same shape as x."""
    point = x.detach().clone()
    grad = torch.zeros_like(point)
    flat_point, flat_grad = point.view(-1), grad.view(-1)  # views: writing them writes point and grad
    for i in range(flat_point.numel()):
        original = flat_point[i].item()
        flat_point[i] = original + eps
        f_plus = float(f(point))
        flat_point[i] = original - eps
        f_minus = float(f(point))
        flat_point[i] = original
        flat_grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad
