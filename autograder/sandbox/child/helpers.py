"""Known scalar functions the grader can pass to the student's code (numerical_grad), counting their calls."""
import torch

FUNCTIONS = {
    "cubic": lambda x: (x**3).sum() - 2 * (x**2).sum(),
    "sin_exp": lambda x: torch.sin(x).sum() + torch.exp(0.5 * x).prod(),
    "read_loss": lambda x: torch.softmax(x.flatten(), dim=0) @ torch.arange(1.0, x.numel() + 1, dtype=x.dtype) ** 2,
    "quartic": lambda x: (x**4).sum() + x.flatten()[0] * x.flatten()[-1],
}


class Counted:
    """One of FUNCTIONS, by name, counting how often it is called (read back as the attribute `calls`)."""

    def __init__(self, name: str) -> None:
        self.function = FUNCTIONS[name]
        self.calls = 0

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """The function's value at x."""
        self.calls += 1
        return self.function(x)
