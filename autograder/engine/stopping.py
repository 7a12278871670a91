"""Stopping a grading run cleanly: SIGTERM and SIGHUP act as Ctrl-C.

A `grade` run stopped by `kill`, `timeout`, Slurm or a closed terminal must leave what Ctrl-C leaves: the reports
written so far, a line in the log, the lock released, no copy of a student's code in the temporary folder. No
student's code runs on after the grader: every path closes its sandbox on the way out, and Sandbox.close() ends
every process of it.
"""
import contextlib
import signal
from collections.abc import Iterator

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
    """The exit status of a run stopped by interrupt: 128 + the signal's number for SIGTERM or SIGHUP, else
    interrupted."""
    return 128 + interrupt.signum if isinstance(interrupt, Stopped) else interrupted
