"""The sandbox, behind one interface: everything the rest of the kit uses is imported from here, never from a backend.

linux/ is the zygote backend (fork, Landlock, seccomp, a subreaper); child/ is the code that runs in every child
beside the student's, whatever the backend; codec.py is the wire format both sides speak; base.py what the
backends' grader sides share.
"""
from .base import CRASHED, ERROR, STALE_SECONDS, TIMEOUT, WALL_FACTOR, ChildStopped, Ending, sweep_stale
from .linux.parent import Child, Sandbox

__all__ = ["CRASHED", "ERROR", "STALE_SECONDS", "TIMEOUT", "WALL_FACTOR", "Child", "ChildStopped", "Ending", "Sandbox", "sweep_stale"]
