"""Windows, as far as a Linux interpreter can be made to behave like it, for tests: loaded after no_linux.py.

Beside the Linux-only pieces that no_linux.py takes away, Windows lacks what POSIX gives every Unix, macOS included:
os.fork and the fork start method of multiprocessing, os.posix_spawn, os.waitpid and its kin, os.mkfifo, os.chown,
process groups and sessions (os.setsid, setpgrp, killpg, getpgrp, setpgid), users (getuid, geteuid, getgid, the pwd
and grp modules), os.sched_getaffinity, os.pipe2, the fcntl, resource and terminal modules (termios, tty, pty), select
on anything but a socket, select.poll and epoll, faulthandler.register, and the signals and calls that only POSIX has
(SIGKILL, SIGUSR1, SIGALRM, SIGHUP, SIGCHLD, pthread_sigmask, setitimer, alarm ...).

What only Windows has is given stand-ins, so that the kit's Windows-only code runs: os.O_BINARY and msvcrt (setmode,
locking: a byte lock made of a POSIX record lock), subprocess.CREATE_NEW_PROCESS_GROUP (Popen takes creationflags, and
a new process group keeps the child off the console's Ctrl-C: here a new session), the exit codes of a crashed Windows
process (a segmentation fault reads 0xC0000005, an abort 0xC0000409, a division by zero 0xC0000094), and Job Objects
(ctypes.WinDLL("kernel32"): a job records its processes, caps each one's address space at the job's memory limit, and
kills them and what they started when terminated or closed).

subprocess, multiprocessing and psutil, loaded first, keep the real os, select and signal modules: on this machine
they run a POSIX implementation underneath (on Windows theirs needs none of it). What numpy and torch read on their
Linux paths (os.uname, os.sysconf, os.register_at_fork) stays: they take those paths by sys.platform, which a
simulation cannot change, and so does os.name."""
import ctypes
import errno
import faulthandler
import fcntl as _fcntl  # the real one, for the msvcrt stand-in; `import fcntl` fails below
import itertools
import multiprocessing.connection  # noqa: F401 - its selector is made with the real select.poll
import multiprocessing.context
import multiprocessing.popen_spawn_posix  # noqa: F401 - spawns with the real os (waitpid)
import multiprocessing.resource_tracker  # noqa: F401
import os
import select
import signal
import stat
import subprocess
import sys
import types

try:
    import psutil
    import psutil._psposix  # noqa: F401 - waits with the real os.waitpid
except ImportError:
    psutil = None

# the test writes a file's path here: each Windows stand-in the kit calls writes its name there, once a process
USED = None
_used: set[str] = set()


def _use(name: str) -> None:
    """Note that the kit took the Windows branch name in this process."""
    if USED and name not in _used:
        _used.add(name)
        with open(USED, "a", encoding="utf-8") as used:
            used.write(name + "\n")


_os = types.ModuleType("os", os.__doc__)  # the real os, for the modules that implement processes on this machine
_os.__dict__.update(vars(os))
for name, module in list(sys.modules.items()):
    if name.partition(".")[0] in ("subprocess", "multiprocessing", "psutil") and getattr(module, "os", None) is os:
        module.os = _os

for name in (
    "fork",
    "forkpty",
    "posix_spawn",
    "posix_spawnp",
    "waitpid",
    "wait",
    "wait3",
    "wait4",
    "waitid",
    "waitstatus_to_exitcode",
    "mkfifo",
    "mknod",
    "chown",
    "lchown",
    "fchown",
    "setsid",
    "setpgrp",
    "killpg",
    "getpgrp",
    "setpgid",
    "getpgid",
    "getsid",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "setuid",
    "setgid",
    "getgroups",
    "sched_getaffinity",
    "pipe2",
):
    if hasattr(os, name):
        delattr(os, name)
for name in ("poll", "epoll"):
    if hasattr(select, name):
        delattr(select, name)
for name in ("register", "unregister"):
    if hasattr(faulthandler, name):
        delattr(faulthandler, name)
