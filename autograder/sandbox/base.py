"""What every sandbox backend shares on the grader's side: the statuses, the limits, a stopped child, the frames, the folders."""
import os
import re
import shutil
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ..i18n import N_, _

MEMORY_BYTES = 4 << 30  # address-space limit of a child
OUTPUT_BYTES = 8 << 20  # largest file a child may write, its captured output included
DISK_BYTES = 64 << 20  # the most a question's files may take in its folder, all together
DISK_ENTRIES = 10_000  # the most files and folders a question may make in its folder
ANSWER_BYTES = 64 << 20  # largest answer the grader reads back
CHILD_FAILED = 70  # exit code of a child whose own loop failed (child/serve.py)
STARTUP_SECONDS = 120  # the most a child may take to start (it imports torch) before it is given up
POLL_SECONDS = 0.25  # the longest wait on a child between two looks at its time
WALL_FACTOR = 3  # a child is stopped after this many times its time limit on the wall clock, however busy the machine
OUTPUT_SHOWN = 2000  # characters of the child's captured output kept for the report
STALE_SECONDS = 600  # a left-behind folder is removed once untouched this long (a running sandbox makes a folder per question)
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "SYSTEMROOT")
SIGNALS = {-11: N_("a segmentation fault"), -6: N_("an abort"), -9: N_("being killed (memory or CPU limit?)"),
           -24: N_("the CPU time limit"), -7: N_("a bus error"), -8: N_("a floating-point exception"),
           -31: N_("a forbidden system call (starting a process or a program, opening a socket, making a device, "
                   "pushing input into a terminal, or reaching another process)")}
TIMEOUT, CRASHED, ERROR = "timeout", "crashed", "error"



def over_disk(folder: Path) -> str | None:
    """Why a question's folder is over its disk limit (DISK_BYTES in all, DISK_ENTRIES entries), or None: the limit is
    the question's, however many files its code wrote (the kernel limits each file to OUTPUT_BYTES)."""
    used, entries, folders = 0, 0, [str(folder)]
    while folders:
        try:
            listing = os.scandir(folders.pop())
        except OSError:
            continue
        with listing:
            for entry in listing:
                entries += 1
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                used += info.st_blocks * 512
                if stat.S_ISDIR(info.st_mode):
                    folders.append(entry.path)
                if used > DISK_BYTES or entries > DISK_ENTRIES:
                    return _("wrote more than {size} MiB or {count} files in its folder: an answer writes nothing to disk").format(
                        size=DISK_BYTES >> 20, count=DISK_ENTRIES)
    return None


class ChildStopped(Exception):
    """The child is gone (time limit, crash, exit, killed worker): status and a one-line reason."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


@dataclass
class Ending:
    """How a child's life ended: processes it left behind (all killed) and what it printed."""

    orphans: int
    output: str


def timed_out(seconds: float) -> str:
    """The reason of a child stopped at its time limit."""
    return _("stopped after {seconds:g} s: an endless loop, or far too much work?").format(seconds=seconds)


def died(code: int | None) -> tuple[str, str]:
    """(status, reason) of a child that ended on its own before answering, from its exit code (-N: signal N; None: unknown)."""
    if code is not None and code < 0:
        cause = _(SIGNALS[code]) if code in SIGNALS else _("signal {number}").format(number=-code)
        return CRASHED, _("the process crashed with {cause}").format(cause=cause)
    if code is None:
        return ERROR, _("the answer closed the sandbox's channel to the grader: leave file descriptors you did not open alone")
    if code == CHILD_FAILED:
        return ERROR, _("the sandbox could not send your results back after your code ran: the answer changed something "
                        "it relies on (file descriptors, signal handlers, the recursion limit)")
    return CRASHED, _("the process exited (exit code {code}): do not call sys.exit() or os._exit() in an answer").format(code=code)


def read_output(workdir: Path) -> str:
    """The start of what a child printed: output.txt in its folder, if that is still a plain file (never a FIFO or a link)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(workdir / "output.txt", flags)
    except OSError:
        return ""
    try:
        return os.read(fd, OUTPUT_SHOWN).decode("utf-8", "replace") if stat.S_ISREG(os.fstat(fd).st_mode) else ""
    except OSError:
        return ""
    finally:
        os.close(fd)


def remove(folder: Path) -> None:
    """Delete a folder the children wrote in, however deep they nested it: shutil.rmtree (no process to start) and, where it
    fails (it recurses, so a folder nested a thousand deep defeats it), `rm -rf`."""
    try:
        shutil.rmtree(folder)
    except (OSError, RecursionError):
        if shutil.which("rm"):
            subprocess.run(["rm", "-rf", "--one-file-system", str(folder)], check=False, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def sweep_stale(folder: Path) -> int:
    """Remove the folders that killed graders left in folder (SIGKILL skips every cleanup); how many. Such a folder is named
    autograder-<pid>-... or autograder-class-<pid>-..., is ours, has been untouched for STALE_SECONDS and its process is
    gone. They hold copies of students' code, and each entry of the temporary folder costs every later child one
    Landlock rule."""
    removed = 0
    for entry in folder.glob("autograder-*"):
        match = re.match(r"autograder-(?:class-)?(\d+)-", entry.name)
        try:
            info = entry.lstat()
        except OSError:
            continue
        mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
        idle = stat.S_ISDIR(info.st_mode) and mine and time.time() - info.st_mtime > STALE_SECONDS
        if match and idle and not _running(int(match.group(1))):
            remove(entry)
            removed += 1
    return removed


def _running(pid: int) -> bool:
    """True while a process with that pid exists (a pid reused since counts as running: its folder is left alone)."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        return psutil.pid_exists(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):  # another user's process; or a platform where signal 0 means something else
        pass
    return True


def load_answer(frame: bytes) -> object:
    """The value a child's frame encodes (sandbox/codec.py); ValueError for anything else."""
    from . import codec  # here, not at the top: the sandbox is started before the grader imports torch

    return codec.decode(frame)


def frame(request: dict) -> bytes:
    """request, encoded, behind its length: one frame of the protocol."""
    from . import codec

    data = codec.encode(request)
    return len(data).to_bytes(8, "little") + data
