"""The sandbox: a pristine process that imports torch once and forks a zygote per student, which forks one child per
graded question.

Run as a script (never imported by the grader): `python -I worker.py`, its stdin a SOCK_SEQPACKET socket to the
grader. This first process is the pristine one: it imports torch and the child's side, then only forks zygotes, never
a question's child, so no student's code ever ran in it or in a process it was forked from. Each message the grader
sends it is one JSON object: {"zygote": n, "preload": [module, ...]} with two descriptors, the read end of the new
zygote's job pipe and the write end of its answer pipe (modules to import first, once, for every later zygote), or
{"preload": [...]} alone (import them now, in that order, ahead of the zygotes that will want them, and fork nothing),
and "collapse" with a zygote for another student (a class: _collapse_memory first, once after each import);
it answers {"zygote": n, "pid"} with the zygote's pidfd, {"zygote": n, "exit"} when that zygote ends, {"zygote": n,
"error"} when the system refused the fork, and {"preloaded": module} as each module asked ahead is imported.

A zygote reads one JSON job per line on its job pipe (or {"preload": [module, ...]}: modules to import once, before
the next fork) and answers JSON lines on its answer pipe: {"id", "pid"} when a child starts, {"id", "exit",
"orphans"} when it ends (orphans: processes it left behind, which the zygote, a subreaper, killed). Each child runs
the student's code with resource limits, in its own process group and temporary folder. It imports the student's
module, then answers the grader's requests (calls of the student's functions) one at a time: each request and each
answer is one frame (sandbox/codec.py) on a pair of FIFOs in its folder. An audit hook (Guard) and, where the kernel
has it, Landlock keep the student's code away from the grader's files, from every folder but its own for writing,
from other processes and from its own limits. The grader, in another process, decodes the answers (never unpickling
anything) and decides the score."""
import ctypes
import gc
import importlib
import json
import os
import resource
import runpy
import select
import signal
import socket
import sys
from typing import Callable

# No collection while torch loads: its ~180,000 objects would be traversed by several full collections (a tenth of its
# import); pristine() freezes them and turns the collector back on before any zygote is forked.
gc.disable()
_boot = runpy.run_path(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "boot.py"))
_boot["extend_path"]()  # torch where the grader found it (a user site, conda, PYTHONPATH)
_namespaces = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "namespaces.py"))
# Under an ordinary user, each zygote in namespaces of its own where the kernel allows it: tried once, before torch's
# import makes a fork dearer. Under root each child is a user of its own already.
_NAMESPACES = os.geteuid() != 0 and _namespaces["probe"]()

import torch  # noqa: E402

# Bound here, in the zygote, before any student code runs: a patched builtin never reaches the worker.
from builtins import len  # noqa: E402, A004

_child = _boot["load_child"]()
_walls = _boot["load_walls"]()
CHILD_FAILED = _child.serve.CHILD_FAILED
# Loaded by path with _child. CHILD_THREADS: threads a child may run at once (RLIMIT_NPROC, per user: its own id under
# root; see _hold_threads)
from _limits import CHILD_FILES, CHILD_SIGNALS, CHILD_THREADS, CPU_GRACE_SECONDS  # noqa: E402

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
PR_SET_KEEPCAPS, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, CAP_DAC_READ_SEARCH = 8, 24, 47, 4, 2
CAPSET = {"x86_64": 126, "aarch64": 91}  # the capset syscall's number
CHILD_IDS = 0x70000000  # under root, a child runs as user and group CHILD_IDS + its pid: ids no other process has


def _reachable(path: str) -> bool:
    """True when a user with no privilege may read path (a folder: list it) and every folder above it lets them pass."""
    try:
        info = os.stat(path)
        if not info.st_mode & (0o005 if os.path.isdir(path) else 0o004):
            return False
        return all(os.stat(folder).st_mode & 0o001 for folder in _walls.ancestors(path))
    except OSError:
        return False


_PYTHON_REACHABLE = None  # whether Python's own folders can be read without privilege (computed once, in the zygote)


