"""A platform without the Linux-only pieces, for tests: imported first in every process of a simulated interpreter.

tests/test_portable.py puts this file in the site-packages of a fake environment (a pyvenv.cfg beside a link to the
real interpreter) with a .pth line that imports it, so that every process started with that interpreter, `python -I`
children included, loses the pieces before anything else runs: os.pidfd_open, os.O_PATH, prctl and syscall through
ctypes (so neither Landlock nor seccomp), and reads of /proc (psutil's own excepted: it has a native implementation on
every other platform). What POSIX gives every Unix (fork, fcntl, resource, FIFOs, select on pipes) stays: macos.py
adds macOS's own ways, no_posix.py takes POSIX away (Windows). Each process that loads it appends its argv to LOG, so
the test can see that the removal reached it.
"""
import builtins
import errno
import os
import posix
import sys

LOG = None  # the test writes the log's path here when it copies this file

for module in (os, posix):
    for name in ("pidfd_open", "O_PATH"):
        if hasattr(module, name):
            delattr(module, name)


def _from_psutil() -> bool:
    """True when the caller two frames up is psutil (its Linux code reads /proc; on other platforms it asks the
    kernel)."""
    frame = sys._getframe(2)
    return str(frame.f_globals.get("__name__", "")).startswith("psutil")


def _in_proc(path: object) -> bool:
    if isinstance(path, int):
        return False
    try:
        text = os.fsdecode(path)
    except TypeError:
        return False
    return os.path.abspath(text).startswith("/proc")


def _refusing(function: object) -> object:
    def without_proc(path: object = ".", *args: object, **kwargs: object) -> object:
        if _in_proc(path) and not _from_psutil():
            raise FileNotFoundError(errno.ENOENT, "no /proc on this platform (simulated)", os.fsdecode(path))
        return function(path, *args, **kwargs)

    without_proc.__name__ = function.__name__
    # never bound: Python 3.10's pathlib keeps os.stat as a class attribute of its accessor
    return staticmethod(without_proc)


builtins.open = _refusing(builtins.open)
import io  # noqa: E402

io.open = builtins.open
for name in ("open", "listdir", "scandir", "stat"):
    setattr(os, name, _refusing(getattr(os, name)))

import ctypes  # noqa: E402

_getattr = ctypes.CDLL.__getattr__


def _no_prctl(self: ctypes.CDLL, name: str) -> object:
    if name in ("prctl", "syscall"):
        raise AttributeError(f"{name}: no such symbol on this platform (simulated)")
    return _getattr(self, name)


ctypes.CDLL.__getattr__ = _no_prctl
_getitem = ctypes.CDLL.__getitem__
ctypes.CDLL.__getitem__ = lambda self, name: (
    _no_prctl(self, name) if isinstance(name, str) and name in ("prctl", "syscall") else _getitem(self, name)
)

if LOG:
    with builtins.open(LOG, "a", encoding="utf-8") as log:
        log.write(" ".join(sys.orig_argv if hasattr(sys, "orig_argv") else sys.argv) + "\n")
