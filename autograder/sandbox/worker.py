"""The sandbox: a zygote process that imports torch once and forks one child per graded question.

Run as a script (never imported by the grader): `python -I worker.py CHILD_DIR`. It reads one JSON job
per line on stdin and answers JSON lines on stdout: {"id", "pid"} when a child starts, {"id", "exit",
"orphans"} when it ends (orphans: processes it left behind, which the zygote, a subreaper, killed).
Each child runs the student's code with resource limits, in its own process group and temporary
folder. It imports the student's module, then answers the grader's requests (calls of the student's
functions) one at a time: each request and each answer is one torch.save'd frame on a pair of FIFOs in
its folder. An audit hook (Guard) and, where the kernel has it, Landlock keep the student's code away
from the grader's files, from every folder but its own for writing, from other processes and from its
own limits. The grader, in another process, reads the answers with torch.load(weights_only=True) and
decides the score.
"""
import importlib.abc
import importlib.util
import io
import json
import os
import resource
import select
import signal
import sys
import traceback

import torch

# Bound here, in the zygote, before any student code runs: a patched builtin never reaches the worker or its Guard.
from builtins import all, any, isinstance, len, min, str  # noqa: E402, A004

REFUSED_PACKAGES = ("reference", "solutions", "autograder")
KIT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # autograder/sandbox/worker.py
HIDDEN_FOLDERS = ("reference", "solutions", os.path.join("autograder", "suites"), ".git")  # under the kit's root
SPAWN_EVENTS = frozenset({"os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen", "pty.spawn"})
PATH_EVENTS = frozenset({"os.remove", "os.rmdir", "os.mkdir", "os.rename", "os.truncate", "os.chmod", "os.chown", "os.utime",
                         "os.link", "os.symlink", "shutil.rmtree", "os.mkfifo", "os.mknod"})
C_EVENTS = frozenset({"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle"})
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
PIDFD_FUNCTIONS = (("os", "pidfd_open"), ("posix", "pidfd_open"), ("signal", "pidfd_send_signal"), ("_signal", "pidfd_send_signal"))  # no audit event
PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 36, 38
# Linux Landlock: syscall numbers (the same on every architecture) and the file-system access rights used here.
LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF, LANDLOCK_RULE_PATH_BENEATH = 444, 445, 446, 1
FS_WRITE_FILE, FS_READ_FILE, FS_TRUNCATE, FS_REFER = 1 << 1, 1 << 2, 1 << 14, 1 << 13
FS_CHANGES = sum(1 << bit for bit in range(4, 13))  # remove dir/file, make char/dir/reg/sock/fifo/block/sym


def _load_package(name: str, folder: str) -> None:
    """Import the package in folder under name, without putting its parent on sys.path."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


class RefusedImport(importlib.abc.MetaPathFinder):
    """Refuses the grader's own packages and records every attempt."""

    def __init__(self, attempts: list) -> None:
        self.attempts = attempts

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        """Raise ImportError for the grader's packages; None (not mine to find) for everything else."""
        top = fullname.partition(".")[0]
        if top in REFUSED_PACKAGES:
            self.attempts.append(f"imports `{fullname}`")
            raise ImportError(f"importing `{fullname}` is not allowed in an answer: only torch, numpy, math and earlier exercise modules")
        return None


