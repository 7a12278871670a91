"""Stopping a grading run cleanly: SIGTERM and SIGHUP act as Ctrl-C, and a sandbox closes with its children killed.

A `grade` run stopped by `kill`, `timeout`, Slurm or a closed terminal must leave what Ctrl-C leaves: the reports
written so far, a line in the log, the lock released, no copy of a student's code in the temporary folder. And no
student's code may run on after the grader: closing a sandbox kills its zygote, whose children (one per question,
each in its own session) would otherwise run on to their CPU limit.
"""
import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

STOPPING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: handled wherever Ctrl-C is; signum says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_stopped(signum: int, _frame: object) -> None:
    raise Stopped(signum)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise Stopped (a KeyboardInterrupt) in the main thread, as Ctrl-C does."""
    try:
        saved = {signum: signal.signal(signum, _raise_stopped) for signum in STOPPING_SIGNALS}
    except ValueError:  # not the main thread: the caller's own handlers stay
        yield
        return
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def exit_status(interrupt: KeyboardInterrupt, interrupted: int = 130) -> int:
    """The exit status of a run stopped by interrupt: 128 + the signal's number for SIGTERM or SIGHUP, else interrupted."""
    return 128 + interrupt.signum if isinstance(interrupt, Stopped) else interrupted


def _children(pid: int) -> set[int]:
    """The processes whose parent is pid (Linux /proc; empty elsewhere or when pid is gone)."""
    found: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            found.update(int(child) for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    except (OSError, ValueError):
        pass
    return found


def kill_children(sandbox: object) -> None:
    """SIGKILL the process group of every child of the sandbox's zygote (read while the zygote lives: none of them has been
    reaped, so no pid can have been reused by another process)."""
    process = getattr(sandbox, "process", None)
    if process is None or process.poll() is not None:
        return
    for pid in _children(process.pid):
        for kill in (os.killpg, os.kill):  # a child leads its own session; a process it started may not
            try:
                kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, OSError):
                pass


def close_sandbox(sandbox: object) -> None:
    """Close sandbox (its zygote killed, its folder removed) with every child it forked killed first."""
    kill_children(sandbox)
    sandbox.close()