def _needs_read_privilege(package_dir: str, workdir: str) -> bool:
    """True when a child dropped to an unprivileged user could not import what it needs: Python's folders or the
    student's package sit below a folder only root may enter (a pyenv in /root, a grader's private scratch folder)."""
    global _PYTHON_REACHABLE
    if _PYTHON_REACHABLE is None:
        _PYTHON_REACHABLE = all(_reachable(root) for root in _walls.python_folders())
    return not (_PYTHON_REACHABLE and _reachable(os.path.dirname(workdir))
                and all(_reachable(os.path.join(package_dir, name)) for name in [".", *os.listdir(package_dir)]))


def _drop_privileges(job: dict) -> bool:
    """Under root: become user and group CHILD_IDS + pid, with no supplementary group and no capability (but
    CAP_DAC_READ_SEARCH when job["read_privilege"]: reading and listing, which Landlock confines to what the child
    needs (walls.py), so that Python and the package stay importable from folders only root may enter), after giving
    the child its folder. False when not root (nothing to drop)."""
    if os.geteuid() != 0:
        return False
    import platform  # only as root

    ids = CHILD_IDS + os.getpid()
    for path in (job["workdir"], os.path.join(job["workdir"], "output.txt")):
        os.chown(path, ids, ids)
    libc = ctypes.CDLL(None, use_errno=True)
    keep = 1 << CAP_DAC_READ_SEARCH if job["read_privilege"] else 0
    cap = 0
    while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0 or ctypes.get_errno() != 22:  # EINVAL past the last capability
        cap += 1
        if cap > 63:
            break
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    libc.prctl(PR_SET_KEEPCAPS, 1 if keep else 0, 0, 0, 0)
    # counted per user: here its own id, so its threads
    resource.setrlimit(resource.RLIMIT_NPROC, (CHILD_THREADS, CHILD_THREADS))
    os.setgroups([])
    os.setresgid(ids, ids, ids)
    os.setresuid(ids, ids, ids)  # clears every capability (all of them, unless kept above)
    if keep:
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        # effective, permitted, inheritable; then the upper 32 bits
        data = (ctypes.c_uint32 * 6)(keep, keep, 0, 0, 0, 0)
        libc.syscall.restype = ctypes.c_long
        if libc.syscall(CAPSET[platform.machine()], header, data) != 0:
            raise OSError(ctypes.get_errno(), "capset failed")
    if os.getuid() == 0 or os.geteuid() == 0:
        raise PermissionError("the child is still root")
    return True


def _hold_threads(counted_inside: bool) -> None:
    """Under an ordinary user, whose RLIMIT_NPROC counts every process and thread of that user (the grader's and the
    classmates' too): the child may start at most CHILD_THREADS more than the whole machine runs now (/proc/loadavg,
    read in microseconds), a bound of its own however large the user's quota, so that a thread bomb fails in its
    question. counted_inside: the zygote is in a user namespace of its own, where the kernel counts the limit (Linux
    5.14 and later): then CHILD_THREADS more than that namespace runs (the zygote's tasks and its children's, listed by
    its own /proc), the question's own bound, as under root."""
    try:
        if counted_inside:
            running = _namespaces["tasks"]()
        else:
            with open("/proc/loadavg") as handle:
                running = int(handle.read().split()[3].partition("/")[2])
    except (OSError, ValueError, IndexError):
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    bound = running + CHILD_THREADS
    if hard == resource.RLIM_INFINITY or bound < hard:
        resource.setrlimit(resource.RLIMIT_NPROC, (bound, bound))


def _limit(job: dict) -> None:
    """Resource limits, process group, working folder and captured output for a child."""
    os.setsid()
    for name, value in (
        ("RLIMIT_AS", job["memory_bytes"]),
        ("RLIMIT_FSIZE", job["output_bytes"]),
        ("RLIMIT_CORE", 0),
        ("RLIMIT_NOFILE", CHILD_FILES),  # after Landlock closed its rules' descriptors (_run_child)
    ):
        which = getattr(resource, name)
        ceiling = resource.getrlimit(which)[1]  # a lower limit set on the grader (`ulimit -v` on a small server) stays
        value = value if ceiling == resource.RLIM_INFINITY else min(value, ceiling)
        resource.setrlimit(which, (value, value))
    cpu = int(job["time_limit"]) + CPU_GRACE_SECONDS
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


