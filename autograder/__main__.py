"""`python -m autograder`: see autograder.cli."""
import os
import sys

from .cli import main


def _in_a_shell() -> bool:
    """True when this runs inside an interactive interpreter (IPython's `%run -m autograder`, a Jupyter kernel,
    `python -i`), whose process must outlive the command."""
    ipython = sys.modules.get("IPython")
    return (
        hasattr(sys, "ps1")
        or bool(sys.flags.interactive)
        or (ipython is not None and ipython.get_ipython() is not None)
    )


code = main()
try:
    sys.stdout.flush()
    sys.stderr.flush()
except BrokenPipeError:  # the reader (say `| head`) stopped early
    pass
if not _in_a_shell():
    os._exit(code)  # a script process: skip the interpreter's teardown of torch, a quarter of a second spent on nothing
