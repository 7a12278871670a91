"""The portable backend's grader side: spawn one child per question (worker.py), keep a spare warm, stop whole trees.

Nothing here needs fork, /proc, FIFOs, select on pipes or `resource`: each child is a fresh `python -I` process
started by subprocess in its own folder and process group (a new session on POSIX), its stdin and stdout are its
channel (frames of sandbox/codec.py), read by a thread, written by another. A child imports torch before its job
comes, so the sandbox starts one at once and keeps a spare warm while a question runs. psutil finds a child's
processes, to kill them all at the time limit, and measures their memory where the kernel cannot limit it.
"""
import collections
import os
import queue
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from ...i18n import _
from .job_object import JobObject, for_child
from ..base import (
    ERROR,
    TIMEOUT,
    Child,
    ChildStopped,
    Ending,
    RefusedChild,
    Sandbox,
    child_env,
    could_not_start,
    died,
    frame,
    isolated_python,
    load_answer,
    over_disk,
    process_state,
    read_output,
    refused,
    remove,
    sweep_stale,
    timed_out,
    where_it_ran,
)
from ..limits import ANSWER_BYTES, MEMORY_BYTES, OUTPUT_BYTES, OUTPUT_KILLED_BYTES, POLL_SECONDS, time_left

WORKER = Path(__file__).resolve().parent / "worker.py"
EXIT_SECONDS = 2.0  # how long a child told to stop may take before it is killed
KILLED = -9  # the exit code reported for a child the memory watchdog killed (as a kernel kill reads on Linux)


def _processes(pid: int) -> list:
    """psutil's view of pid and everything it started, [] where psutil cannot tell."""
    try:
        import psutil  # its import costs 80 ms: only where a child's tree, state or CPU time is read

        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except Exception:  # noqa: BLE001 - psutil missing, the process gone, or no way to list processes here
        return []


def _state(pid: int) -> tuple | None:
    """What another process of the same user could change of process pid: its limits, priority, scheduling and CPUs
    from /proc on Linux (base.process_state), elsewhere its priority and CPUs as psutil reads them (macOS, Windows);
    None where neither can be read."""
    state = process_state(pid)
    if state is not None:
        return state
    try:
        import psutil  # its import costs 80 ms: only where a child's tree, state or CPU time is read

        process = psutil.Process(pid)
        return process.nice(), tuple(process.cpu_affinity()) if hasattr(process, "cpu_affinity") else ()
    except Exception:  # noqa: BLE001 - psutil missing, the process gone
        return None


def _kill(processes: list, popen: subprocess.Popen, job_object: JobObject | None) -> None:
    """Kill popen's process, its job where there are jobs (Windows), its process group where there are groups, and
    processes (psutil's)."""
    if job_object is not None:
        job_object.kill()  # the kernel ends the whole tree at once, whatever left psutil's view of it
    if popen.poll() is None and callable(getattr(os, "killpg", None)):
        try:
            os.killpg(popen.pid, signal.SIGKILL)  # the child's own session: what it started without leaving it
        except OSError:
            pass
    for process in processes:
        try:
            process.kill()
        except Exception:  # noqa: BLE001 - already gone
            pass
    if popen.poll() is None:
        popen.kill()


class _Reader(threading.Thread):
    """Reads a child's stdout into frames, on its own thread (pipes cannot be waited on portably): events on a queue."""

    def __init__(self, fd: int) -> None:
        super().__init__(daemon=True)
        self.fd, self.events = fd, queue.Queue()
        self.start()

    def run(self) -> None:
        buffer = bytearray()
        while True:
            try:
                chunk = os.read(self.fd, 1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                self.events.put(("eof", None))
                return
            buffer += chunk
            while len(buffer) >= 8:
                size = int.from_bytes(buffer[:8], "little")
                if size > ANSWER_BYTES:
                    self.events.put(("oversize", size))
                    return
                if len(buffer) < 8 + size:
                    break
                self.events.put(("frame", bytes(buffer[8 : 8 + size])))
                del buffer[: 8 + size]


class _Writer(threading.Thread):
    """Writes frames to a child's stdin on its own thread: a child that stops reading never blocks the grader."""

    def __init__(self, fd: int) -> None:
        super().__init__(daemon=True)
        self.fd, self.frames = fd, queue.Queue()
        self.start()

    def run(self) -> None:
        while (data := self.frames.get()) is not None:
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(self.fd, view) :]
            except OSError:  # the child is gone
                return


# Children importing torch ahead while a question runs: two while two questions or more of the package are still to
# come (a child's import of torch takes longer than most questions, so one spare held `check` of all ten to about
# ten imports end to end), else one, for the next question or the next package's first.
SPARES = 2


