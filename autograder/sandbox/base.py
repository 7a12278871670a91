"""What every sandbox backend shares on the grader's side: the statuses, the limits, a stopped child, the frames, the
folders."""
import abc
import ast
import hmac
import json
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..i18n import N_, _
from ..statuses import CRASHED, ERROR, FLAGGED, TIMEOUT
from ..user_folder import new_file
from .choice import Choice, choose
from .limits import DISK_BYTES, DISK_ENTRIES, OUTPUT_SHOWN, STALE_SECONDS

# a folder opened to be listed: never through a link
FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
# folders opened relative to a descriptor, listed through one, and given back their rights through /proc (Linux)
BY_DESCRIPTOR = os.scandir in os.supports_fd and os.open in os.supports_dir_fd and hasattr(os, "O_PATH")
CHILD_FAILED = 70  # exit code of a child whose own loop failed (child/serve.py)
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "SYSTEMROOT")
SIGNALS = {-11: N_("a segmentation fault"), -6: N_("an abort"), -9: N_("being killed (memory or CPU limit?)"),
           -7: N_("a bus error"), -8: N_("a floating-point exception"),
           -31: N_("a forbidden system call (starting a process or a program, opening a socket, making a device, "
                   "pushing input into a terminal, or reaching another process)")}
# what the kernel sends a child at its CPU-time rlimit (0: none on this system)
CPU_SIGNAL = getattr(signal, "SIGXCPU", 0)
# access violation, fast fail, divisions
WINDOWS_CRASHES = {0xC0000005: -11, 0xC0000409: -6, 0xC0000094: -8, 0xC000008E: -8}



def over_disk(folder: Path, pid: int | None = None) -> str | None:
    """Why a question's folder is over its disk limit (DISK_BYTES in all, DISK_ENTRIES entries), or None: the limit
    is the question's, however many files its code wrote (the kernel limits each file to OUTPUT_BYTES) and however deep
    it nested them (_below). pid: the child, whose files removed while it keeps them open count too (no listing shows
    them; the disk holds them until it ends). A child that moves its folders while they are counted is over it."""
    over = _(
        "wrote more than {size} MiB or {count} files in its folder: an answer writes nothing to disk"
    ).format(size=DISK_BYTES >> 20, count=DISK_ENTRIES)
    for _try in range(MOVED_TRIES):
        used, entries = held_unlisted(pid, folder), 0
        try:
            for entry in _below(str(folder)):
                entries += 1
                try:
                    used += entry.stat(follow_symlinks=False).st_blocks * 512
                except OSError:
                    continue
                if used > DISK_BYTES or entries > DISK_ENTRIES:
                    return over
            return None
        except _Moved:
            continue
    return over


def held_unlisted(pid: int | None, folder: Path | None = None) -> int:
    """Bytes on disk of the plain files process pid holds that no folder lists (removed after being opened, or made
    with O_TMPFILE), read from /proc: open (its descriptors), or mapped (mapped_removed); 0 where there is no /proc or
    no such process."""
    if pid is None:
        return 0
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    used = 0
    for fd in descriptors:
        try:
            info = os.stat(f"/proc/{pid}/fd/{fd}")  # the open file itself, linked or not
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_nlink == 0:
            used += info.st_blocks * 512
    return used + (0 if folder is None else mapped_removed(pid, folder))


def mapped_removed(pid: int, folder: Path) -> int:
    """Bytes on disk of the removed files of folder (below its path) that process pid maps: a mapping
    keeps a file's blocks as a descriptor does, once the descriptor is closed and no folder lists it, and one page of
    address space holds a whole file (tests/attacks/kernel_disk_mapped_unlinked_files.py). Each is read through
    /proc/<pid>/map_files where the grader may (CAP_SYS_ADMIN: root); elsewhere its size is unknown and it counts as
    more than the whole limit, DISK_BYTES (fail closed: an answer maps no file it removed). 0 without /proc."""
    try:
        with open(f"/proc/{pid}/maps", "rb") as handle:
            data = handle.read()
    except OSError:
        return 0
    if b" (deleted)" not in data:  # the usual case: nothing more to read
        return 0
    lines = data.splitlines()
    below, seen, used = os.fsencode(os.path.realpath(folder)) + b"/", set(), 0
    for line in lines:
        fields = line.split(None, 5)
        if len(fields) < 6 or not fields[5].endswith(b" (deleted)"):
            continue
        key = (fields[3], fields[4])
        if key in seen or not fields[5].startswith(below):
            continue
        seen.add(key)
        try:
            info = os.stat(f"/proc/{pid}/map_files/{fields[0].decode()}")
        except PermissionError:
            used += DISK_BYTES + 1
            continue
        except OSError:  # unmapped since
            continue
        if stat.S_ISREG(info.st_mode) and info.st_nlink == 0:
            used += info.st_blocks * 512
    return used


