"""Known scalar functions the grader can pass to the student's code (numerical_grad), counting their calls and
keeping the first points they were evaluated at."""
import torch

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)

POINTS_KEPT = 64  # the points kept per function: enough for the grader to see each nudge of the first entries
FUNCTIONS = {
    "cubic": lambda x: (x**3).sum() - 2 * (x**2).sum(),
    "sin_exp": lambda x: torch.sin(x).sum() + torch.exp(0.5 * x).prod(),
    "read_loss": lambda x: torch.softmax(x.flatten(), dim=0) @ torch.arange(1.0, x.numel() + 1, dtype=x.dtype) ** 2,
    "quartic": lambda x: (x**4).sum() + x.flatten()[0] * x.flatten()[-1],
}


class Counted:
    """One of FUNCTIONS, by name, counting how often it is called (the attribute `calls`) and keeping copies of the
    first POINTS_KEPT points it was evaluated at (`points`)."""

    def __init__(self, name: str) -> None:
        self.function = FUNCTIONS[name]
        self.calls = 0
        self.points: list[torch.Tensor] = []

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """The function's value at x."""
        self.calls += 1
        if len(self.points) < POINTS_KEPT and isinstance(x, torch.Tensor):
            self.points.append(x.detach().clone())
        return self.function(x)
