"""What `grade` needs from the operating system, on every platform: an exclusive lock on a file, and a safe way to start
its worker processes.

The lock is fcntl's flock where there is fcntl (Linux, macOS) and msvcrt's byte lock where there is msvcrt (Windows),
held by an open handle: closing it, or the process ending, lets it go. Workers are forked only where the probes of
sandbox/choice.py find every Linux piece: forking a process that has imported torch is unsafe on macOS (the Objective-C
runtime and Apple's math libraries hold locks in threads fork does not copy) and impossible on Windows, so elsewhere
each worker is a fresh interpreter (the spawn start method) that imports what it needs itself.
"""
from pathlib import Path
from typing import IO

from ..sandbox.choice import missing_pieces


class Locked(Exception):
    """Another process holds the lock."""


def exclusive(path: Path) -> IO[bytes]:
    """path (made if missing), opened and locked for this process alone until the handle is closed; Locked when another
    process holds it."""
    handle = open(path, "a+b")  # noqa: SIM115 - the lock lives as long as the handle, which the caller closes
    try:
        try:
            import fcntl
        except ImportError:  # Windows
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # the file's first byte, without waiting
        else:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise Locked(str(path)) from None
    return handle


def start_method() -> str:
    """The multiprocessing start method for workers: "fork" where every Linux piece is found (the workers start with the
    grader's imports), "spawn" elsewhere."""
    return "spawn" if missing_pieces() else "fork"