class ChildStopped(Exception):
    """The child is gone (time limit, crash, exit, killed worker): status and a one-line reason. environment: the
    sandbox itself could not start (the kit's installation, not the student's code). ended: "child" when the child
    ended on its own, "zygote" when the process it was forked from died; "" when the grader stopped it."""

    def __init__(self, status: str, reason: str, environment: bool = False, ended: str = "") -> None:
        super().__init__(reason)
        self.status, self.reason, self.environment, self.ended = status, reason, environment, ended


@dataclass
class Ending:
    """How a child's life ended: processes it left behind (all killed) and what it printed."""

    orphans: int
    output: str


class Sandbox(abc.ABC):
    """The interface every backend implements (linux/, portable/): `start_sandbox()` (sandbox/__init__.py) starts the
    one the probes of sandbox/choice.py choose.

    open() gives one Child per question, which runs the student's module in its own process; close() ends them all.
    """

    backend = ""  # each backend's name
    choice: Choice | None = None  # the Choice that picked this backend, set when start_sandbox() chose it
    folder: Path  # the sandbox's own folder (0700): its children's folders are in it, and no child may read the others'

    def about(self) -> dict:
        """The `sandbox` entry of `check --json`: which backend ran, whether it was forced, the Linux pieces missing."""
        choice = self.choice or Choice(self.backend, True, choose().missing)
        return choice.to_dict() | {"backend": self.backend}

    @abc.abstractmethod
    def open(
        self,
        package: Path,
        module: str,
        time_limit: float,
        hidden: tuple[Path, ...] = (),
        preload: tuple[str, ...] = (),
    ) -> "Child":
        """A child that imports exercises.<module> from package and answers requests until closed (see the backends)."""
        raise NotImplementedError

    @abc.abstractmethod
    def wait_ready(self, timeout: float) -> None:
        """Wait up to timeout seconds until the sandbox can start a question at once (torch imported)."""
        raise NotImplementedError

    def prepare(self, preload: tuple[str, ...], questions: int = 0) -> None:  # noqa: B027 - a backend may keep this
        """Modules that later questions' children preload (their suites' preload markers, in the questions' order),
        and how many questions each package has, said before the first question: a backend that can import them
        ahead, beside the questions graded first, does, and one that starts a process per question may start more
        ahead; the others do as asked."""

    def renew(self) -> bool:
        """Make the next child start from a process no earlier child touched; True when that took a new one (a
        backend whose children start from nothing shared has nothing to renew)."""
        return False

    def branch(self) -> "Sandbox | None":
        """A sandbox for a grader lane that this process forks next (engine/lanes.py), sharing this one's processes,
        with forget() to let go of either in the process that does not use it; None where the backend cannot (the
        portable one: each lane would import torch anew)."""
        return None

    def forget(self) -> None:  # noqa: B027 - only a backend that branches has descriptors to let go of
        """Let go of this sandbox in a process that will not use it (a lane just forked, or the grader once its lane
        took the branch): close this process's copies of its descriptors; stop and remove nothing."""

    @abc.abstractmethod
    def close(self) -> None:
        """Stop every process of the sandbox and remove its folder."""
        raise NotImplementedError


