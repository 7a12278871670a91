"""Oracle for questions 6 to 8: additive attention (PyTorch has none), its linear variant, reading and gradients."""
from typing import Callable

import torch
import torch.nn.functional as F
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """v . tanh(W s + U h_j + b) for every j: -> (T,)."""
    return torch.einsum("a,ta->t", v, torch.tanh(F.linear(s, W) + F.linear(H, U) + b))


def linear_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """v . (W s + U h_j + b) for every j: -> (T,)."""
    return torch.einsum("a,ta->t", v, F.linear(s, W) + F.linear(H, U) + b)


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(softmax of additive scores (T,), context (d_h,))."""
    weights = F.softmax(additive_scores(s, H, W, U, v, b), dim=-1)
    return weights, torch.einsum("t,th->h", weights, H)


def weights_across_states(
    states: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor, use_tanh: bool = True
) -> Tensor:
    """All decoder states at once: (S, d_s) -> (S, T)."""
    pre = F.linear(states, W)[:, None, :] + F.linear(H, U)[None, :, :] + b  # (S, T, d_a)
    activated = torch.tanh(pre) if use_tanh else pre
    return F.softmax(activated @ v, dim=-1)  # (S, T)


def no_tanh_weights(H: Tensor, U: Tensor, v: Tensor) -> Tensor:
    """softmax over j of v . U h_j: -> (T,)."""
    return F.softmax(F.linear(H, U) @ v, dim=-1)


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    """(softmax(e) (T,), softmax(e) @ H (d,))."""
    a = F.softmax(e, dim=-1)
    return a, torch.einsum("t,td->d", a, H)


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de for L = g . c, by torch.autograd: -> (T,)."""
    e = e.detach().requires_grad_(True)
    _, c = read(e, H)
    (grad,) = torch.autograd.grad(c @ g, e)
    return grad


def autograd_grad(f: Callable[[Tensor], Tensor], x: Tensor) -> Tensor:
    """Exact gradient of a scalar f at x by torch.autograd; same shape as x."""
    x = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(f(x), x)
    return grad


def central_difference(f: Callable[[Tensor], Tensor], x: Tensor, eps: float) -> Tensor:
    """(f(x + eps e_i) - f(x - eps e_i)) / (2 eps) for every entry i, all nudges batched through vmap."""
    nudges = torch.eye(x.numel(), dtype=x.dtype).reshape(x.numel(), *x.shape) * eps  # (n, *x.shape)
    values = torch.vmap(f)(x + nudges) - torch.vmap(f)(x - nudges)  # (n,)
    return (values / (2 * eps)).reshape(x.shape)
