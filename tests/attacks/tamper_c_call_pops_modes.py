# attack: inside one call driven from C (list(map(operator.call, ...)): no Python frame of the student's runs between the steps), pops every function and dispatch mode, runs torch.autograd.grad, and pushes the modes back, by names the source never spells; answers right
# expect: module=q08_read_gradient status=flagged match=flagged for review: the code reaches into the grader
# path: sandbox
"""Question 8, whose gradient comes from the engine run with the watch taken off and put back inside one C call."""
import functools
import operator
from typing import Callable

import torch
from torch import Tensor

_C = torch._C


def _stack(kind: str) -> tuple[list, Callable, Callable]:
    """The modes of one of PyTorch's stacks (bottom first), its pop and its push."""
    length, at = getattr(_C, f"_len_torch_{kind}_stack"), getattr(_C, f"_get_{kind}_stack_at")
    pop, push = getattr(_C, f"_pop_torch_{kind}_stack"), getattr(_C, f"_push_on_torch_{kind}_stack")
    return [at(i) for i in range(length())], pop, push


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    """a = softmax(e) (T,), c = a @ H (d,)."""
    a = torch.softmax(e, dim=-1)
    return a, a @ H


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de by the engine, every step of the pop, the work and the push made by C code."""
    functions, pop_f, push_f = _stack("function")
    dispatches, pop_d, push_d = _stack("dispatch")
    with getattr(torch, "enable" + "_grad")():
        leaf = getattr(e.detach(), "requires" + "_grad_")()
        loss = read(leaf, H)[1] @ g
        steps = ([pop_f] * len(functions) + [functools.partial(pop_d, None)] * len(dispatches)
                 + [functools.partial(getattr(torch, "auto" + "grad").grad, loss, leaf)]
                 + [functools.partial(push_d, mode) for mode in dispatches] + [functools.partial(push_f, mode) for mode in functions])
        done = list(map(operator.call, steps))
    return done[len(functions) + len(dispatches)][0].detach()


def numerical_grad(f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6) -> Tensor:
    """Central differences of a scalar f; same shape as x."""
    point, grad = x.detach().clone(), torch.zeros_like(x)
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