class Child:
    """One question's child, as the engine sees it: first(), ask(), ended(), close(); stopped, spent and time_limit."""

    stopped: ChildStopped | None = None
    spent = 0.0
    time_limit = 0.0
    touched = False  # forked from a process that had forked an earlier child (whose code may have changed it)

    def first(self) -> dict:
        """The child's first word: whether the student's module imported (within the time limit)."""
        raise NotImplementedError

    def ask(self, request: dict) -> dict:
        """Send one request (plain data and tensors) and return the child's answer; ChildStopped when it cannot
        answer."""
        raise NotImplementedError

    def ended(self) -> bool:
        """True when the child was stopped or has exited on its own."""
        raise NotImplementedError

    def printed(self) -> int:
        """How many bytes the child has printed so far (its output.txt, in each backend's workdir); 0 when unknown."""
        try:
            info = os.lstat(Path(self.workdir) / "output.txt")
        except (OSError, AttributeError, TypeError):
            return 0
        return info.st_size if stat.S_ISREG(info.st_mode) else 0

    def close(self) -> Ending:
        """Tell the child to stop and return what it left behind."""
        raise NotImplementedError

    def _stop(self, status: str, reason: str) -> ChildStopped:
        """Kill the child, remember why, and return the exception to raise (each backend kills its own way)."""
        raise NotImplementedError

    def key_frame(self) -> bytes:
        """The child's first request frame: a fresh random key, with which its own loop tags every answer
        (child/serve.py)."""
        from . import codec  # here, not at the top: the sandbox is started before the grader imports torch

        key = secrets.token_bytes(codec.KEY_BYTES)
        self._tag, self._tag_bytes = codec.sealer(key), codec.TAG_BYTES
        return frame({"key": key.hex()})

    def _answer(self, data: bytes) -> dict:
        """The answer one frame of the child's holds, as plain data; ChildStopped when it is not one, flagged when
        its tag is not the one the child's own loop makes (student code wrote it). Reading it is charged to the
        question."""
        start = time.monotonic()
        try:
            body, tag = data[: -self._tag_bytes], data[-self._tag_bytes :]
            if len(data) < self._tag_bytes or not hmac.compare_digest(tag, self._tag(body)):
                raise self._stop(
                    FLAGGED,
                    _("flagged for review: the code reaches into the grader ({what})").format(
                        what=_("an answer the sandbox did not send: the code writes to the grader itself")
                    ),
                )
            try:
                answer = load_answer(body)
            except Exception as error:  # noqa: BLE001 - the frame is the student's process's word
                raise self._stop(
                    ERROR, _("sent back data the grader cannot read ({error})").format(error=type(error).__name__)
                ) from None
        finally:
            self.spent += time.monotonic() - start
        if (
            not isinstance(answer, dict)
            or not isinstance(answer.get("ok"), bool)
            or not isinstance(answer.get("refused", []), list)
        ):
            raise self._stop(ERROR, _("sent back data the grader cannot read (not an answer)"))
        return answer


def isolated_python() -> list[str]:
    """The command line start of a child's interpreter: isolated (-I), and -B when the grader writes no bytecode
    (PYTHONDONTWRITEBYTECODE or -B, which -I would drop): no __pycache__ in the kit's folders then."""
    return [sys.executable, "-I", *(["-B"] if sys.dont_write_bytecode else [])]


def child_env(folder: Path) -> dict[str, str]:
    """The environment a backend starts its processes with: a few variables of the grader's, the private folder as HOME
    and TMPDIR, one thread for the math libraries, and the grader's sys.path (sandbox/boot.py reads it)."""
    env = {key: os.environ[key] for key in KEPT_ENV if key in os.environ}
    kit = os.path.realpath(Path(__file__).resolve().parent.parent.parent)
    # never the kit's own folder
    path = [entry for entry in sys.path if entry and os.path.isdir(entry) and os.path.realpath(entry) != kit]
    env.update(
        HOME=str(folder),
        TMPDIR=str(folder),
        TEMP=str(folder),
        TMP=str(folder),
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        AUTOGRADER_SYS_PATH=json.dumps(path),
    )
    return env


_KEPT: dict[Path, Path] = {}  # a sandbox's errors file -> the log kept of it