def _run_child(job: dict) -> None:
    """Body of a forked child: limits, Landlock and seccomp, then the shared loop (child/serve.py): guards, import of
    the student's module, requests answered until told to stop."""
    # first: it closes the zygote's descriptors of its rules, so the channel's are the lowest
    _LANDLOCK.restrict(job["landlock"])
    requests = os.open(job["requests"], os.O_RDONLY | os.O_NONBLOCK)  # never waits for a grader that has already gone
    # ENXIO when the grader closed it: this child just ends
    answers = os.open(job["answers"], os.O_WRONLY | os.O_NONBLOCK)
    os.set_blocking(requests, True)
    os.set_blocking(answers, True)
    _limit(job)
    torch.set_num_threads(1)
    # torch.manual_seed would also queue CUDA's seeding (the zygote did, once): 3 ms
    torch.default_generator.manual_seed(0)
    dropped = _drop_privileges(job)
    if not dropped:
        _hold_threads(job["counted_inside"])
    # Forked from the zygote, which is not dumpable. Under root it stays so (the grader's capabilities read it anyway);
    # under an ordinary user it becomes dumpable again, its /proc/<pid>/fd listed by the grader (base.held_unlisted),
    # and the seccomp filter keeps it so.
    _walls.set_dumpable(not dropped)
    _walls.hold_signals(CHILD_SIGNALS)  # counted per user: its own id under root, else the grader's
    _die_with_zygote(job["zygote"])  # after the drop, which clears a parent-death signal
    _walls.seccomp(_SECCOMP_PROGRAM)
    _child.serve.run(
        requests, answers, job["package"], job["module"], job["workdir"], job["hidden"], job["own_modules"]
    )


def _die_with_zygote(zygote: int) -> None:
    """The kernel kills this child when the zygote dies (a grader killed with SIGKILL takes its zygote's stdin away)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != zygote:  # the zygote died before the signal was set
        os._exit(CHILD_FAILED)


def _fork(job: dict) -> int:
    """Start a child for job; return its pid."""
    job["zygote"] = os.getpid()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _run_child(job)
        except BaseException:  # noqa: BLE001 - nothing may escape the child
            code = CHILD_FAILED
        finally:
            os._exit(code)
    return pid


def _say(message: dict) -> None:
    """One JSON line to the grader."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _become_subreaper() -> None:
    """Orphans of a child (a process it started, even in a new session) are re-parented here, not to init."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _reap_orphans(ended: int, children: set[int]) -> int:
    """Kill the ended child's process group, then kill and reap every process re-parented to the zygote that is not
    one of its running children, until none is left however deep the tree was; count them. (Where seccomp works, a
    child starts no process at all.)"""
    me, count = os.getpid(), 0
    try:
        os.killpg(ended, signal.SIGKILL)  # its group: the child called setsid, so the group's id is its pid
    except OSError:
        pass
    while True:  # an orphan that forks again re-parents its own children here: repeat until none is left
        if not children and not _has_children():
            return count  # nothing left below the zygote: no need to read the whole of /proc (the usual case, a few ms)
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


def _has_children() -> bool:
    """True when any process, running or ended but not yet reaped, has the zygote as its parent (an orphan of an ended
    child is re-parented here, the subreaper, when its own parent exits)."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


