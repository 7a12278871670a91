"""Count the backward passes the autograd engine runs, so that a training check can tell a trained model from a made one.

`with BackwardPasses() as passes:` runs the student's code under a TorchDispatchMode that notes the graph task of every
kernel the autograd engine runs (`torch._C._current_graph_task_id() != -1`); `passes.count` is then how many distinct
backward passes ran inside the block, in the calling thread (where the engine runs CPU work).
"""
import torch
from torch.utils._python_dispatch import TorchDispatchMode

_graph_task_id = getattr(torch._C, "_current_graph_task_id", lambda: -1)


class BackwardPasses(TorchDispatchMode):
    """Context manager: the number of the autograd engine's backward passes inside the block."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        """Keep torch from wrapping __torch_dispatch__ for dynamo, whose import costs a second and a half."""
        return False

    def __init__(self) -> None:
        super().__init__()
        self._tasks: set[int] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        task = _graph_task_id()
        if task != -1:
            self._tasks.add(task)
        return func(*args, **(kwargs or {}))

    @property
    def count(self) -> int:
        """How many backward passes ran inside the block so far."""
        return len(self._tasks)
