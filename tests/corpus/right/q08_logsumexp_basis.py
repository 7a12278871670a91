"""Correct variant: read via exp(e - logsumexp(e)); read_grad as a*(Hg) - a*(a.Hg); numerical_grad stepping along rows of torch.eye."""
from typing import Callable

import torch
from torch import Tensor


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    """a = softmax(e) (T,), c = a @ H (d,) for scores e (T,) and vectors H (T, d)."""
    a = torch.exp(e - torch.logsumexp(e, dim=0))
    return a, torch.einsum("t,td->d", a, H)


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de (T,) for L = g . c, written out: a_j * (h_j - c) . g, without autograd."""
    a, _ = read(e, H)
    hg = H @ g  # (T,): h_j . g
    return a * hg - a * torch.dot(a, hg)  # c . g = sum_k a_k h_k . g


def numerical_grad(f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6) -> Tensor:
    """Central differences (f(x + eps e_i) - f(x - eps e_i)) / (2 eps) of a scalar f; same shape as x."""
    x64 = x.detach().to(torch.float64)
    basis = torch.eye(x64.numel(), dtype=torch.float64)
    grads = []
    for direction in basis:
        step = eps * direction.reshape(x64.shape)
        grads.append((float(f(x64 + step)) - float(f(x64 - step))) / (2 * eps))
    return torch.tensor(grads, dtype=torch.float64).reshape(x64.shape)
