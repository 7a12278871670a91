"""Correct (public code): the deeplearning.ai gradient_check_n loop: thetaplus / thetaminus copies of a (n, 1) parameter vector, gradapprox = (J_plus - J_minus) / (2 * epsilon)."""
# Source: the Coursera deeplearning.ai "Gradient Checking" assignment (course 2, week 1), gradient_check_n, as published in
# many public solution repositories (numpy: np.copy(parameters_values), thetaplus[i][0] += epsilon, J_plus[i], ...).
# Adapted: the parameter vector is x flattened to a (n, 1) numpy float64 array and f is called on a tensor of x's shape;
# read_grad is the lesson's a_j (h_j - c) . g written out with numpy-style broadcasting.
from typing import Callable

import numpy as np
import torch
from torch import Tensor


def read(e: Tensor, H: Tensor) -> tuple[Tensor, Tensor]:
    """a = softmax(e) (T,), c = a @ H (d,) for scores e (T,) and vectors H (T, d)."""
    a = torch.softmax(e, dim=0)
    return a, a @ H


def read_grad(e: Tensor, H: Tensor, g: Tensor) -> Tensor:
    """dL/de (T,) for L = g . c, written out: a_j * (h_j - c) . g, without autograd."""
    a, c = read(e, H)
    return a * ((H - c[None, :]) * g[None, :]).sum(axis=1)


def numerical_grad(f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6) -> Tensor:
    """Central differences (f(x + eps e_i) - f(x - eps e_i)) / (2 eps) of a scalar f; same shape as x."""
    epsilon = eps
    parameters_values = x.detach().cpu().numpy().astype(np.float64).reshape(-1, 1)
    num_parameters = parameters_values.shape[0]
    J_plus = np.zeros((num_parameters, 1))
    J_minus = np.zeros((num_parameters, 1))
    gradapprox = np.zeros((num_parameters, 1))
    for i in range(num_parameters):
        thetaplus = np.copy(parameters_values)
        thetaplus[i][0] = thetaplus[i][0] + epsilon
        J_plus[i] = float(f(torch.from_numpy(thetaplus.reshape(x.shape))))
        thetaminus = np.copy(parameters_values)
        thetaminus[i][0] = thetaminus[i][0] - epsilon
        J_minus[i] = float(f(torch.from_numpy(thetaminus.reshape(x.shape))))
        gradapprox[i] = (J_plus[i] - J_minus[i]) / (2 * epsilon)
    return torch.from_numpy(gradapprox.reshape(x.shape)).to(x.dtype)
