"""Watch the backward passes the autograd engine runs, so that a training check can tell a trained model from a made
one.

`with BackwardPasses() as passes:` counts, in `passes.count`, the backward passes started inside the block. Every
Python route into the engine (Tensor.backward, torch.autograd.backward and grad, torch.func's grad) calls
`Variable._execution_engine.run_backward`, once per pass: inside the block that engine is a watching stand-in that
hands each call on. A per-kernel watch (a dispatch mode) would see the same passes at about a second of CPU per
training run; this costs a call per step, plus a walk of the step's graph (a few hundred nodes) for the training
loop's own behaviour: `passes.stale` counts the passes that accumulate into a leaf still holding a non-zero gradient
from before (no zero_grad), `passes.steps` the torch.optim steps taken in the block, and `passes.leaves` holds the
leaves of the last such pass (the parameters being trained)."""
from torch.autograd.variable import Variable
from torch.optim.optimizer import register_optimizer_step_post_hook

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)


def graph_leaves(outputs: object) -> list:
    """The leaf tensors (with requires_grad) a backward pass from outputs reaches: the AccumulateGrad nodes'
    variables."""
    roots = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    stack = [getattr(t, "grad_fn", None) for t in roots]
    # holds each node it names: torch 2.2 makes a fresh Python object per visit, whose id a freed one could reuse
    seen: dict[int, object] = {}
    leaves = []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        variable = getattr(node, "variable", None)
        if variable is not None:
            leaves.append(variable)
        stack.extend(child for child, _ in node.next_functions)
    return leaves


class _WatchingEngine:
    """Stands in for the autograd engine: counts run_backward calls, looks at their leaves, hands everything on."""

    def __init__(self, engine: object, passes: "BackwardPasses") -> None:
        self._engine, self._passes = engine, passes

    def run_backward(self, *args: object, **kwargs: object) -> object:
        """One backward pass, counted; one that accumulates into leaves holding gradients already counted as stale."""
        self._passes.count += 1
        accumulates = kwargs.get("accumulate_grad", args[6] if len(args) > 6 else True)  # torch.autograd.grad does not
        if accumulates and args:
            leaves = graph_leaves(args[0])
            self._passes.leaves = tuple(leaves)
            if any(leaf.grad is not None and bool(leaf.grad.ne(0).any()) for leaf in leaves):
                self._passes.stale += 1
        return self._engine.run_backward(*args, **kwargs)

    def __getattr__(self, name: str) -> object:
        return getattr(self._engine, name)


class BackwardPasses:
    """Context manager: the autograd engine's backward passes inside the block, the stale ones, and the optimiser
    steps."""

    def __init__(self) -> None:
        self.count = self.stale = self.steps = 0
        self.leaves: tuple = ()
        self._engine: object = None
        self._hook: object = None

    def _stepped(self, *_: object) -> None:
        """An optimiser of torch.optim took a step."""
        self.steps += 1

    def __enter__(self) -> "BackwardPasses":
        self._engine = Variable._execution_engine
        Variable._execution_engine = _WatchingEngine(self._engine, self)
        self._hook = register_optimizer_step_post_hook(self._stepped)
        return self

    def __exit__(self, *exc: object) -> None:
        Variable._execution_engine = self._engine
        self._hook.remove()