def _preload(modules: list[str], done: Callable[[str], None] = lambda name: None) -> None:
    """Import modules here, once, so that every later child finds them imported (torch imports some lazily, at a
    cost); done(name) after each. The collector is off meanwhile, as for torch's own import: torch._dynamo's ~800
    modules would otherwise be traversed by full collections, on the way to the question that waits for them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception as error:  # noqa: BLE001 - a module this torch build lacks: each child imports it itself
                print(f"preloading {name} failed: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
            done(name)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


MADV_COLLAPSE, HUGE_PAGE = 25, 1 << 21


def _collapse_memory() -> None:
    """Back the pristine process's heap and anonymous memory (torch's and Python's objects, 150 to 300 MB) with huge
    pages where the kernel can (MADV_COLLAPSE, Linux 6.1): a fork then copies one page-table entry per 2 MiB instead of
    512, and a child's exit frees as few, 7 to 15 ms less CPU per question; a child that writes to such a page still
    copies only 4 KiB of it. Where the kernel cannot (older, or huge pages off), nothing changes. The kernel's copy
    costs 0.25 to 0.4 s of CPU, more than a zygote's ten children win back: only the pristine process collapses, for
    a class, whose every later zygote inherits it (pristine())."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return
    for line in lines:
        fields = line.split()
        if len(fields) < 5 or fields[1] != "rw-p" or (len(fields) > 5 and fields[5] != "[heap]"):
            # only the heap and private anonymous memory: never a file's, a stack, shared memory or a guard page
            continue
        low, high = (int(bound, 16) for bound in fields[0].split("-"))
        low, high = (low + HUGE_PAGE - 1) & -HUGE_PAGE, high & -HUGE_PAGE
        if high > low:
            # refused (EINVAL) by a kernel without it: that range stays as it was
            libc.madvise(low, high - low, MADV_COLLAPSE)


_LANDLOCK, _SECCOMP_PROGRAM = _walls.Landlock(), _walls.seccomp_program()


def serve(own_modules: list[str], host: int | None = None) -> None:
    """Zygote loop: fork a child per job line (or import the modules of a preload line), report each child's pid and
    exit. host: in namespaces of its own, a descriptor of the grader's /proc (namespaces.settle), through which each
    child's pid is said as the grader sees it."""
    counted_inside = host is not None and _namespaces["per_namespace_nproc"]()
    _become_subreaper()
    # the objects the zygote made stay out of every collection: a child's collector never touches (copies) their pages
    gc.freeze()
    _say({"ready": True})
    children: dict[int, tuple[object, int]] = {}  # pidfd -> (job id, pid)
    stdin, pending, open_input = sys.stdin.fileno(), b"", True
    while open_input or children:
        readable, _, _ = select.select(([stdin] if open_input else []) + list(children), [], [])
        for fd in readable:
            if fd == stdin:
                chunk = os.read(stdin, 1 << 16)
                open_input = bool(chunk)
                if not open_input:  # the grader is gone (or closed us): no student's code runs on after it
                    for _, pid in children.values():
                        try:
                            os.killpg(pid, signal.SIGKILL)  # its group: the child called setsid
                        except OSError:
                            pass
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    job = json.loads(line)
                    if "preload" in job:
                        _preload(job["preload"])
                        continue
                    job["close_fds"] = [*children, *([] if host is None else [host])]
                    job["counted_inside"] = counted_inside
                    job["own_modules"] = own_modules
                    # the sandbox's folder: the other children's channels
                    job["hidden"] = [os.path.dirname(job["workdir"]), *job.get("hidden", [])]
                    job["read_privilege"] = os.geteuid() == 0 and _needs_read_privilege(job["package"], job["workdir"])
                    job["landlock"] = _LANDLOCK.plan(job["workdir"], job["package"], job["hidden"])
                    pid = _fork(job)
                    for fd in job["landlock"]["job_fds"] if job["landlock"] else ():
                        os.close(fd)
                    pidfd = os.pidfd_open(pid)
                    children[pidfd] = (job["id"], pid)
                    _say({"id": job["id"], "pid": pid if host is None else _namespaces["host_pid"](host, pidfd)})
            else:
                job_id, pid = children.pop(fd)
                os.close(fd)
                _, status = os.waitpid(pid, 0)
                # what it started must not outlive it
                orphans = _reap_orphans(pid, {child for _, child in children.values()})
                _say({"id": job_id, "exit": os.waitstatus_to_exitcode(status), "orphans": orphans})


