"""The sandbox, behind one interface: everything the rest of the kit uses is imported from here, never from a backend.

`Sandbox()` starts the backend that sandbox/choice.py picks by probing each feature it needs (AUTOGRADER_SANDBOX=linux
or portable forces one): linux/ is the zygote backend (fork, Landlock, seccomp, a subreaper), portable/ spawns one
child per question and runs wherever Python does. child/ is the code that runs in every child beside the student's,
whatever the backend; codec.py is the wire format both sides speak; base.py is what the backends' grader sides share;
limits.py every limit they enforce.
"""
from .base import CRASHED, ERROR, TIMEOUT, Child, ChildStopped, Ending, Sandbox, isolated_python, process_state, sweep_stale
from .limits import STALE_SECONDS, STARTUP_SECONDS, WALL_FACTOR
from .choice import FORCE_VARIABLE, LINUX, PORTABLE, Choice, choose
from .walls import missing as missing_walls

__all__ = ["CRASHED", "ERROR", "FORCE_VARIABLE", "LINUX", "PORTABLE", "STALE_SECONDS", "STARTUP_SECONDS", "TIMEOUT", "WALL_FACTOR", "Child", "ChildStopped",
           "Choice", "Ending", "Sandbox", "choose", "missing_walls", "isolated_python", "process_state", "sweep_stale"]