def could_not_start(errors: Path, backend: str = "linux", killed: bool = False) -> ChildStopped:
    """The stop of a question whose sandbox could not start (no torch for the child, a missing piece, too little
    memory, too few processes, a process that died before it could take a job): the cause in one line, what to do
    (what the machine lacks, when it lacks something), and a kept copy of errors (what the processes said). backend:
    the one running; killed: the process was killed (SIGKILL) before it said anything, as the kernel kills a process
    when memory runs out."""
    try:
        text = errors.read_bytes().decode("utf-8", "replace")
    except OSError:
        text = ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    cause = lines[-1][:300] if lines else _("it stopped before saying why")
    try:
        # one log per sandbox, in the user's private folder, rewritten with what its processes said since
        if errors not in _KEPT:
            _KEPT[errors] = new_file("sandbox") or errors
        log = _KEPT[errors]
        log.write_text(f"python: {sys.executable}\nsys.path: {sys.path}\n\n{text}", encoding="utf-8")
    except OSError:
        log = errors
    lacking = environment_problem(text, backend) or (memory_shortage(backend) if killed and not lines else None)
    missing = re.search(r"No module named '([^']+)'", cause)
    if lacking:
        reason = _(
            "the sandbox could not start, a problem of this machine and not of your code: {cause}. {todo} "
            "The details are in {log}."
        ).format(cause=cause, todo=lacking, log=log)
        return ChildStopped(ERROR, reason, environment=True)
    if missing:
        todo = _("Install {module} for the Python that runs the kit ({python}), then check again.").format(
            module=missing.group(1).split(".")[0], python=sys.executable
        )
    elif backend == "linux":
        todo = _(
            "Reinstall the kit (`pip install -e .` in its folder); setting AUTOGRADER_SANDBOX=portable tries the other "
            "sandbox."
        )
    else:
        todo = _("Reinstall the kit (`pip install -e .` in its folder).")
    reason = _(
        "the sandbox could not start, a problem of the kit's installation and not of your code: {cause}. {todo} "
        "The details are in {log}."
    ).format(cause=cause, todo=todo, log=log)
    return ChildStopped(ERROR, reason, environment=True)


# What a sandbox needs of the machine: the most memory grading the solutions held at once (`check --solutions`, all ten
# questions: the proportional set size of the grader and its sandbox's processes together, sampled every 0.3 s; measured
# 503 MB and 595 MB on Linux, torch 2.13, where an earlier count gave 448 and 576), and the processes it runs at once
# (the grader, the pristine process, the zygote and a child; the portable backend's grader, a child and its warm spare),
# threads not counted.
MEMORY_NEEDED = {"linux": 503 << 20, "portable": 595 << 20}
PROCESSES_NEEDED = {"linux": 4, "portable": 3}
_OUT_OF_PROCESSES = re.compile(r"BlockingIOError|Resource temporarily unavailable|EAGAIN|\[Errno 11\]")
_OUT_OF_MEMORY = re.compile(
    r"MemoryError|[Cc]annot allocate memory|failed to map segment|std::bad_alloc|[Oo]ut of memory|ENOMEM|"
    r"\[Errno 12\]"
)


def environment_problem(text: str, backend: str) -> str | None:
    """What the machine lacks, as a sentence that says what the kit needs, when text (what a sandbox's process said
    before it died) shows the system refused it a process or memory; None otherwise."""
    if _OUT_OF_PROCESSES.search(text):
        return _(
            "The system refused to start another process: a limit on processes (`ulimit -u`, or a container's "
            "pids.max) is reached. The kit needs {count} processes of its own at once, besides their threads; raise "
            "the limit or end other processes."
        ).format(count=PROCESSES_NEEDED.get(backend, max(PROCESSES_NEEDED.values())))
    if _OUT_OF_MEMORY.search(text):
        return memory_shortage(backend)
    return None


def memory_shortage(backend: str) -> str:
    """The sentence for a sandbox that ran out of memory: what grading needs with this backend, and what to do."""
    return _(
        "The machine ran out of memory: grading needs about {needed} MB (the {backend} sandbox; {other} MB with the "
        "other one). Close other programs, or give the container or notebook server more memory."
    ).format(
        needed=MEMORY_NEEDED.get(backend, max(MEMORY_NEEDED.values())) >> 20,
        backend=backend,
        other=MEMORY_NEEDED["portable" if backend == "linux" else "linux"] >> 20,
    )


def refused(error: OSError, backend: str) -> ChildStopped:
    """The stop of a question whose process the system refused to start (error: what starting it raised)."""
    lacking = environment_problem(f"{type(error).__name__}: {error}", backend) or _(
        "it could not start a process ({error})"
    ).format(error=error)
    return ChildStopped(
        ERROR,
        _("the sandbox could not start, a problem of this machine and not of your code: {todo}").format(todo=lacking),
        environment=True,
    )