def _tell(control: socket.socket, message: dict, fds: tuple[int, ...] = ()) -> None:
    """One message of the pristine process to the grader, with fds (a zygote's pidfd); a lane's socket that closed
    meanwhile (the lane ended: its zygotes end with their job pipes) hears nothing."""
    try:
        socket.send_fds(control, [json.dumps(message).encode()], list(fds))
    except OSError:  # the grader, or the lane, is gone: the loop reads its socket's end next
        pass


def _become_zygote(
    channels: list[socket.socket],
    pipes: list[int],
    zygotes: dict[int, tuple[socket.socket, int, int]],
    own_modules: list[str],
    inside: bool,
) -> None:
    """The forked zygote's life: in namespaces of its own (inside), a /proc of its own and no capability; its job pipe
    as stdin and its answer pipe as stdout, none of the pristine process's descriptors (the graders' sockets, the
    other zygotes' pidfds), then the zygote loop; it never returns."""
    code = 0
    try:
        host = _namespaces["settle"]() if inside else None
        channels[0].detach()  # fd 0, replaced below: the socket object must not close it later
        for lane in channels[1:]:
            lane.close()
        os.dup2(pipes[0], 0)
        os.dup2(pipes[1], 1)
        for fd in [*pipes, *zygotes]:
            os.close(fd)
        serve(own_modules, host)
    except BaseException:  # noqa: BLE001 - nothing may return into the pristine process's loop
        import traceback  # only when a zygote fails: nothing more is imported into the pristine process for nothing

        traceback.print_exc()
        code = 1
    finally:
        os._exit(code)


def _enter_and_fork() -> bytes | None:
    """The middle process's part of _fork_zygote: enter the namespaces and fork the zygote; None in the zygote, else
    the word for the pristine process ("pid N", "error ERRNO" when the system refused the fork, "refused" when the
    kernel refused the namespaces)."""
    try:
        if not _namespaces["enter"]():
            return b"refused"
    except Exception:  # noqa: BLE001 - made but not mapped: this process forks nothing
        return b"refused"
    try:
        pid = os.fork()
    except OSError as error:
        return f"error {error.errno}".encode()
    return None if pid == 0 else f"pid {pid}".encode()


def _fork_zygote(middles: dict[int, int]) -> tuple[int, bool]:
    """Fork a zygote: (its pid, 0 in the zygote itself; whether it runs in namespaces of its own). Where the probe found
    them, a middle process enters new user, PID and mount namespaces, forks the zygote (the first process of the new
    PID namespace), says its pid and ends, and the pristine process, a subreaper, becomes the zygote's parent; the
    middle process is left in middles (zygote's pid -> its pid) for _reap_middles, so that its exit is not waited for
    here. A kernel that refuses the namespaces now gets plain forks, for this zygote and the later ones. OSError when
    the system refuses a process."""
    global _NAMESPACES
    if _NAMESPACES:
        read, write = os.pipe()
        try:
            middle = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            raise
        if middle == 0:
            os.close(read)
            word = _enter_and_fork()
            if word is None:
                os.close(write)
                return 0, True
            try:
                os.write(write, word)
            finally:
                os._exit(0)
        os.close(write)
        try:
            kind, _, value = os.read(read, 64).decode().partition(" ")
        finally:
            os.close(read)
        if kind == "pid":
            middles[int(value)] = middle
            return int(value), True
        os.waitpid(middle, 0)
        if kind == "error":
            raise OSError(int(value), os.strerror(int(value)))
        _NAMESPACES = False  # refused, or the middle process died: the zygotes as before
    return os.fork(), False


def _reap_middles(middles: dict[int, int], zygote: int | None = None) -> None:
    """Reap the middle processes that have ended, and wait for zygote's (until it ends, the zygote is its child)."""
    for pid, middle in list(middles.items()):
        if os.waitpid(middle, 0 if pid == zygote else os.WNOHANG)[0]:
            del middles[pid]