class Guard:
    """Audit hook of a child: records and refuses what an answer never needs to do.

    That is: reading the oracle, the solutions, the hidden suites or the kit's git history by path;
    writing, removing or linking files outside the child's own folder; starting
    processes; signalling other processes; changing resource limits; loading C libraries with ctypes. Imports of the grader's packages are recorded
    (RefusedImport refuses them). The functions it relies on are bound here, before student code runs.
    """

    def __init__(self, attempts: list, workdir: str, package_dir: str) -> None:
        """Bind the folders and helpers; attempts receives one line per refused action."""
        self.attempts, self.getcwd, self.fspath, self.realpath = attempts, os.getcwd, os.fspath, os.path.realpath
        self.normpath, self.join, self.getpid, self.getpgrp = os.path.normpath, os.path.join, os.getpid, os.getpgrp
        root = KIT_ROOT
        self.own = self._both(workdir)
        self.package = self._both(package_dir)
        self.hidden = tuple(form for name in HIDDEN_FOLDERS for form in self._both(os.path.join(root, name)))
        for module_name, name in PIDFD_FUNCTIONS:  # signals sent through a pidfd raise no audit event: take them away
            module = sys.modules.get(module_name) or importlib.import_module(module_name)
            if hasattr(module, name):
                setattr(module, name, self._no_pidfd)

    def _no_pidfd(self, *args: object, **kwargs: object) -> None:
        """Stands in for os.pidfd_open and signal.pidfd_send_signal."""
        self._refuse("sends a signal to another process (pidfd)")

    def _text(self, path: object) -> str:
        """The path as a str, whatever the caller passed."""
        path = self.fspath(path)
        return path.decode("utf-8", "surrogateescape") if isinstance(path, bytes) else str(path)

    def _forms(self, path: object) -> tuple[str, ...]:
        """The path as written (made absolute) and resolved."""
        absolute = self.normpath(self.join(self.getcwd(), self._text(path)))
        return absolute, self.realpath(absolute)

    def _both(self, folder: str) -> tuple[str, ...]:
        """The folder made absolute, and resolved (computed before student code runs)."""
        return tuple({os.path.normpath(os.path.abspath(folder)), os.path.realpath(folder)})

    @staticmethod
    def _under(path: str, folders: tuple[str, ...]) -> bool:
        """True when path is one of folders or inside one."""
        return any(path == folder or path.startswith(folder + os.sep) for folder in folders)

    def _hidden(self, path: object) -> bool:
        """True for a path into the oracle, the solutions, the suites or .git (the graded package excepted)."""
        forms = self._forms(path)
        if all(self._under(form, self.package) for form in forms):
            return False
        if any(self._under(form, self.hidden) for form in forms):
            return True
        written = self._text(path)
        if written.startswith(os.sep):
            return False
        return any(part in ("reference", "solutions", "suites", ".git") for part in written.split(os.sep))  # may be relative to a dir_fd

    def _writable(self, path: object) -> bool:
        """True only inside the child's own folder (and /dev/null)."""
        forms = self._forms(path)
        return all(self._under(form, self.own) or form == os.devnull for form in forms)

    def _refuse(self, what: str) -> None:
        """Record what for the grader and stop it with PermissionError."""
        self.attempts.append(what)
        raise PermissionError(f"an answer may not do this: {what}")

    def __call__(self, event: str, args: tuple) -> None:
        """The audit hook itself: return for allowed events, record and raise for refused ones."""
        if event == "import":
            if str(args[0]).partition(".")[0] in REFUSED_PACKAGES:
                self.attempts.append(f"imports `{args[0]}`")
        elif event == "open":
            path, mode, flags = args
            if isinstance(path, int):
                return
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool((flags or 0) & WRITE_FLAGS)
            if writes and not self._writable(path):
                self._refuse(f"writes the file {self._text(path)}, outside its own folder")
            if self._hidden(path):
                self._refuse(f"reads {self._text(path)}, which belongs to the grader")
        elif event in PATH_EVENTS:
            paths = [a for a in args[:2 if event in ("os.rename", "os.link", "os.symlink") else 1] if not isinstance(a, int)]
            if event in ("os.link", "os.symlink"):
                self._refuse(f"makes a link ({event})")
            if any(not self._writable(path) for path in paths):
                self._refuse(f"changes {self._text(paths[0])}, outside its own folder ({event})")
        elif event in SPAWN_EVENTS:
            self._refuse(f"starts a process ({event})")
        elif event in ("os.kill", "os.killpg"):
            target = args[0]
            if target not in (0, self.getpid() if event == "os.kill" else self.getpgrp()):
                self._refuse(f"sends a signal to process {target} ({event})")
        elif event in C_EVENTS:
            self._refuse(f"loads C code with ctypes ({event})")
        elif event == "resource.setrlimit" or (event == "resource.prlimit" and (args[2] is not None or args[0] not in (0, self.getpid()))):
            self._refuse(f"changes a resource limit ({event})")  # as root it could lift its own memory limit