class RefusedChild(Child):
    """A question's child that could not be started (the system refused the process): every call raises its stop."""

    def __init__(self, stopped: ChildStopped) -> None:
        self.stopped = stopped

    def first(self) -> dict:
        """Raise the stop."""
        raise self.stopped

    def ask(self, request: dict) -> dict:
        """Raise the stop."""
        raise self.stopped

    def ended(self) -> bool:
        """Always True."""
        return True

    def close(self) -> Ending:
        """Nothing ran: no orphan, no output."""
        return Ending(0, "")


def timed_out(seconds: float, where: str = "") -> str:
    """The reason of a child stopped at its time limit, with where it was (where_it_ran) when that is known."""
    return _("stopped after {seconds:g} s: an endless loop, or far too much work?").format(seconds=seconds) + where


STACK_FILE, STACK_SIGNAL = "stack.txt", getattr(signal, "SIGUSR1", None)  # as child/serve.py writes it
# the most the grader waits for a stopped child's stack: a child starved of a core on a busy machine is slow to
STACK_WAIT = 3.0
STACK_SETTLED = 0.1  # write it, and the wait ends once the dump has not grown for this long
STACK_SHOWN = 64 << 10  # the end of the stack file that is read
SOURCE_READ = 1 << 20  # the most of a student's file read to find the loop a stopped child was in
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+) in (.+)$')


def where_it_ran(pid: int | None, workdir: Path, package: Path) -> str:
    """` It was running `f` (exercises/q04_heads.py, line 12).`: the innermost frame in the student's files (package) of
    the stack a running child writes when asked (child/serve.py watch_stack), "" when it wrote none there.

    Call it before killing the child. The file is the student's process's word: only well-formed lines under package
    are read, and they only ever name a place in the student's own files."""
    stack = workdir / STACK_FILE
    if pid is not None and STACK_SIGNAL is not None:
        before = read_child_file(stack, STACK_SHOWN, last=True)
        try:
            os.kill(pid, STACK_SIGNAL)
        except OSError:
            return ""
        deadline, seen, settled = time.monotonic() + STACK_WAIT, before, 0.0
        while time.monotonic() < deadline and settled < STACK_SETTLED:  # the dump is written in a few small writes
            time.sleep(0.02)
            now = read_child_file(stack, STACK_SHOWN, last=True)
            settled = settled + 0.02 if now != before and now == seen else 0.0
            seen = now
    text = read_child_file(stack, STACK_SHOWN, last=True).decode("utf-8", "replace")
    blocks = re.split(r"(?m)^(?=Current thread|Thread 0x)", text)
    latest = [block for block in blocks if block.strip()]
    if not latest:
        return ""
    current = [block for block in latest if block.startswith("Current thread")]
    ordered = current[-1:] + latest[::-1] if STACK_SIGNAL is not None else latest[::-1]
    root = str(package.resolve())
    for block in ordered:
        frames = [
            match
            for match in map(_FRAME.match, block.splitlines())
            if match and (match.group(1) == root or match.group(1).startswith(root + os.sep))
        ]  # innermost first
        if not frames:
            continue
        looping = [
            (match, start)
            for match in frames
            for start in [_loop_start(Path(match.group(1)), int(match.group(2)))]
            if start
        ]
        # a loop's first line: where a dump
        match, number = looping[0] if looping else (frames[0], int(frames[0].group(2)))
        file = os.path.relpath(match.group(1), os.path.dirname(root)).replace(os.sep, "/")[:120]  # lands in it varies
        function = match.group(3).strip()[:80]
        if function == "<module>":
            return " " + _("It was importing {file}, at line {line}.").format(file=file, line=number)
        return " " + _("It was running `{function}` ({file}, line {line}).").format(
            function=function, file=file, line=number
        )
    return ""


