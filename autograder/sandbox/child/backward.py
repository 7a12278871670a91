"""Count the backward passes the autograd engine runs, so that a training check can tell a trained model from a made one.

`with BackwardPasses() as passes:` counts, in `passes.count`, the backward passes started inside the block. Every
Python route into the engine (Tensor.backward, torch.autograd.backward and grad, torch.func's grad) calls
`Variable._execution_engine.run_backward`, once per pass: inside the block that engine is a counting stand-in that hands
each call on. A per-kernel watch (a dispatch mode) would see the same passes at about a second of CPU per training run;
this costs a call per step.
"""
from torch.autograd.variable import Variable


class _CountingEngine:
    """Stands in for the autograd engine: counts run_backward calls, hands everything on."""

    def __init__(self, engine: object, passes: "BackwardPasses") -> None:
        self._engine, self._passes = engine, passes

    def run_backward(self, *args: object, **kwargs: object) -> object:
        """One backward pass, counted."""
        self._passes.count += 1
        return self._engine.run_backward(*args, **kwargs)

    def __getattr__(self, name: str) -> object:
        return getattr(self._engine, name)


class BackwardPasses:
    """Context manager: the number of the autograd engine's backward passes inside the block."""

    def __init__(self) -> None:
        self.count = 0
        self._engine: object = None

    def __enter__(self) -> "BackwardPasses":
        self._engine = Variable._execution_engine
        Variable._execution_engine = _CountingEngine(self._engine, self)
        return self

    def __exit__(self, *exc: object) -> None:
        Variable._execution_engine = self._engine