for name in ("pwd", "grp", "termios", "tty", "pty", "fcntl", "resource"):
    sys.modules[name] = None  # `import fcntl` raises ImportError, as on Windows

_select = select.select


def _select_sockets_only(rlist: list, wlist: list, xlist: list, timeout: float | None = None) -> tuple:
    for item in (*rlist, *wlist, *xlist):
        fd = item if isinstance(item, int) else item.fileno()
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            raise OSError(errno.ENOTSOCK, "select works on sockets only on this platform (simulated)")
    return _select(rlist, wlist, xlist, timeout)


select.select = _select_sockets_only

POSIX_ONLY = (
    "SIGKILL",
    "SIGUSR1",
    "SIGUSR2",
    "SIGALRM",
    "SIGHUP",
    "SIGQUIT",
    "SIGCHLD",
    "SIGPIPE",
    "SIGVTALRM",
    "SIGPROF",
    "SIGSTOP",
    "SIGCONT",
    "SIGTSTP",
    "SIGIO",
    "SIGXCPU",
    "SIGXFSZ",
    "pthread_sigmask",
    "pthread_kill",
    "setitimer",
    "getitimer",
    "alarm",
    "pause",
    "siginterrupt",
    "sigwait",
    "sigpending",
    "sigtimedwait",
    "sigwaitinfo",
    "ITIMER_REAL",
    "ITIMER_VIRTUAL",
    "ITIMER_PROF",
    "SIG_BLOCK",
    "SIG_UNBLOCK",
    "SIG_SETMASK",
)
for real in (signal, sys.modules["_signal"]):
    windows_like = types.ModuleType(real.__name__, real.__doc__)
    windows_like.__dict__.update({key: value for key, value in vars(real).items() if key not in POSIX_ONLY})
    sys.modules[real.__name__] = windows_like

# multiprocessing: spawn is the only start method.
_contexts = multiprocessing.context
for name in ("fork", "forkserver"):
    _contexts._concrete_contexts.pop(name, None)
_contexts._default_context._default_context = _contexts._concrete_contexts["spawn"]
_contexts._default_context.get_all_start_methods = multiprocessing.get_all_start_methods = lambda: ["spawn"]

# Binary mode and byte locks: msvcrt.
# Windows' values (0x8000, 0x4000) mean other flags to this kernel: these change nothing here
os.O_BINARY, os.O_TEXT = 0, 0
msvcrt = types.ModuleType("msvcrt", "Windows' C runtime, as far as the kit uses it (simulated)")
msvcrt.LK_UNLCK, msvcrt.LK_LOCK, msvcrt.LK_NBLCK, msvcrt.LK_RLCK, msvcrt.LK_NBRLCK = 0, 1, 2, 3, 4
msvcrt.binary = set()  # the descriptors put in binary mode, for tests to see


def _setmode(fd: int, mode: int) -> int:
    """msvcrt.setmode: remember fd's mode; the previous one (text)."""
    os.fstat(fd)  # EBADF for a closed descriptor, as on Windows
    msvcrt.binary.add(fd)
    _use("msvcrt.setmode")
    return 0x4000


def _locking(fd: int, mode: int, nbytes: int) -> None:
    """msvcrt.locking: lock or unlock nbytes from the file's current position; OSError (EACCES) when another process
    holds them."""
    command = {
        0: _fcntl.LOCK_UN,
        1: _fcntl.LOCK_EX,
        2: _fcntl.LOCK_EX | _fcntl.LOCK_NB,
        3: _fcntl.LOCK_EX,
        4: _fcntl.LOCK_EX | _fcntl.LOCK_NB,
    }[mode]
    try:
        _fcntl.lockf(fd, command, nbytes, os.lseek(fd, 0, os.SEEK_CUR), os.SEEK_SET)
    except OSError:
        raise PermissionError(errno.EACCES, "Permission denied (simulated msvcrt.locking)") from None


msvcrt.setmode, msvcrt.locking = _setmode, _locking
sys.modules["msvcrt"] = msvcrt