def _loop_start(path: Path, line: int) -> int | None:
    """The first line of the outermost loop (for, while) around line in its own function of the student's file path,
    None when line is in no loop or the file cannot be read (read_child_file) and parsed; the file is parsed,
    never run."""
    try:
        node: ast.AST = ast.parse(read_child_file(path, SOURCE_READ).decode("utf-8", "replace"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    start = None
    while True:
        inside = [
            child
            for child in ast.iter_child_nodes(node)
            if getattr(child, "lineno", line + 1) <= line <= (getattr(child, "end_lineno", 0) or 0)
        ]
        if not inside:
            return start
        node = inside[0]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            start = None  # a loop around the definition is not this function's
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and start is None:
            start = node.lineno


def died(code: int | None, time_limit: float) -> tuple[str, str]:
    """(status, reason) of a child that ended on its own before answering, from its exit code (-N: signal N; None:
    unknown; from 0xC0000000 up, the exception that ended a Windows process). Its CPU-time limit (rlimit's
    SIGXCPU, at time_limit + CPU_GRACE_SECONDS) is a timeout, as the grader's own clock would have said a moment
    later."""
    if CPU_SIGNAL and code == -CPU_SIGNAL:
        return TIMEOUT, timed_out(time_limit)
    if code is not None and code >= 0xC0000000:
        if code not in WINDOWS_CRASHES:
            return CRASHED, _("the process crashed with {cause}").format(
                cause=_("the Windows exception {code:#x}").format(code=code)
            )
        code = WINDOWS_CRASHES[code]
    if code is not None and code < 0:
        cause = _(SIGNALS[code]) if code in SIGNALS else _("signal {number}").format(number=-code)
        return CRASHED, _("the process crashed with {cause}").format(cause=cause)
    if code is None:
        return ERROR, _(
            "the answer closed the sandbox's channel to the grader: leave file descriptors you did not open alone"
        )
    if code == CHILD_FAILED:
        return ERROR, _(
            "the sandbox could not send your results back after your code ran: the answer changed something "
            "it relies on (file descriptors, signal handlers, the recursion limit)"
        )
    return CRASHED, _(
        "the process exited (exit code {code}): do not call sys.exit() or os._exit() in an answer"
    ).format(code=code)


def read_output(workdir: Path) -> str:
    """The start of what a child printed: output.txt in its folder (read_child_file)."""
    return read_child_file(workdir / "output.txt", OUTPUT_SHOWN).decode("utf-8", "replace")


def read_child_file(path: Path, limit: int, last: bool = False) -> bytes:
    """At most limit bytes of a file in a child's folder (its last ones when last), b"" unless it is a plain file:
    the only way the grader reads what a child could replace. Opened without following a link and without waiting
    (a FIFO whose writer never comes, a device), then checked by fstat, so the child's word never blocks the
    grader or points it elsewhere."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return b""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return b""
        if last:
            os.lseek(fd, max(0, info.st_size - limit), os.SEEK_SET)
        chunks, left = [], limit
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return b""
    finally:
        os.close(fd)


class _Moved(Exception):
    """A folder's ".." was not the folder _below came down from: a child moved its folders during the walk."""


MOVED_TRIES = 3  # walks of a child's folder that a child moving its folders meanwhile may spoil before it is over


def _below(folder: str) -> Iterator[os.DirEntry]:
    """Every entry below folder, depth first, each yielded while its folder is open (its stat() is then relative to
    that folder). Where the platform opens a folder relative to a descriptor (Linux, macOS), each folder is opened from
    the one above without following a link and left through its "..", checked to be the folder it came from (_Moved
    otherwise): no path is ever made, so no nesting hides an entry (a path past PATH_MAX, 4,096 bytes, which the kernel
    refuses, hid them from a walk by path), and two descriptors at most are open, however deep. Elsewhere (Windows) by
    path. A folder a child made unlistable gets its owner's rights back first (_open_folder)."""
    if not BY_DESCRIPTOR:
        yield from _below_by_path(folder)
        return
    fd = _open_folder(folder, None)
    if fd is None:
        return
    stack: list[tuple[tuple[int, int], list[str]]] = []  # per folder on the way down: its identity, folders to visit
    try:
        while True:
            info, folders = os.fstat(fd), []
            with os.scandir(fd) as listing:
                for entry in listing:
                    yield entry
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.name)
            stack.append(((info.st_dev, info.st_ino), folders))
            below = None
            while below is None:
                while not stack[-1][1]:  # this folder is done: up to the one above, unless it is the top
                    stack.pop()
                    if not stack:
                        return
                    up = _parent(fd, stack[-1][0])
                    os.close(fd)
                    fd = up
                below = _open_folder(stack[-1][1].pop(), fd)  # None: gone, or no longer a folder
            os.close(fd)
            fd = below
    finally:
        os.close(fd)


def _parent(fd: int, identity: tuple[int, int]) -> int:
    """A descriptor of the folder above fd's, which must be identity (_Moved otherwise, as when it cannot be opened)."""
    try:
        up = os.open("..", FOLDER_FLAGS, dir_fd=fd)
    except OSError as error:
        raise _Moved(identity) from error
    info = os.fstat(up)
    if (info.st_dev, info.st_ino) != identity:
        os.close(up)
        raise _Moved(identity)
    return up


def _open_folder(name: str, dir_fd: int | None) -> int | None:
    """A descriptor of the folder name (relative to dir_fd), never through a link; None when it is not a folder or is
    gone. A folder of the grader's own user that a child made unlistable (mode 0300: a child under the grader's user
    owns what it makes) gets its owner's rights back first, so that its content is counted and removed; the mode is
    changed through a descriptor of the folder itself."""
    try:
        return os.open(name, FOLDER_FLAGS, dir_fd=dir_fd)
    except PermissionError:
        pass
    except OSError:
        return None
    try:
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return None
        os.chmod(f"/proc/self/fd/{fd}", stat.S_IMODE(info.st_mode) | stat.S_IRWXU)
        return os.open(name, FOLDER_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None
    finally:
        os.close(fd)


def _below_by_path(folder: str) -> Iterator[os.DirEntry]:
    """_below where folders cannot be opened relative to a descriptor (Windows): by path."""
    folders = [folder]
    while folders:
        try:
            listing = os.scandir(folders.pop())
        except OSError:
            continue
        with listing:
            for entry in listing:
                yield entry
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)


def remove(folder: Path) -> None:
    """Delete a folder the children wrote in, however deep they nested it and whatever modes they gave its folders:
    shutil.rmtree (no process to start) and, where it fails, the folders' owner rights given back (_below) and again;
    then `rm -rf` (rmtree recurses, so a folder nested a thousand deep defeats it)."""
    try:
        shutil.rmtree(folder)
        return
    except (OSError, RecursionError):
        pass
    try:
        for _entry in _below(str(folder)):  # walking it gives back the owner's rights of each folder
            pass
    except _Moved:
        pass
    try:
        shutil.rmtree(folder)
    except (OSError, RecursionError):
        if shutil.which("rm"):
            subprocess.run(
                ["rm", "-rf", "--one-file-system", str(folder)],
                check=False,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )


def sweep_stale(folder: Path) -> int:
    """Remove the folders that killed graders left in folder (SIGKILL skips every cleanup); how many. Such a folder
    is named autograder-<pid>-... or autograder-class-<pid>-..., is ours, has been untouched for STALE_SECONDS and
    its process is gone. They hold copies of students' code, and each entry of the temporary folder costs every
    later child one Landlock rule."""
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
            removed += not os.path.lexists(entry)  # counted only when it is gone
    return removed


def process_state(pid: int) -> tuple | None:
    """What a process under the same user could change of another one (Linux, /proc): its resource limits, nice value,
    scheduling policy and priority, and the CPUs it may run on; None where that cannot be read (no /proc: not Linux)."""
    try:
        with open(f"/proc/{pid}/limits", "rb") as handle:
            limits = handle.read()
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()  # fields[0] is the stat file's third field (state)
        cpus = frozenset(os.sched_getaffinity(pid))
    except (OSError, AttributeError, IndexError):
        return None
    return limits, fields[16], fields[37], fields[38], cpus  # nice (19th field), rt_priority (40th), policy (41st)


def _running(pid: int) -> bool:
    """True while a process with that pid exists (a pid reused since counts as running: its folder is left alone)."""
    try:
        import psutil  # only a sweep of stale folders needs it: its import costs `check` 80 ms
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
    from . import codec  # here, not at the top: the sandbox is started before the grader imports torch

    data = codec.encode(request)
    return len(data).to_bytes(8, "little") + data
