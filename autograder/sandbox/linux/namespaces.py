"""New user, PID and mount namespaces for a zygote, where the kernel lets an ordinary user make them: the zygote is the
first process (pid 1) of a PID namespace of its own, with a /proc of its own, so its children see no process but their
zygote and each other, and cannot name (signal, prlimit, ptrace ...) the grader, the pristine process or a classmate's
zygote, with or without the seccomp filter.

Loaded by path by the Linux backend's worker (worker.py), under an ordinary user only: under root each child already
runs as a user of its own. Each step is a system call through the C library (os.unshare is Python 3.12's only).
Where the kernel refuses any of them (kernel.unprivileged_userns_clone=0, user.max_user_namespaces=0, AppArmor's
restriction on unprivileged user namespaces, a container's seccomp profile, a /proc partly hidden by a container),
probe() says so once and the zygotes are forked as before.
"""
import ctypes
import os

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000
CAPSET = {"x86_64": 126, "aarch64": 91}  # the capset syscall's number
CAPABILITY_VERSION_3 = 0x20080522
PR_GET_DUMPABLE, PR_SET_DUMPABLE = 3, 4
PER_NAMESPACE_NPROC = (5, 14)  # from this kernel on, RLIMIT_NPROC counts a user's tasks in each user namespace


def _libc() -> ctypes.CDLL:
    """The C library, errno kept."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
    libc.syscall.restype = ctypes.c_long
    return libc


def _failed(what: str) -> OSError:
    """The OSError of the C call just made."""
    number = ctypes.get_errno()
    return OSError(number, f"{what}: {os.strerror(number)}")


def enter() -> bool:
    """In the process that forks the zygote (single-threaded): a new user namespace in which its user and group are
    themselves (files it writes stay the user's), and new PID and mount namespaces for the processes it forks from
    now on. False when the kernel refuses the namespaces: then nothing changed; OSError when it made them but refused
    the user's mapping (this process must then fork nothing)."""
    uid, gid = os.geteuid(), os.getegid()
    if _libc().unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS) != 0:
        return False
    _map(uid, gid)
    return True


def _map(uid: int, gid: int) -> None:
    """Map uid and gid to themselves in the user namespace this process just made (no supplementary groups there). A
    process that is not dumpable (the pristine process's forks) has its /proc/self files owned by root: it is made
    dumpable while it writes them, then not again."""
    libc = _libc()
    dumpable = libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
    finally:
        libc.prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0)


def settle() -> int:
    """In the zygote, the first process of the new PID namespace: its mounts made private, a /proc of its own mounted
    (only this namespace's processes), then a user namespace of its own (the kernel counts RLIMIT_NPROC per user
    namespace: the zygote's and its children's tasks alone, not the middle process's, which made the first one) and
    every capability dropped (its children have none). Returns a descriptor of the grader's /proc (O_PATH), opened
    before, for host_pid; OSError when a step is refused."""
    host = os.open("/proc", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    uid, gid = os.geteuid(), os.getegid()
    libc = _libc()
    try:
        if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
            raise _failed("making the mounts private")
        if libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None) != 0:
            raise _failed("mounting /proc")
        if libc.unshare(CLONE_NEWUSER) != 0:
            raise _failed("making the zygote's user namespace")
        _map(uid, gid)
        header = (ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0)  # this process
        data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable, twice (low and high 32 bits): none
        if libc.syscall(CAPSET.get(os.uname().machine, -1), header, data) != 0:
            raise _failed("dropping the capabilities")
    except OSError:
        os.close(host)
        raise
    return host


def host_pid(host: int, pidfd: int) -> int:
    """The pid, as the grader sees it, of the process pidfd refers to (its pidfd's "Pid:" read through the grader's
    /proc, host: settle's descriptor); OSError when it cannot be read."""
    with open(os.open(f"self/fdinfo/{pidfd}", os.O_RDONLY | os.O_CLOEXEC, dir_fd=host), "rb") as handle:
        for line in handle:
            if line.startswith(b"Pid:"):
                pid = int(line.split()[1])
                if pid > 0:
                    return pid
    raise OSError(f"no pid for descriptor {pidfd} in the grader's /proc")


def per_namespace_nproc() -> bool:
    """True when this kernel counts RLIMIT_NPROC in each user namespace (a child's limit then bounds its namespace's
    tasks, not every task of the user)."""
    try:
        release = tuple(int(part) for part in os.uname().release.split("-")[0].split(".")[:2])
    except ValueError:
        return False
    return release >= PER_NAMESPACE_NPROC


def tasks() -> int:
    """The tasks (threads) this process's /proc lists: in a zygote's PID namespace, the zygote's and its children's."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                count += len(os.listdir(f"/proc/{entry}/task"))
            except OSError:  # ended since
                continue
    return count


def probe() -> bool:
    """Whether this machine lets this user do it all (the namespaces, the mapping, the /proc, the capabilities, the
    pids read back), tried once in a forked process and a process it forks (milliseconds, before torch is imported)."""
    try:
        middle = os.fork()
    except OSError:
        return False
    if middle == 0:
        code = 1
        try:
            if enter():
                inner = os.fork()
                if inner == 0:
                    _probe_inside()
                code = os.waitstatus_to_exitcode(os.waitpid(inner, 0)[1])
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(middle, 0)[1]) == 0


def _probe_inside() -> None:
    """The probe's zygote: settle, see only itself in /proc, read its own pid as the grader sees it; never returns."""
    code = 1
    try:
        host = settle()
        alone = [entry for entry in os.listdir("/proc") if entry.isdigit()] == ["1"] and os.getpid() == 1
        mine = int(os.readlink("self", dir_fd=host))
        if alone and host_pid(host, os.pidfd_open(os.getpid())) == mine:
            code = 0
    finally:
        os._exit(code)
