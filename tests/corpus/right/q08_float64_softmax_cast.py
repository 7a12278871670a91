"""Correct variant: F.softmax(e, dtype=torch.float64) cast back; read_grad via outer-product Jacobian (diag(a) - a a^T) H g; numerical_grad with np.nditer."""
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    """a = softmax(e) (T,), c = a @ H (d,) for scores e (T,) and vectors H (T, d)."""
    a = F.softmax(e, dim=-1, dtype=torch.float64).to(e.dtype)
    return a, H.T @ a


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de (T,) for L = g . c, written out: a_j * (h_j - c) . g, without autograd."""
    a = F.softmax(e.double(), dim=-1)
    jacobian = torch.diag(a) - torch.outer(a, a)  # da/de, (T, T)
    return (jacobian @ (H.double() @ g.double())).to(e.dtype)


def numerical_grad(f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6) -> Tensor:
    """Central differences (f(x + eps e_i) - f(x - eps e_i)) / (2 eps) of a scalar f; same shape as x."""
    base = x.detach().cpu().numpy().astype(np.float64)
    grad = np.zeros_like(base)
    it = np.nditer(base, flags=["multi_index"])
    while not it.finished:
        idx = it.multi_index
        plus, minus = base.copy(), base.copy()
        plus[idx] += eps
        minus[idx] -= eps
        grad[idx] = (f(torch.from_numpy(plus)).item() - f(torch.from_numpy(minus)).item()) / (2 * eps)
        it.iternext()
    return torch.from_numpy(grad)