def _landlock(workdir: str, package_dir: str) -> bool:
    """Landlock rules, kernel-enforced even for C code (torch.save, torch.from_file): write only in workdir, read nothing hidden."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return False  # no Landlock in this kernel: the Guard alone watches Python's own file access
    root = os.path.realpath(KIT_ROOT)
    package = os.path.realpath(package_dir)
    hidden = {h for h in (os.path.realpath(os.path.join(root, name)) for name in HIDDEN_FOLDERS)
              if os.path.exists(h) and package != h and not package.startswith(h + os.sep)}
    ancestors = {a for h in hidden for a in _ancestors(h)}
    writes = FS_WRITE_FILE | FS_CHANGES | (FS_REFER if abi >= 2 else 0) | (FS_TRUNCATE if abi >= 3 else 0)
    handled = ctypes.c_uint64(writes | (FS_READ_FILE if hidden else 0))
    ruleset = libc.syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(handled), ctypes.c_size_t(8), ctypes.c_uint32(0))
    if ruleset < 0:
        return False

    class Beneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    def allow(path: str, access: int) -> None:
        """Grant access beneath path (a folder) or on path (a file)."""
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return
        try:
            if not os.path.isdir(path):
                access &= FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE  # the rights a rule on a file may carry
            libc.syscall(LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(Beneath(access, fd)), ctypes.c_uint32(0))
        finally:
            os.close(fd)

    try:
        for folder in ancestors:  # read: everything beside the path down to each hidden folder
            for entry in os.listdir(folder):
                path = os.path.join(folder, entry)
                if path not in hidden and path not in ancestors and not os.path.islink(path):
                    allow(path, FS_READ_FILE)
        allow(workdir, writes | FS_READ_FILE)
        allow(os.devnull, writes | FS_READ_FILE)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) == 0
    finally:
        os.close(ruleset)


def _ancestors(path: str) -> list[str]:
    """Every folder above path, up to /."""
    found = []
    while os.path.dirname(path) != path:
        path = os.path.dirname(path)
        found.append(path)
    return found


def _limit(job: dict) -> None:
    """Resource limits, process group, working folder and captured output for a child."""
    os.setsid()
    for name, value in (("RLIMIT_AS", job["memory_bytes"]), ("RLIMIT_FSIZE", job["output_bytes"]), ("RLIMIT_CORE", 0)):
        resource.setrlimit(getattr(resource, name), (value, value))
    cpu = int(job["time_limit"]) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a flood of output gets an error instead of a kill
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(job["workdir"])
    os.environ.update(HOME=job["workdir"], TMPDIR=job["workdir"])  # the only folder it may write to
    sys.dont_write_bytecode = True  # no __pycache__ written into the student's package
    null = os.open(os.devnull, os.O_RDONLY)
    output = os.open("output.txt", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    for fd in [null, output, *job.pop("close_fds")]:  # the zygote's pidfds of sibling children stay out of reach
        os.close(fd)
    sys.stdin = open(0, closefd=False)
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)


def _describe(error: BaseException, package_dir: str) -> dict:
    """Plain description of an exception: type, message, and the frames that are in the student's files."""
    stack = traceback.StackSummary.extract(traceback.walk_tb(error.__traceback__), lookup_lines=False)
    frames = [f for f in stack if f.filename.startswith(package_dir)]  # only these lines are read: the grader's files stay closed
    if isinstance(error, SyntaxError) and error.filename and error.filename.startswith(package_dir):
        frames.append(traceback.FrameSummary(error.filename, error.lineno or 0, "<module>", line=(error.text or "").strip()))
    where = [
        {"file": os.path.relpath(f.filename, os.path.dirname(package_dir)), "line": f.lineno, "function": f.name, "code": (f.line or "").strip()}
        for f in frames
    ]
    message = error.msg if isinstance(error, SyntaxError) else str(error)
    return {"type": type(error).__name__, "message": message[:500], "where": where}


def read_frame(fd: int) -> bytes | None:
    """One length-prefixed frame from fd; None at end of input."""
    header = _read_exactly(fd, 8)
    return None if header is None else _read_exactly(fd, int.from_bytes(header, "little"))


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _write_frame(fd: int, value: object) -> None:
    """value, torch.save'd, as one length-prefixed frame on fd."""
    buffer = io.BytesIO()
    torch.save(value, buffer)
    data = buffer.getvalue()
    view = memoryview(len(data).to_bytes(8, "little") + data)
    while view:
        view = view[os.write(fd, view):]


