"""Which backend runs the sandbox: the Linux zygote where every piece it needs answers its probe, the portable one
elsewhere.

Each piece is probed (does the function exist, does it work on this process), never the platform's name: a Linux
without /proc or pidfd_open gets the portable backend too, and so does any platform nobody here has tried.
AUTOGRADER_SANDBOX=linux or =portable forces one.
"""
import os
from dataclasses import dataclass, field

LINUX, PORTABLE = "linux", "portable"
FORCE_VARIABLE = "AUTOGRADER_SANDBOX"


def _fork() -> bool:
    return (
        callable(getattr(os, "fork", None))
        and callable(getattr(os, "waitpid", None))
        and hasattr(os, "waitstatus_to_exitcode")
    )


def _pidfd() -> bool:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return False
    os.close(opener(os.getpid()))
    return True


def _prctl() -> bool:
    import ctypes  # each probe imports what it probes: where the import fails, the piece is missing

    libc = ctypes.CDLL(None, use_errno=True)
    return callable(getattr(libc, "prctl", None)) and callable(getattr(libc, "syscall", None))


def _proc() -> bool:
    with open(f"/proc/{os.getpid()}/stat", "rb") as handle:
        fields = handle.read().rsplit(b")", 1)[1].split()
    return int(fields[1]) == os.getppid() and bool(os.listdir("/proc"))


def _module(name: str) -> bool:
    __import__(name)
    return True


def _fifo() -> bool:
    return callable(getattr(os, "mkfifo", None)) and hasattr(os, "O_NONBLOCK")


def _select_on_pipes() -> bool:
    import select  # each probe imports what it probes: where the import fails, the piece is missing

    reader, writer = os.pipe()
    try:
        os.write(writer, b"x")
        return select.select([reader], [], [], 0)[0] == [reader]
    finally:
        os.close(reader)
        os.close(writer)


def _process_groups() -> bool:
    return all(callable(getattr(os, name, None)) for name in ("setsid", "killpg", "getpgrp", "getuid"))


# What the Linux backend uses, and the probe that tells whether this process has it.
PIECES = {
    "os.fork": _fork,
    "os.pidfd_open": _pidfd,
    "prctl (ctypes)": _prctl,
    "/proc": _proc,
    "resource": lambda: _module("resource"),
    "fcntl": lambda: _module("fcntl"),
    "os.mkfifo": _fifo,
    "select on pipes": _select_on_pipes,
    "os.O_PATH": lambda: hasattr(os, "O_PATH"),
    "process groups": _process_groups,
}


@dataclass(frozen=True)
class Choice:
    """The backend chosen, whether AUTOGRADER_SANDBOX forced it, and the Linux pieces the probes did not find."""

    backend: str
    forced: bool = False
    missing: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict:
        """The `sandbox` entry of `check --json`."""
        return {"backend": self.backend, "forced": self.forced, "missing": list(self.missing)}


def missing_pieces() -> tuple[str, ...]:
    """The pieces of PIECES this process lacks (a probe that raises or answers False)."""
    missing = []
    for name, probe in PIECES.items():
        try:
            present = probe()
        except Exception:  # noqa: BLE001 - any failure of a probe means the piece is not there
            present = False
        if not present:
            missing.append(name)
    return tuple(missing)


def choose() -> Choice:
    """The backend for this process: AUTOGRADER_SANDBOX's when set to a known one, else linux when no piece is
    missing."""
    missing = missing_pieces()
    forced = os.environ.get(FORCE_VARIABLE, "").strip().lower()
    if forced in (LINUX, PORTABLE):
        return Choice(forced, True, missing)
    return Choice(PORTABLE if missing else LINUX, False, missing)
