"""The Linux backend's grader side: start the pristine process (worker.py), have it fork a zygote per student, have
the zygote fork one child per question, talk to it with a time limit."""
import json
import os
import select
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import BinaryIO

from ...i18n import _
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
    environment_problem,
    frame,
    isolated_python,
    over_disk,
    process_state,
    read_output,
    refused,
    remove,
    sweep_stale,
    timed_out,
    where_it_ran,
)
from ..limits import ANSWER_BYTES, MEMORY_BYTES, OUTPUT_BYTES, POLL_SECONDS, time_left

PID_WAIT = 10.0  # the most the grader waits for the pristine process to say the pid of a zygote that already spoke
EXIT_WAIT = 1.0  # the most it waits for the exit code of a zygote whose pipe closed


class Zygote:
    """A zygote the pristine process forked: its job pipe (stdin) and answer pipe (stdout), and, once the pristine
    process said them, its pid, its pidfd, whether it runs in namespaces of its own (worker.py's _fork_zygote) and its
    exit code; failed when the system refused the fork."""

    def __init__(self, number: int, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self.number, self.stdin, self.stdout = number, stdin, stdout
        self.pid: int | None = None
        self.pidfd: int | None = None
        self.exit: int | None = None
        self.namespaces = False
        self.failed = False

    def alive(self) -> bool:
        """True while the zygote runs (its pidfd not yet readable); False once it ended or when it was never forked."""
        return self.pidfd is not None and not select.select([self.pidfd], [], [], 0)[0]

    def kill(self, wait: float = 0.0) -> None:
        """SIGKILL the zygote (its children die with it: their parent-death signal) and close the grader's ends of
        its pipes, which also ends a zygote whose pid was never said; wait up to wait seconds for it to be gone."""
        if self.alive():
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
                select.select([self.pidfd], [], [], wait)
            except OSError:
                pass
        for end in (self.stdin, self.stdout):
            try:
                end.close()
            except OSError:  # a job still buffered for a zygote that died
                pass
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


class SharedPristine:
    """The pristine process of the sandbox a lane branched from, as the lane sees it (the subprocess.Popen methods the
    sandbox calls): running until its pidfd is readable; a lane never kills nor waits for it (its own sandbox does)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.pidfd = pid, os.pidfd_open(pid)

    def poll(self) -> int | None:
        """None while it runs; 0 once it ended or was let go of (its exit code is its parent's to read)."""
        if self.pidfd is None or select.select([self.pidfd], [], [], 0)[0]:
            return 0
        return None

    def wait(self, timeout: float | None = None) -> int | None:
        """Its state now (poll): a lane never waits for it."""
        return self.poll()

    def kill(self) -> None:
        """Let go of it (close the pidfd): it serves the other graders on."""
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


class LinuxSandbox(Sandbox):
    """A pristine process that imported torch and forks a zygote per student, each zygote forking a limited child for
    each question."""

    backend = "linux"

    def __init__(self, parent: Path | None = None, lane_of: "LinuxSandbox | None" = None) -> None:
        """Start the pristine process and ask it for a zygote at once, so that its import of torch overlaps the
        grader's. parent: where the sandbox's folder is made (default: the temporary folder); a batch puts all its
        sandboxes in one folder that their children may not read. lane_of: a sandbox whose pristine process this one
        shares, over a socket of its own (branch()); its zygote is asked for at its first question."""
        if parent is None and lane_of is None:
            sweep_stale(Path(tempfile.gettempdir()))
        parent = parent if lane_of is None else lane_of.folder.parent
        self.folder = Path(tempfile.mkdtemp(prefix=f"autograder-{os.getpid()}-", dir=parent))
        # a child that runs as its own user must pass through it to its own folder (not list it)
        self.folder.chmod(0o711)
        self.errors = open(self.folder / "worker-errors.txt", "w+b")
        self.jobs = 0
        self.messages: dict[int, dict] = {}  # job id -> the zygote's last word on it ({"pid"} or {"exit", "orphans"})
        # the process that imported torch and forks the zygotes (a lane's: the one it shares)
        self.pristine: subprocess.Popen | SharedPristine | None = None
        self.control: socket.socket | None = None  # the grader's end of its socket (None once it closed)
        self.pristine_ready = False  # it said its first word: it imported torch
        self.pristine_state: tuple | None = None  # its limits, priority and CPUs when it said its first word
        self.pristine_preloaded: set[str] = set()  # modules it imported for every later zygote
        self.pristine_pending: set[str] = set()  # those asked ahead (prepare) it has not yet said it imported
        self.pristines = 0  # pristine processes started
        self.zygotes = 0  # zygotes asked for
        self.wanted: set[str] = set()  # modules any zygote was asked to import before forking
        # the running zygote; None while the system refuses one (a limit on processes)
        self.process: Zygote | None = None
        self.refused: ChildStopped | None = None
        self.pending = b""
        self.preloaded: set[str] = set()  # modules the running zygote has imported before forking
        self.ready = False  # the running zygote said its first word: it started
        self.state: tuple | None = None  # the running zygote's limits, priority and CPUs when it said its first word
        self.replaced = 0  # zygotes replaced because a child had changed them
        self.forked = 0  # children the running zygote forked
        self.renewed = 0  # zygotes replaced by renew()
        if lane_of is None:
            self._start_or_refuse()
            return
        self.choice = lane_of.choice
        try:
            self.control = lane_of.lane_socket()
        except OSError:
            self.errors.close()
            remove(self.folder)
            raise
        self.pristine = SharedPristine(lane_of.pristine.pid)
        self.pristine_ready, self.pristine_state = lane_of.pristine_ready, lane_of.pristine_state
        # what it was asked to import ahead it imports before it reads this lane's first request
        self.pristine_preloaded, self.wanted = set(lane_of.pristine_preloaded), set(lane_of.wanted)

    def branch(self) -> "LinuxSandbox | None":
        """A sandbox for a grader lane that this process forks next (engine/lanes.py): this sandbox's pristine process,
        over a socket of its own, with zygotes, children and a folder of its own, so that the lane's questions run
        beside this sandbox's; None when the pristine process is gone or refuses the socket."""
        self._hear(0)
        if not self._pristine_healthy():
            return None
        try:
            return LinuxSandbox(lane_of=self)
        except OSError:
            return None

    def lane_socket(self) -> socket.socket:
        """A new socket to the pristine process (its other end handed over this sandbox's), for a lane; OSError when
        the pristine process is gone."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            socket.send_fds(self.control, [json.dumps({"lane": True}).encode()], [theirs.fileno()])
        except OSError:
            mine.close()
            raise
        finally:
            theirs.close()
        return mine

    def forget(self) -> None:
        """Let go of this sandbox in a process that will not use it (a lane just forked from the grader, or the grader
        once its lane took the branch): close this process's copies of its descriptors; stop and remove nothing (the
        process that uses it does)."""
        if self.process is not None:
            for end in (self.process.stdin, self.process.stdout):
                try:
                    end.close()
                except OSError:
                    pass
            if self.process.pidfd is not None:
                os.close(self.process.pidfd)
        if isinstance(self.pristine, SharedPristine):
            self.pristine.kill()
        if self.control is not None:
            self.control.close()
        self.errors.close()
        self.process = self.pristine = self.control = None

    def _start_pristine(self) -> tuple[subprocess.Popen, socket.socket]:
        """Start a pristine process: worker.py, which imports torch and then forks a zygote for each request on its
        socket."""
        env = child_env(self.folder)
        here = Path(__file__).resolve().parent
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            process = subprocess.Popen(
                [*isolated_python(), str(here / "worker.py")],
                stdin=theirs,
                stdout=subprocess.DEVNULL,
                stderr=self.errors,
                cwd=self.folder,
                env=env,
            )
        except OSError:
            mine.close()
            raise
        finally:
            theirs.close()
        return process, mine

    def _replace_pristine(self) -> None:
        """Stop the pristine process, if any, and start another (a new import of torch: only when the first one died
        or was changed)."""
        if self.pristine is not None:
            self.pristine.kill()
            self.pristine.wait()
        if self.control is not None:
            self.control.close()
        self.pristine = self.control = None
        self.pristine_ready, self.pristine_state, self.pristine_preloaded = False, None, set()
        self.pristine_pending = set()
        self.pristine, self.control = self._start_pristine()
        self.pristines += 1

    def _pristine_healthy(self) -> bool:
        """True while the pristine process runs, its socket is open and its limits, priority and CPUs are those it
        started with (read from /proc, as a zygote's)."""
        return (
            self.pristine is not None
            and self.control is not None
            and self.pristine.poll() is None
            and (self.pristine_state is None or process_state(self.pristine.pid) == self.pristine_state)
        )

    def _hear(self, timeout: float) -> None:
        """Read what the pristine process said within timeout: its first word, the pid and pidfd of the running
        zygote, that zygote's exit, a fork the system refused or a module asked ahead that it imported. A closed
        socket: the pristine process is gone (control None)."""
        while self.control is not None and select.select([self.control], [], [], timeout)[0]:
            timeout = 0
            try:
                data, fds, _flags, _address = socket.recv_fds(self.control, 1 << 16, 1)
            except OSError:
                data, fds = b"", []
            if not data:
                self.control.close()
                self.control = None
                return
            message = json.loads(data)
            if "ready" in message:
                self.pristine_ready, self.pristine_state = True, process_state(self.pristine.pid)
            self.pristine_pending.discard(message.get("preloaded"))
            zygote = self.process if self.process is not None and self.process.number == message.get("zygote") else None
            for fd in fds:
                if zygote is not None and zygote.pidfd is None:
                    zygote.pidfd = fd
                else:
                    os.close(fd)
            if zygote is not None:
                zygote.pid = message.get("pid", zygote.pid)
                zygote.exit = message.get("exit", zygote.exit)
                zygote.namespaces = message.get("namespaces", zygote.namespaces)
                zygote.failed = zygote.failed or "error" in message

    def _fork_zygote(self) -> Zygote:
        """Ask the pristine process for a new zygote (replacing the pristine process first when it is gone or was
        changed), with the modules earlier zygotes were asked to import; OSError when the system refuses a
        process."""
        if not self._pristine_healthy():
            self._replace_pristine()
        self.zygotes += 1
        preload = sorted(self.wanted - self.pristine_preloaded)
        # from a class's second student on (renew), the pristine process backs its memory with huge pages first
        message = json.dumps({"zygote": self.zygotes, "preload": preload, "collapse": self.renewed > 0}).encode()
        job_read, job_write = os.pipe()
        answer_read, answer_write = os.pipe()
        try:
            try:
                socket.send_fds(self.control, [message], [job_read, answer_write])
            except OSError:  # the pristine process died since it was last heard: another one, once
                self._replace_pristine()
                socket.send_fds(self.control, [message], [job_read, answer_write])
        except OSError:
            for end in (job_write, answer_read):
                os.close(end)
            raise
        finally:
            os.close(job_read)
            os.close(answer_write)
        self.pristine_preloaded.update(preload)
        return Zygote(self.zygotes, open(job_write, "wb"), open(answer_read, "rb", buffering=0))

    def _start_or_refuse(self) -> None:
        """Have a zygote if there is none; where the system refuses a process, remember why (refused) for the questions.

        From a pristine process that has said its first word, the fork is waited for (milliseconds): one that died
        before it forked is replaced and asked again, once, so that its death costs no student anything. One still
        importing torch forks the zygote when it is ready; if it dies first, the question says the sandbox could not
        start."""
        if self.process is not None:
            return
        try:
            self._hear(0)  # its first word, if said since it was last heard
            ready = self.pristine_ready and self._pristine_healthy()
            self.process, self.refused = self._fork_zygote(), None
            self.preloaded = set(self.pristine_preloaded)
            # it died before it forked: no zygote behind these pipes
            if ready and not self._await_pid() and self.control is None:
                self.process.kill()
                # from a new pristine process, which forks it once it has imported torch
                self.process = self._fork_zygote()
                self.preloaded = set(self.pristine_preloaded)
        except OSError as error:
            self.process, self.refused = None, self._refusal(error)

    def _refusal(self, error: OSError) -> ChildStopped:
        """Why no zygote could be had: the system refused a process (error), or the pristine process ended before it
        took the request (its socket closed: what it said before it died is the cause, as for a zygote that died)."""
        ended = None
        if isinstance(error, (BrokenPipeError, ConnectionResetError)) and self.pristine is not None:
            try:
                ended = self.pristine.wait(EXIT_WAIT)
            except subprocess.TimeoutExpired:
                ended = None
        if ended is None:
            return refused(error, self.backend)
        return could_not_start(Path(self.errors.name), self.backend, killed=ended == -signal.SIGKILL)

    def _await_pid(self) -> bool:
        """Wait (PID_WAIT at most) for the pristine process's word on the running zygote: True once its pid is known
        or the system refused it (failed); False when the pristine process ended first (control None) or is still
        busy (importing modules for a preload: the word is read later)."""
        deadline = time.monotonic() + PID_WAIT
        while (
            self.process.pid is None
            and not self.process.failed
            and self.control is not None
            and time.monotonic() < deadline
        ):
            self._hear(deadline - time.monotonic())
        return self.process.pid is not None or self.process.failed

    def pump(self, timeout: float | None, extra: list[int] = ()) -> list[int]:
        """Read the zygote's messages for up to timeout seconds; return which of extra became readable.

        Raises ChildStopped when the zygote itself is gone (a fresh one is forked for the next question).
        """
        if self.process is None:  # the system refused the zygote (a limit on processes)
            raise self.refused
        stdout = self.process.stdout.fileno()
        ready, _writable, _failed = select.select([stdout, *extra, *filter(None, [self.control])], [], [], timeout)
        if self.control is not None and self.control in ready:
            self._hear(0)
        never = self.process.failed or (self.control is None and self.process.pid is None)  # no zygote was forked
        if stdout in ready or never:
            chunk = os.read(stdout, 1 << 16) if stdout in ready else b""
            if not chunk:
                started = self.ready
                if self.process.pid is not None and self.process.exit is None:
                    self._hear(EXIT_WAIT)  # the pristine process says how the zygote ended
                code = (
                    self.process.exit if self.process.pid is not None or self.pristine is None else self.pristine.poll()
                )
                self.errors.seek(0)
                lacking = environment_problem(self.errors.read().decode("utf-8", "replace"), self.backend)
                self._restart()
                if self.process is None:  # the system refuses the new zygote (a limit on processes)
                    raise self.refused
                if not started or lacking:  # it died before its first word, or for want of memory or processes
                    raise could_not_start(Path(self.errors.name), self.backend, killed=code == -signal.SIGKILL)
                raise ChildStopped(
                    ERROR,
                    _("the grader's worker stopped while this question ran (does the answer kill it?)"),
                    ended="zygote",
                )
            self.pending += chunk
            while b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                message = json.loads(line)
                if "id" in message:  # not the zygote's first {"ready"}
                    self.messages[message["id"]] = self.messages.get(message["id"], {}) | message
                else:
                    self.ready = True
                    self._await_pid()  # said with the fork: at most a moment after the zygote's own word
                    self.state = process_state(self.process.pid) if self.process.pid is not None else None
        return [fd for fd in ready if fd in extra]

    def _healthy(self) -> bool:
        """False when the running zygote's limits, priority or CPUs are no longer those it started with (a child
        running under the grader's own user changed them, and every child it forks would inherit them); the grader
        reads them from /proc, never from a child."""
        return not self.ready or self.state is None or process_state(self.process.pid) == self.state

    def _restart(self) -> None:
        """Replace the zygote, dead or alive, by a new one the pristine process forks (process None, and refused why,
        while the system refuses a process)."""
        self.process.kill()
        self.process, self.pending, self.preloaded, self.ready, self.forked = None, b"", set(), False, 0
        self._start_or_refuse()

    def prepare(self, preload: tuple[str, ...], questions: int = 0) -> None:
        """Have the pristine process import preload now, in that order (the questions' own), after it forked the
        running zygote, on the core the questions graded first leave free: the question that wants them is then forked
        from a fresh zygote that has them (milliseconds), not from one that imports them first (torch._dynamo: about
        as long as torch). A fork costs milliseconds: questions changes nothing here."""
        ahead = [name for name in dict.fromkeys(preload) if name not in self.pristine_preloaded]
        if not ahead or not self._pristine_healthy():
            return
        try:
            self.control.send(json.dumps({"preload": ahead}).encode())
        except OSError:  # the pristine process is gone: the question's open asks its zygote to import them
            return
        self.wanted.update(ahead)
        self.pristine_preloaded.update(ahead)
        self.pristine_pending.update(ahead)

    def _fork_for(self, preload: tuple[str, ...]) -> bool:
        """Whether the question that preloads these modules, which the running zygote lacks and the pristine process
        was asked for ahead, is forked from a new zygote of the pristine process: yes once it has imported them all
        and is idle, or while it still imports them (its zygote waits for them, rather than import them twice); no
        while it imports only a later question's (it would fork only after them: torch._dynamo, as long as torch's
        import, on a machine whose other core is busy), and then the running zygote imports them itself."""
        self._hear(0)  # its latest word on the modules it imported
        return not self.pristine_pending or bool(set(preload) & self.pristine_pending)

    def renew(self) -> bool:
        """Replace the running zygote when it forked any child, by a fork of the pristine process (milliseconds):
        each student of a class gets a zygote no earlier student's child touched, and a child that died before its
        first word is asked again of a fresh zygote's child; True when that took a new one."""
        if not self.forked:
            return False
        self.renewed += 1
        self._restart()
        return True

    def open(
        self,
        package: Path,
        module: str,
        time_limit: float,
        hidden: tuple[Path, ...] = (),
        preload: tuple[str, ...] = (),
    ) -> "LinuxChild | RefusedChild":
        """Fork a child that imports exercises.<module> from package; it answers requests until closed.

        hidden: folders the child may not read, beside the kit's own (other students' packages); the package stays
        readable. preload: modules the zygote imports first, once in its life, so that the child (and every later
        one) finds them imported; the time this takes is not the child's."""
        self._start_or_refuse()
        # never fork the next child from a zygote a previous child changed
        if self.process is not None and not self._healthy():
            self.replaced += 1
            self._restart()
        elif (
            self.process is not None
            and not set(preload) <= self.preloaded
            and set(preload) <= self.pristine_preloaded
            and self._fork_for(preload)
        ):
            self._restart()  # the pristine process imported them ahead (prepare): a zygote forked from it now has them
        if self.process is None:
            return RefusedChild(self.refused)
        self.jobs += 1
        workdir = self.folder / f"job{self.jobs}"
        workdir.mkdir()
        requests, answers = workdir / "requests", workdir / "answers"
        os.mkfifo(requests, 0o600)
        os.mkfifo(answers, 0o600)
        child = LinuxChild(self, self.jobs, workdir, time_limit)
        child.touched, self.forked = self.forked > 0, self.forked + 1
        child.package = package
        child.requests = os.open(requests, os.O_RDWR | os.O_NONBLOCK)  # never blocks, whether or not the child reads
        child.answers = os.open(answers, os.O_RDONLY | os.O_NONBLOCK)
        # the child's first read, before the student's code runs; the zygote never sees it
        os.write(child.requests, child.key_frame())
        job = {
            "id": self.jobs,
            "workdir": str(workdir),
            "package": str(package),
            "module": module,
            "time_limit": time_limit,
            "memory_bytes": MEMORY_BYTES,
            "output_bytes": OUTPUT_BYTES,
            "requests": str(requests),
            "answers": str(answers),
            "hidden": [str(folder) for folder in hidden],
        }
        for attempt in range(2):
            try:
                missing = [name for name in preload if name not in self.preloaded]
                if missing:
                    self.process.stdin.write((json.dumps({"preload": missing}) + "\n").encode())
                    self.preloaded.update(missing)
                    self.wanted.update(missing)  # the pristine process imports them before it forks the next zygote
                self.process.stdin.write((json.dumps(job) + "\n").encode())
                self.process.stdin.flush()
                break
            except BrokenPipeError:  # the zygote died after the last question: start another
                if attempt:
                    break  # this one died too: the child's first word (pump) says why
                self._restart()
                if self.process is None:
                    break  # the system refused a new one: the child's first word (pump) says so
        return child

    def wait_ready(self, timeout: float) -> None:
        """Wait up to timeout seconds for the zygote's first word ({"ready"}, left unread for pump), or for the pristine
        process's end."""
        if self.process is not None:
            select.select([self.process.stdout, *filter(None, [self.control])], [], [], timeout)

    @staticmethod
    def kill(pid: int | None) -> None:
        """SIGKILL the process group of pid, if it still exists."""
        if pid is None:
            return
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def close(self) -> None:
        """Stop the zygote, every child it forked (a killed zygote's children would run on to their CPU limit; a
        clean exit of torch costs half a second) and the pristine process."""
        if self.process is not None:
            # read while the zygote lives: none of its children is reaped, so no pid was reused
            if self.process.alive():
                for pid in _children(self.process.pid):
                    for kill in (os.killpg, os.kill):  # a child leads its own session; a process it started may not
                        try:
                            kill(pid, signal.SIGKILL)
                        except OSError:
                            pass
            self.process.kill(wait=1.0)
        if self.pristine is not None:
            self.pristine.kill()
            self.pristine.wait()
        if self.control is not None:
            self.control.close()
        self.errors.close()
        remove(self.folder)


class LinuxChild(Child):
    """One question's child: send it a request, wait for its answer within what is left of the time limit."""

    def __init__(self, sandbox: LinuxSandbox, job_id: int, workdir: Path, time_limit: float) -> None:
        self.sandbox, self.id, self.workdir, self.time_limit = sandbox, job_id, workdir, time_limit
        self.spent = 0.0  # seconds the grader spent waiting for this child since its fork
        self.waited = 0.0  # the same, counted from the moment the job was sent
        self.disk_at = float("-inf")  # when the grader last looked at its folder's disk use (over_disk)
        self.stopped: ChildStopped | None = None
        self.requests = self.answers = -1
        self.buffer = b""

    @property
    def pid(self) -> int | None:
        """The child's pid, once the zygote has said it."""
        return self.sandbox.messages.get(self.id, {}).get("pid")

    def _exit_code(self) -> int | None:
        return self.sandbox.messages.get(self.id, {}).get("exit")

    def _stop(self, status: str, reason: str) -> ChildStopped:
        """Kill the child, remember why, and return the exception to raise."""
        self.sandbox.kill(self.pid)
        self.stopped = ChildStopped(status, reason)
        return self.stopped

    def _died(self) -> ChildStopped:
        """The exception for a child that ended on its own before answering."""
        self._stop(*died(self._exit_code(), self.time_limit))
        self.stopped.ended = "child"
        return self.stopped

    def first(self) -> dict:
        """The child's first word: whether the student's module imported (within the time limit)."""
        return self._receive()

    def ask(self, request: dict) -> dict:
        """Send one request (plain data and tensors) and return the child's answer; ChildStopped when it cannot
        answer."""
        if self.stopped:
            raise self.stopped
        view = memoryview(frame(request))
        while view:
            try:
                view = view[os.write(self.requests, view) :]
            except BlockingIOError:
                self._wait_for(None)
        return self._receive()

    def _queue_wait(self) -> float:
        """Seconds the child's main thread has spent runnable but waiting for a core since its fork (Linux
        schedstat), 0 where unknown."""
        try:
            with open(f"/proc/{self.pid}/schedstat", "rb") as handle:
                return int(handle.read().split()[1]) / 1e9
        except (OSError, IndexError, ValueError, TypeError):
            return 0.0

    def _used(self) -> float:
        """The time charged to the child: the grader's waits for it, less the time it only waited for a core.

        On a machine busy with other work the child runs slower but is charged the same, so the same code
        meets the same limit; a child that sleeps or blocks is charged in full. The wall clock still stops it
        at WALL_FACTOR times the limit.
        """
        return self.spent - self._queue_wait()

    def _wait_for(self, reader: int | None) -> bool:
        """Wait (counting the time) until reader is readable or the pipe drains; raise when the child stops, runs out
        of time or fills its folder beyond the disk limit (looked at when the wait wakes, at most every POLL_SECONDS:
        a look reads the child's /proc maps and descriptors, about 1 ms, which at every answer cost a class 15 % more
        CPU; close() looks once more, before it ends the child)."""
        while True:
            if time.monotonic() - self.disk_at >= POLL_SECONDS:
                self.disk_at = time.monotonic()
                over = over_disk(self.workdir, self.pid)
                if over:
                    raise self._stop(ERROR, over)
            # spent is at least what _used() charges: its /proc read is needed only near the end
            charged = self.spent if self.time_limit - self.spent > POLL_SECONDS else self._used()
            left = time_left(self.time_limit, charged, self.spent, self.waited)
            if left <= 0:
                raise self._stop(
                    TIMEOUT, timed_out(self.time_limit, where_it_ran(self.pid, self.workdir, self.package))
                )
            start = time.monotonic()
            try:
                ready = self.sandbox.pump(
                    min(left, 0.05 if reader is None else POLL_SECONDS), [reader] if reader is not None else []
                )
            except ChildStopped as stopped:
                self.sandbox.kill(self.pid)
                self.stopped = stopped
                raise
            finally:
                self.waited += time.monotonic() - start
                # the zygote may still be importing torch: the question's time starts at its fork
                if self.pid is not None:
                    self.spent += time.monotonic() - start
            if self._exit_code() is not None and not ready:
                raise self._died()
            if ready or reader is None:
                return bool(ready)

    def _receive(self) -> dict:
        """Read one frame from the answers FIFO and load it as plain data."""
        while True:
            if len(self.buffer) >= 8:
                size = int.from_bytes(self.buffer[:8], "little")
                if size > ANSWER_BYTES:
                    raise self._stop(
                        ERROR,
                        _("returned a result larger than {size} MiB, which the grader does not take back").format(
                            size=ANSWER_BYTES >> 20
                        ),
                    )
                if len(self.buffer) >= 8 + size:
                    frame, self.buffer = self.buffer[8 : 8 + size], self.buffer[8 + size :]
                    return self._answer(frame)
            if self._wait_for(self.answers):
                try:
                    chunk = os.read(self.answers, 1 << 20)
                except BlockingIOError:
                    continue
                if not chunk:  # every writer closed: the child is gone; wait for the zygote's word on how
                    deadline = time.monotonic() + 2.0
                    while self._exit_code() is None and time.monotonic() < deadline:
                        self.sandbox.pump(0.05)
                    raise self._died()
                self.buffer += chunk

    def ended(self) -> bool:
        """True when the child was stopped or has exited on its own (the zygote's latest news read first)."""
        if not self.stopped:
            try:
                self.sandbox.pump(0)
            except ChildStopped as stopped:
                self.stopped = stopped
        return self.stopped is not None or self._exit_code() is not None

    def close(self) -> Ending:
        """Tell the child to stop, wait briefly for the zygote's report, and return what it left behind.

        A child that ended before being told to (it exited while its answers were still being read) has crashed.
        """
        if self.ended() and not self.stopped:
            self._died()
        # a last look while the child lives (what its mappings and descriptors hold dies with it): the waits look
        # only every POLL_SECONDS
        over = None if self.stopped or self.pid is None else over_disk(self.workdir, self.pid)
        if not self.stopped:
            try:
                os.write(self.requests, frame({"op": "exit"}))
            except OSError:
                pass
        deadline = time.monotonic() + 2.0
        while self._exit_code() is None and self.pid is not None and time.monotonic() < deadline:
            try:
                self.sandbox.pump(0.05)
            except ChildStopped:
                break
        self.sandbox.kill(self.pid)
        over = over or (None if self.stopped else over_disk(self.workdir))
        if over:
            self.stopped = ChildStopped(ERROR, over)  # what it wrote in its last call, read by whoever closes it
        orphans = self.sandbox.messages.get(self.id, {}).get("orphans", 0)
        for fd in (self.requests, self.answers):
            if fd >= 0:
                os.close(fd)
        self.requests = self.answers = -1
        ending = Ending(orphans, read_output(self.workdir))
        remove(self.workdir)
        return ending


def _children(pid: int) -> set[int]:
    """The processes whose parent is pid (/proc; empty when pid is gone)."""
    found: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            found.update(int(child) for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    except (OSError, ValueError):
        pass
    return found