def _answer(fd: int, answer: dict, describe: object) -> None:
    """Send an answer; one that torch.save refuses becomes a failure the grader can read."""
    try:
        _write_frame(fd, answer)
    except Exception as error:  # noqa: BLE001 - a result torch.save cannot write
        unsaved = {"type": "UnsavableResult", "message": f"returned a result the grader cannot take back ({type(error).__name__})", "where": []}
        _write_frame(fd, {"ok": False, "error": unsaved, "spied": answer.get("spied", []), "refused": answer.get("refused", []), "reads": 0})


def _run_child(job: dict) -> None:
    """Body of a forked child: limits, guards, import of the student's module, then answer requests until told to stop."""
    requests = os.open(job["requests"], os.O_RDONLY)
    answers = os.open(job["answers"], os.O_WRONLY)
    _limit(job)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    attempts: list[str] = []
    folder, package_dir = job["workdir"], job["package"]
    _landlock(folder, package_dir)  # before the Guard, which refuses ctypes
    sys.meta_path.insert(0, RefusedImport(attempts))
    sys.addaudithook(Guard(attempts, folder, package_dir))
    child = sys.modules["_child"]

    def describe(error: BaseException) -> dict:
        return _describe(error, package_dir)

    try:
        _load_package("exercises", package_dir)
        module = importlib.import_module("exercises." + job["module"])
    except BaseException as error:  # the student's import may raise anything, SystemExit included
        _write_frame(answers, {"ok": False, "error": describe(error), "refused": list(attempts)})
        return
    _write_frame(answers, {"ok": True, "refused": list(attempts)})
    session = child.session.Session(module, describe, attempts)
    while (frame := read_frame(requests)) is not None:
        request = torch.load(io.BytesIO(frame), weights_only=True)
        if request["op"] == "exit":
            return
        _answer(answers, session.handle(request), describe)


def _fork(job: dict) -> int:
    """Start a child for job; return its pid."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _run_child(job)
        except BaseException:  # noqa: B036 - nothing may escape the child
            code = 70
        finally:
            os._exit(code)
    return pid


def _say(message: dict) -> None:
    """One JSON line to the grader."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _become_subreaper() -> None:
    """Orphans of a child (a process it started, even in a new session) are re-parented here, not to init."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _reap_orphans(children: set[int]) -> int:
    """Kill and reap every process re-parented to the zygote that is not one of its running children; count them."""
    me, count = os.getpid(), 0
    for _ in range(100):  # an orphan that forks again re-parents its own children here: repeat until none is left
        orphans = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) in children:
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == me:
                orphans.append(int(entry))
        if not orphans:
            return count
        count += len(orphans)
        for pid in orphans:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
    return count


def serve(child_dir: str) -> None:
    """Zygote loop: fork a child per job line, report each child's pid and exit."""
    _load_package("_child", child_dir)
    _become_subreaper()
    _say({"ready": True})
    children: dict[int, tuple[object, int]] = {}  # pidfd -> (job id, pid)
    stdin, pending, open_input = sys.stdin.fileno(), b"", True
    while open_input or children:
        readable, _, _ = select.select(([stdin] if open_input else []) + list(children), [], [])
        for fd in readable:
            if fd == stdin:
                chunk = os.read(stdin, 1 << 16)
                open_input = bool(chunk)
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    job = json.loads(line)
                    job["close_fds"] = list(children)
                    pid = _fork(job)
                    children[os.pidfd_open(pid)] = (job["id"], pid)
                    _say({"id": job["id"], "pid": pid})
            else:
                job_id, pid = children.pop(fd)
                os.close(fd)
                _, status = os.waitpid(pid, 0)
                orphans = _reap_orphans({child for _, child in children.values()})  # what it started must not outlive it
                _say({"id": job_id, "exit": os.waitstatus_to_exitcode(status), "orphans": orphans})


if __name__ == "__main__":
    serve(sys.argv[1])