# subprocess: creation flags, and the exit codes of a crashed process.
subprocess.CREATE_NEW_PROCESS_GROUP = 0x200
CRASH_CODES = {-11: 0xC0000005, -6: 0xC0000409, -8: 0xC0000094}  # access violation, fast fail (abort), integer division
_popen_init, _handle_exitstatus = subprocess.Popen.__init__, subprocess.Popen._handle_exitstatus


def _popen_init_as_windows(self: subprocess.Popen, *args: object, creationflags: int = 0, **kwargs: object) -> None:
    """Popen.__init__ taking Windows' creation flags: a new process group is a new session here."""
    if creationflags & ~subprocess.CREATE_NEW_PROCESS_GROUP:
        raise ValueError(f"creation flags {creationflags:#x}: not simulated")
    if creationflags:
        _use("CREATE_NEW_PROCESS_GROUP")
        kwargs["start_new_session"] = True
    _popen_init(self, *args, **kwargs)


def _exit_status_as_windows(self: subprocess.Popen, *args: object, **kwargs: object) -> None:
    """Popen._handle_exitstatus, giving a crash the code Windows gives it."""
    _handle_exitstatus(self, *args, **kwargs)
    if self.returncode in CRASH_CODES:
        _use(f"crash code {CRASH_CODES[self.returncode]:#x}")
    self.returncode = CRASH_CODES.get(self.returncode, self.returncode)


subprocess.Popen.__init__, subprocess.Popen._handle_exitstatus = _popen_init_as_windows, _exit_status_as_windows


# Job Objects, as job_object.py uses them: handle -> a job's pids, flags and memory limit, or a pid
_jobs: dict[int, object] = {}


_numbers = itertools.count(0x100, 4)


def _new_handle(value: object) -> int:
    handle = next(_numbers)
    _jobs[handle] = value
    return handle


def _terminate(handle: int, code: int) -> int:
    """TerminateJobObject: kill every process of the job and what they started; 0 (failed) for a handle that is not a
    job's."""
    if not isinstance(_jobs.get(handle), dict):
        return 0
    _use("TerminateJobObject")
    for pid in _jobs[handle]["pids"]:
        try:
            root = psutil.Process(pid)
            for process in [root, *root.children(recursive=True)]:
                process.kill()
        except Exception:  # noqa: BLE001 - gone already
            pass
    return 1


def _set_information(handle: int, kind: int, limits: object, size: int) -> int:
    """SetInformationJobObject: the job's flags and memory limit."""
    limits = limits._obj  # what ctypes.byref points at
    _jobs[handle].update(flags=limits.BasicLimitInformation.LimitFlags, memory=limits.JobMemoryLimit)
    return 1


def _assign(handle: int, process: int) -> int:
    """AssignProcessToJobObject: the process joins the job; its address space is capped at the job's memory limit."""
    job, pid = _jobs[handle], _jobs[process]
    job["pids"].append(pid)
    _use("AssignProcessToJobObject")
    if job["memory"] and psutil is not None:
        psutil.Process(pid).rlimit(psutil.RLIMIT_AS, (job["memory"], job["memory"]))
    return 1


def _close(handle: int) -> int:
    """CloseHandle: a job with KILL_ON_JOB_CLOSE kills its processes."""
    value = _jobs.get(handle)
    if isinstance(value, dict) and value["flags"] & 0x2000:
        _terminate(handle, 1)
    _jobs.pop(handle, None)
    return 1


_kernel32 = types.SimpleNamespace(  # plain functions: job_object.py sets their argtypes and restype
    CreateJobObjectW=lambda attributes, name: _new_handle({"pids": [], "flags": 0, "memory": 0}),
    SetInformationJobObject=_set_information,
    OpenProcess=lambda access, inherit, pid: _new_handle(pid),
    AssignProcessToJobObject=_assign,
    TerminateJobObject=_terminate,
    CloseHandle=_close,
)


def _win_dll(name: str, use_last_error: bool = False) -> object:
    """ctypes.WinDLL: kernel32's Job Objects; no other library."""
    if name.lower().removesuffix(".dll") != "kernel32":
        raise OSError(f"{name}: no such library (simulated Windows)")
    return _kernel32


ctypes.WinDLL = _win_dll