def pristine() -> None:
    """The pristine process's loop: fork a zygote per request of the grader's (after importing the modules it asks for),
    report each one's pidfd and exit. It never forks a question's child, so no student's code ran in it."""
    # Listed once: a child that walked sys.modules would copy the pages of its ~2,000 keys (5 ms).
    own_modules = [
        name for name in sys.modules if name in ("_child", "_codec", "_walls", "_limits") or name.startswith("_child.")
    ]
    # Not dumpable, nor the zygotes and middle processes forked from it: a child run under the grader's own user, where
    # no namespace hides them, cannot list their descriptors nor read their environment or memory in /proc.
    _walls.set_dumpable(False)
    torch.manual_seed(0)  # queues CUDA's seeding once; each child reseeds only the CPU generator
    _walls.root_only(), _walls.python_folders()  # what every Landlock plan reads, found once before the first job
    gc.freeze()
    gc.enable()  # off since the start (above): every zygote and child collects as Python does
    if _NAMESPACES:  # a zygote's middle process ends at once: the zygote is then re-parented here
        _become_subreaper()
    control = socket.socket(fileno=0)  # the grader's SOCK_SEQPACKET socket, as stdin
    _tell(control, {"ready": True})
    # the grader's socket first, then one per grader lane it opened (a {"lane"} request hands its socket over): each
    # asks for zygotes of its own and hears only of them
    channels: list[socket.socket] = [control]
    zygotes: dict[int, tuple[socket.socket, int, int]] = {}  # pidfd -> (the socket that asked, zygote number, pid)
    middles: dict[int, int] = {}  # zygote's pid -> its middle process, not yet reaped (_fork_zygote)
    collapsed = False  # whether the memory was collapsed since the last preload
    while True:
        readable, _, _ = select.select([*channels, *zygotes], [], [])
        for fd in readable:
            if not isinstance(fd, socket.socket):
                asker, number, pid = zygotes.pop(fd)
                os.close(fd)
                _reap_middles(middles, pid)
                _, status = os.waitpid(pid, 0)
                if asker in channels:
                    _tell(asker, {"zygote": number, "exit": os.waitstatus_to_exitcode(status)})
                continue
            try:
                data, pipes, _flags, _address = socket.recv_fds(fd, 1 << 16, 2)
            except OSError:  # a lane's socket reset: as its end
                data, pipes = b"", []
            if not data:
                if fd is control:  # the grader is gone: each zygote ends when its own job pipe closes
                    return
                channels.remove(fd)  # a lane ended: its zygotes end with their job pipes
                fd.close()
                continue
            request = json.loads(data)
            if request.get("lane"):  # a grader lane's own socket
                channels.extend(socket.socket(fileno=end) for end in pipes)
                continue
            if request.get("preload"):
                # modules asked ahead ({"preload"} alone): each one said once imported, so that the grader forks the
                # question that wants it from here then, not while this process is still busy with a later question's
                _preload(request["preload"], (lambda name: None) if "zygote" in request else (
                    lambda name, asker=fd: _tell(asker, {"preloaded": name})))
                collapsed = False
            if "zygote" not in request:  # {"preload"} alone: modules imported ahead for the zygotes forked from now on
                continue
            if request.get("collapse") and not collapsed:  # a zygote for another student (a class): every zygote
                _collapse_memory()  # forked after it inherits it; a single student's check never pays for it
                collapsed = True
            try:
                _reap_middles(middles)
                pid, inside = _fork_zygote(middles)
            except OSError as error:  # a limit on processes: the grader reads this line when the zygote's pipe closes
                print(f"{type(error).__name__}: {error}", file=sys.stderr, flush=True)
                _tell(fd, {"zygote": request["zygote"], "error": str(error)})
                pid = None
            if pid == 0:
                _become_zygote(channels, pipes, zygotes, own_modules, inside)
            for end in pipes:
                os.close(end)
            if pid:
                pidfd = os.pidfd_open(pid)
                zygotes[pidfd] = (fd, request["zygote"], pid)
                _tell(fd, {"zygote": request["zygote"], "pid": pid, "namespaces": inside}, (pidfd,))


if __name__ == "__main__":
    pristine()
    # the grader is gone: no teardown of torch (half a second of CPU, over a second on a busy machine), nothing to flush
    os._exit(0)
