"""Child-side code: builds inputs from plain specs and calls the student's functions. Uses torch only.

This package is loaded inside the sandboxed worker (as `_probes`) and imported by the grader (as
`autograder.probes`) so that both sides build identical inputs from the same specs. It must never
import the reference or anything else of the grader.
"""
from . import inputs, models, plain, spies, timing
from .calls import MissingFunction, call, calls, numerical_grad_probe

PROBES = {
    "call": call,
    "calls": calls,
    "numerical_grad": numerical_grad_probe,
    "module": models.module_probe,
    "train": models.train_probe,
    "virtual_time": timing.virtual_time_probe,
    "wall_time": timing.wall_time_probe,
}

__all__ = ["PROBES", "MissingFunction", "inputs", "plain", "spies"]