class PortableSandbox(Sandbox):
    """Spawned children, one per question, spares importing torch ahead of the next questions."""

    backend = "portable"

    def __init__(self, parent: Path | None = None) -> None:
        """Start the first child at once, so its import of torch overlaps the grader's. parent: where the sandbox's
        folder is made (default: the temporary folder)."""
        if parent is None:
            sweep_stale(Path(tempfile.gettempdir()))
        self.folder = Path(tempfile.mkdtemp(prefix=f"autograder-{os.getpid()}-", dir=parent))
        self.errors = open(self.folder / "worker-errors.txt", "w+b")
        self.jobs = 0
        self.opened: list[PortableChild] = []  # the children given a question, killed at close if still running
        # spares not given their question: a child running beside them changed them (as the Linux zygote's)
        self.replaced = 0
        self.spares: list[PortableChild | RefusedChild] = [self._spawn()]  # the next question's first
        self.questions = 0  # how many questions a package has, when prepare() was told
        self.left = 0  # of those, how many are still to be opened for the package graded now

    @property
    def process(self) -> subprocess.Popen | None:
        """The next spare's process, if there is one."""
        return self.spares[0].popen if self.spares and isinstance(self.spares[0], PortableChild) else None

    def prepare(self, preload: tuple[str, ...], questions: int = 0) -> None:
        """Keep a second spare warm while two questions or more of a package are still to come (preload is imported by
        each child when asked)."""
        self.questions = self.left = questions

    def _spawn(self) -> "PortableChild | RefusedChild":
        """Start a child in a folder of its own; it imports torch and waits for its job. A RefusedChild when the system
        refuses the process (a limit on processes, no memory): its question says so."""
        self.jobs += 1
        workdir = self.folder / f"job{self.jobs}"
        workdir.mkdir()
        try:
            popen = subprocess.Popen(
                [*isolated_python(), str(WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.errors,
                cwd=workdir,
                env=child_env(workdir),
                start_new_session=callable(getattr(os, "setsid", None)),
                creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0),
            )
        except OSError as error:
            return RefusedChild(refused(error, self.backend))
        child = PortableChild(self, popen, workdir)
        child.state = _state(popen.pid)  # read by the grader at the spawn, never taken from the child
        return child

    def _healthy(self, child: "PortableChild") -> bool:
        """False when a spare's limits, priority or CPUs are no longer those it was spawned with: a child that ran
        beside it under the same user changed them (nothing kernel-level stops that on macOS and Windows), and its
        question would be graded in a process a classmate's code set up."""
        return child.state is None or _state(child.popen.pid) == child.state

    def renew(self) -> bool:
        """Drop the spares a question's child ran beside (a child that died before its first word is asked again of a
        child spawned with nothing else running); True when that took a new one."""
        touched = [spare for spare in self.spares if isinstance(spare, PortableChild) and spare.touched]
        for spare in touched:
            spare.close()
        self.spares = [spare for spare in self.spares if spare not in touched]
        return bool(touched)

    def open(
        self,
        package: Path,
        module: str,
        time_limit: float,
        hidden: tuple[Path, ...] = (),
        preload: tuple[str, ...] = (),
    ) -> "PortableChild | RefusedChild":
        """Give the next warm spare (or a fresh child) the question: it imports exercises.<module> from package and
        answers requests until closed; then start the spares that are missing. hidden: folders the child may not read,
        beside the kit's own; preload: modules the child imports before the question's time starts."""
        spare = self.spares.pop(0) if self.spares else None
        usable = isinstance(spare, PortableChild) and spare.popen.poll() is None
        if usable and not self._healthy(spare):  # never give a question to a spare an earlier child changed
            self.replaced += 1
            usable = False
        child = spare if usable else self._spawn()
        if spare is not None and spare is not child:
            spare.close()
        if isinstance(child, RefusedChild):
            return child
        job = {
            "package": str(package),
            "module": module,
            "time_limit": time_limit,
            "memory_bytes": MEMORY_BYTES,
            "output_bytes": OUTPUT_BYTES,
            "preload": list(preload),
            "hidden": [str(self.folder), *(str(folder) for folder in hidden)],
        }
        child.begin(job, time_limit)
        self.opened = [one for one in self.opened if one.popen.poll() is None] + [child]
        self.left -= 1
        wanted = SPARES if self.left >= SPARES else 1
        if self.left <= 0:  # the package's last question (as far as counted): the next package has as many
            self.left = self.questions
        while len(self.spares) < wanted:
            self.spares.append(self._spawn())
        for waiting in self.spares:
            waiting.touched = True  # it waits while the student's code of this question runs beside it
        return child

    def wait_ready(self, timeout: float) -> None:
        """Wait up to timeout seconds until the next spare has imported torch."""
        if self.spares and isinstance(self.spares[0], PortableChild):
            self.spares[0].wait_for_marker("ready", timeout)

    def close(self) -> None:
        """Stop the spares and any child still running, and remove the sandbox's folder."""
        for spare in self.spares:
            spare.close()
        self.spares = []
        for child in self.opened:
            if child.popen.poll() is None:
                _kill(_processes(child.popen.pid), child.popen, child.job_object)
                child.popen.wait()
        self.errors.close()
        remove(self.folder)


class PortableChild(Child):
    """One spawned child: warm until begin() gives it its question, then requests answered within the time limit."""

    def __init__(self, sandbox: PortableSandbox, popen: subprocess.Popen, workdir: Path) -> None:
        self.sandbox, self.popen, self.workdir = sandbox, popen, workdir
        # Windows: the kernel caps the tree's memory and kills it whole
        self.job_object = for_child(popen, MEMORY_BYTES)
        self.reader, self.writer = _Reader(popen.stdout.fileno()), _Writer(popen.stdin.fileno())
        self.time_limit = 0.0
        self.spent = 0.0  # seconds the grader waited for this child since it started its question
        self.waited = 0.0  # the same, counted from the moment the job was sent
        self.started = False  # the child said {"started"}: the question's time runs
        self.markers: set[str] = set()
        # the child's CPU time when its question started (its import of torch before)
        self.cpu_at_start: float | None = None
        self.watched_at = time.monotonic()  # when the watchdogs last looked at the child's memory and output
        self.frames: collections.deque[bytes] = collections.deque()  # answers read while waiting for a marker
        self.stopped: ChildStopped | None = None
        self.state: tuple | None = None  # what _state read at its spawn

    def begin(self, job: dict, time_limit: float) -> None:
        """Send the child its job, then its answer key (the first frame its loop reads)."""
        self.time_limit, self.package = time_limit, Path(job["package"])
        self.writer.frames.put(frame(job))
        self.writer.frames.put(self.key_frame())

    def _stop(self, status: str, reason: str) -> ChildStopped:
        """Kill the child and all it started, remember why, and return the exception to raise."""
        _kill(_processes(self.popen.pid), self.popen, self.job_object)
        self.stopped = ChildStopped(status, reason)
        return self.stopped

    def _died(self) -> ChildStopped:
        """The exception for a child that ended on its own before answering."""
        try:
            code = self.popen.wait(EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            code = None
        self._stop(*died(code, self.time_limit))
        # on its own: the engine asks again of a fresh child when this one was a touched spare
        self.stopped.ended = "child"
        return self.stopped

    def _over_memory(self) -> bool:
        """True when the child's processes hold more memory than a child may. Always watched: some kernels take an
        address-space limit without enforcing it (macOS); where one does, its MemoryError comes first."""
        if not self.started:
            return False
        total = 0
        for process in _processes(self.popen.pid):
            try:
                total += process.memory_info().rss
            except Exception:  # noqa: BLE001 - gone meanwhile
                pass
        return total > MEMORY_BYTES

    def _charged(self) -> float:
        """The time charged to the question: the child's CPU time since it started it (psutil), which a busy machine
        does not inflate; its wall time where that cannot be read. Read only once the wall time reaches the limit:
        CPU time of one thread never runs ahead of it (a child that sleeps is stopped by the wall clock, at
        WALL_FACTOR)."""
        if self.spent < self.time_limit or self.cpu_at_start is None:
            return self.spent
        try:
            import psutil  # its import costs 80 ms: only where a child's tree, state or CPU time is read

            times = psutil.Process(self.popen.pid).cpu_times()
            return times.user + times.system - self.cpu_at_start
        except Exception:  # noqa: BLE001 - psutil missing, or the process gone
            return self.spent

    def _over_output(self) -> bool:
        """True when the child wrote past the output limit (C code writing on its descriptors, where no kernel limit
        is set)."""
        try:
            return os.lstat(self.workdir / "output.txt").st_size > OUTPUT_KILLED_BYTES  # never a link's target
        except OSError:
            return False

    def _event(self, timeout: float) -> tuple[str, object] | None:
        """The reader's next event within timeout seconds, or None."""
        try:
            return self.reader.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def _marker(self, value: object) -> bool:
        """Take in a marker frame ({"ready"} or {"started"}) sent before the student's code ran; False for anything
        else."""
        if self.started or not isinstance(value, dict) or not ({"ready", "started"} & set(value)):
            return False
        self.markers.update(key for key in ("ready", "started") if key in value)
        if "started" in value:
            self.started = True
            self.cpu_at_start = float(value["cpu"]) if type(value.get("cpu")) is float else None
        return True

    def wait_for_marker(self, name: str, timeout: float) -> None:
        """Wait up to timeout seconds for the child's marker name (time not charged to any question)."""
        deadline = time.monotonic() + timeout
        while name not in self.markers and time.monotonic() < deadline:
            event = self._event(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
            if event is None:
                continue
            kind, data = event
            if kind != "frame":
                self.reader.events.put(event)  # left for the question to meet
                return
            if not self._marker(load_answer(data)):
                self.frames.append(data)

    def _next_frame(self) -> bytes:
        """The child's next answer frame, waited for within what is left of the time limit; ChildStopped otherwise."""
        while True:
            if self.frames:
                return self.frames.popleft()
            left = time_left(self.time_limit, self._charged(), self.spent, self.waited)
            if left <= 0:
                raise self._stop(
                    TIMEOUT, timed_out(self.time_limit, where_it_ran(self.popen.pid, self.workdir, self.package))
                )
            start = time.monotonic()
            event = self._event(min(left, POLL_SECONDS))
            elapsed = time.monotonic() - start
            self.waited += elapsed
            if self.started:  # a spare may still be importing torch: the question's time starts when it says so
                self.spent += elapsed
            if start - self.watched_at > POLL_SECONDS:  # the watchdogs look a few times a second, not at every answer
                self.watched_at = start
                if self._over_memory() or self._over_output():
                    raise self._stop(*died(KILLED, self.time_limit))
                over = over_disk(self.workdir, self.popen.pid)
                if over:
                    raise self._stop(ERROR, over)
            if event is None:
                continue
            kind, data = event
            if kind == "eof":
                if not self.started:  # it ended before its question started: the student's code never ran
                    try:
                        code = self.popen.wait(EXIT_SECONDS)
                    except subprocess.TimeoutExpired:
                        code = None
                    _kill(_processes(self.popen.pid), self.popen, self.job_object)
                    if self.touched:  # another question's code ran beside this spare: the engine asks a fresh child
                        self.stopped = ChildStopped(
                            ERROR, _("the grader's process for this question ended before your code ran in it"),
                            ended="child",
                        )
                    else:  # a child spawned with nothing else running: the grader's own failure
                        self.stopped = could_not_start(
                            Path(self.sandbox.errors.name), self.sandbox.backend, killed=code == KILLED
                        )
                    raise self.stopped
                raise self._died()
            if kind == "oversize":
                raise self._stop(
                    ERROR,
                    _("returned a result larger than {size} MiB, which the grader does not take back").format(
                        size=ANSWER_BYTES >> 20
                    ),
                )
            if not self.started:
                try:
                    if self._marker(load_answer(data)):
                        continue
                except Exception:  # noqa: BLE001 - not a marker: the answer check below words it
                    pass
            return data

    def _receive(self) -> dict:
        """The child's next answer, loaded as plain data."""
        return self._answer(self._next_frame())

    def first(self) -> dict:
        """The child's first word: whether the student's module imported (within the time limit)."""
        return self._receive()

    def ask(self, request: dict) -> dict:
        """Send one request (plain data and tensors) and return the child's answer; ChildStopped when it cannot
        answer."""
        if self.stopped:
            raise self.stopped
        self.writer.frames.put(frame(request))
        return self._receive()

    def ended(self) -> bool:
        """True when the child was stopped or has exited on its own."""
        return self.stopped is not None or self.popen.poll() is not None

    def close(self) -> Ending:
        """Tell the child to stop, kill what is left of its tree, and return what it left behind.

        A child that ended before being told to (it exited while its answers were still being read) has crashed; the
        processes it started that outlive it are its orphans (killed)."""
        if self.ended() and not self.stopped and self.started:
            self._died()
        tree = _processes(self.popen.pid)[1:]  # what it started, seen while it still runs
        if self.started and not self.stopped:
            self.writer.frames.put(frame({"op": "exit"}))
            try:
                self.popen.wait(EXIT_SECONDS)
            except subprocess.TimeoutExpired:
                pass
        self.writer.frames.put(None)
        orphans = [process for process in tree if _alive(process)]
        _kill(orphans, self.popen, self.job_object)
        self.popen.wait()
        if self.job_object is not None:
            self.job_object.close()
        for pipe in (self.popen.stdin, self.popen.stdout):
            try:
                pipe.close()
            except OSError:
                pass
        over = None if self.stopped else over_disk(self.workdir)
        if over:
            self.stopped = ChildStopped(ERROR, over)  # what it wrote in its last call, read by whoever closes it
        ending = Ending(len(orphans), read_output(self.workdir))
        remove(self.workdir)
        return ending


def _alive(process: object) -> bool:
    """True while a psutil process still runs (a zombie does not)."""
    try:
        return process.is_running() and process.status() != "zombie"
    except Exception:  # noqa: BLE001 - gone
        return False
