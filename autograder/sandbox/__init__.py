"""The sandbox, behind one interface: everything the rest of the kit uses is imported from here, never from a backend.

`start_sandbox()` starts the backend that sandbox/choice.py picks by probing each feature it needs
(AUTOGRADER_SANDBOX=linux or portable forces one): linux/ is the zygote backend (fork, Landlock, seccomp, a
subreaper), portable/ spawns one child per question and runs wherever Python does. child/ is the code that runs in
every child beside the student's, whatever the backend; codec.py is the wire format both sides speak; base.py is what
the backends' grader sides share (it knows no backend: each backend imports it, and only this module imports a
backend); limits.py every limit they enforce."""
import sys
from pathlib import Path

from .base import (
    CRASHED,
    ERROR,
    TIMEOUT,
    Child,
    ChildStopped,
    Ending,
    Sandbox,
    isolated_python,
    process_state,
    sweep_stale,
)
from .limits import STALE_SECONDS, STARTUP_SECONDS, WALL_FACTOR
from .choice import FORCE_VARIABLE, LINUX, PORTABLE, Choice, choose
from .machine import memory_warning, room_for_a_lane
from .walls import missing as missing_walls
from .walls import set_dumpable

__all__ = [
    "CRASHED",
    "ERROR",
    "FORCE_VARIABLE",
    "LINUX",
    "PORTABLE",
    "STALE_SECONDS",
    "STARTUP_SECONDS",
    "TIMEOUT",
    "WALL_FACTOR",
    "Child",
    "ChildStopped",
    "Choice",
    "Ending",
    "Sandbox",
    "choose",
    "missing_walls",
    "isolated_python",
    "process_state",
    "room_for_a_lane",
    "start_sandbox",
    "sweep_stale",
]


def start_sandbox(parent: Path | None = None) -> Sandbox:
    """Start the backend the probes choose (AUTOGRADER_SANDBOX forces one), after a warning on stderr when the
    machine has less memory than grading with it needs, this process made not dumpable (walls.set_dumpable). parent:
    where the sandbox's folder is made (default: the temporary folder)."""
    choice = choose()
    # the grader not dumpable (Linux): a child run under its user cannot list its descriptors nor read its environment
    set_dumpable(False)
    # only the chosen backend is imported: the other's modules would lengthen `check`'s start-up
    if choice.backend == LINUX:
        from .linux.parent import LinuxSandbox as backend  # the chosen backend only (above)
    else:
        from .portable.parent import PortableSandbox as backend  # the chosen backend only (above)
    warning = memory_warning(choice.backend)
    if warning:
        print(warning, file=sys.stderr)
    sandbox = backend(parent)
    sandbox.choice = choice
    return sandbox
