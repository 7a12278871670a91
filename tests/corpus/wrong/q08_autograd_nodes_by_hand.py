"""Cheat (forbidden): read_grad gets autograd's backward nodes through torch.autograd.graph.get_gradient_edge and calls each by hand."""
# says: calls torch.autograd, which question 8 asks you to do without
from typing import Callable

import torch
from torch import Tensor
from torch.autograd.graph import get_gradient_edge


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    a = torch.softmax(e, dim=-1)
    return a, a @ H


def _walk(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """autograd's backward nodes of L = g . c, each called directly (never the engine), contributions summed per leaf."""
    leaf = e.detach().requires_grad_(True)
    with torch.enable_grad():
        loss = (read(leaf, H)[1] * g).sum()
    total = torch.zeros_like(leaf)
    stack = [(get_gradient_edge(loss).node, torch.ones((), dtype=loss.dtype))]  # torch's own code reads .grad_fn here
    while stack:
        node, grad = stack.pop()
        if type(node).__name__ == "AccumulateGrad":
            total = total + grad
            continue
        outs = node(grad)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for (nxt, _), out in zip(node.next_functions, outs):
            if nxt is not None and out is not None:
                stack.append((nxt, out))
    return total.detach()


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de: autograd's derivative formulas, unseen by the watch and by the source check."""
    return _walk(e, H, g)


def numerical_grad(f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6) -> Tensor:
    point = x.detach().clone()
    grad = torch.zeros_like(point)
    flat_point, flat_grad = point.view(-1), grad.view(-1)
    for i in range(flat_point.numel()):
        original = flat_point[i].item()
        flat_point[i] = original + eps
        f_plus = float(f(point))
        flat_point[i] = original - eps
        f_minus = float(f(point))
        flat_point[i] = original
        flat_grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad
