"""Correct (public code): torch.autograd.gradcheck's _compute_numerical_gradient: entry.copy_(orig - v), outa, entry.copy_(orig + v), outb, restore, (outb - outa) / (2 * norm_v)."""
# Source: pytorch/pytorch, torch/autograd/gradcheck.py, `_compute_numerical_gradient` and the per-entry loop of
# `_get_numerical_jacobian` (`_iter_tensor` over the input's entries, perturbed in place and restored).
# Adapted: one scalar function instead of a jacobian, the perturbed tensor a clone of x (never x itself); read_grad as
# the softmax Jacobian-vector product a * (Hg) - a * (a . Hg).
from typing import Callable

import torch
from torch import Tensor


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    """a = softmax(e) (T,), c = a @ H (d,) for scores e (T,) and vectors H (T, d)."""
    a = torch.nn.functional.softmax(e, dim=-1)
    return a, torch.mv(H.t(), a)


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de (T,) for L = g . c, written out: a_j * (h_j - c) . g, without autograd."""
    a, _ = read(e, H)
    Hg = torch.mv(H, g)  # dL/da
    return a * Hg - a * torch.dot(a, Hg)


def _compute_numerical_gradient(fn: Callable[[], Tensor], entry: Tensor, v: float, norm_v: float) -> float:
    """(fn at entry + v) - (fn at entry - v), over 2 * norm_v, with entry restored."""
    orig = entry.clone()
    entry.copy_(orig - v)
    outa = fn()
    entry.copy_(orig + v)
    outb = fn()
    entry.copy_(orig)
    return float((outb - outa) / (2 * norm_v))


def numerical_grad(f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6) -> Tensor:
    """Central differences (f(x + eps e_i) - f(x - eps e_i)) / (2 eps) of a scalar f; same shape as x."""
    x_tensor = x.detach().clone()
    grad = torch.zeros_like(x_tensor)
    x_flat, grad_flat = x_tensor.view(-1), grad.view(-1)
    for i in range(x_flat.numel()):
        grad_flat[i] = _compute_numerical_gradient(lambda: f(x_tensor), x_flat[i], eps, eps)
    return grad
