"""The sandbox: a zygote process that imports torch once and forks one child per graded question.

Run as a script (never imported by the grader): `python -I worker.py`. It reads one JSON job
per line on stdin (or {"preload": [module, ...]}: modules to import once, before the next fork) and
answers JSON lines on stdout: {"id", "pid"} when a child starts, {"id", "exit", "orphans"} when it ends
(orphans: processes it left behind, which the zygote, a subreaper, killed). Each child runs the student's code with resource limits, in its own process group and temporary
folder. It imports the student's module, then answers the grader's requests (calls of the student's
functions) one at a time: each request and each answer is one frame (sandbox/codec.py) on a pair of FIFOs in
its folder. An audit hook (Guard) and, where the kernel has it, Landlock keep the student's code away
from the grader's files, from every folder but its own for writing, from other processes and from its
own limits. The grader, in another process, decodes the answers (never unpickling anything) and
decides the score.
"""
import ctypes
import functools
import gc
import importlib
import json
import os
import resource
import runpy
import select
import signal
import struct
import sys

_boot = runpy.run_path(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "boot.py"))
_boot["extend_path"]()  # torch where the grader found it (a user site, conda, PYTHONPATH)

import torch  # noqa: E402

# Bound here, in the zygote, before any student code runs: a patched builtin never reaches the worker.
from builtins import any, len, str  # noqa: E402, A004

_child = _boot["load_child"]()
KIT_ROOT, HIDDEN_FOLDERS, CHILD_FAILED = _child.guard.KIT_ROOT, _child.guard.HIDDEN_FOLDERS, _child.serve.CHILD_FAILED

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
PR_SET_KEEPCAPS, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, CAP_DAC_READ_SEARCH = 8, 24, 47, 4, 2
CAPSET = {"x86_64": 126, "aarch64": 91}  # the capset syscall's number
CHILD_IDS = 0x70000000  # under root, a child runs as user and group CHILD_IDS + its pid: ids no other process has
CHILD_THREADS = 64  # threads a child may run at once (RLIMIT_NPROC, per user: its own id)
# Linux Landlock: syscall numbers (the same on every architecture) and the file-system access rights used here.
LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF, LANDLOCK_RULE_PATH_BENEATH = 444, 445, 446, 1
FS_WRITE_FILE, FS_READ_FILE, FS_TRUNCATE, FS_REFER = 1 << 1, 1 << 2, 1 << 14, 1 << 13
FS_CHANGES = sum(1 << bit for bit in range(4, 13))  # remove dir/file, make char/dir/reg/sock/fifo/block/sym
FILE_RIGHTS = FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE  # the rights a rule on a file (not a folder) may carry


class _Beneath(ctypes.Structure):
    """struct landlock_path_beneath_attr."""

    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _Landlock:
    """Linux Landlock, kernel-enforced even for C code (torch.save, torch.from_file): a child writes only in its folder and
    reads nothing hidden.

    Hidden: the kit's oracle, solutions, suites and .git, plus the job's extra folders (the sandbox's folder, where the
    other children's channels are, and the folders holding other students' packages), except the package and the child's
    folder themselves. Landlock only grants, so every other entry of each folder above a hidden one gets its own read
    rule. The zygote plans the rules before each fork and opens their paths, listing those folders again only when one
    of them changed; the child only adds the opened rules (a few microseconds each, where opening them costs ten).
    """

    def __init__(self) -> None:
        """Ask the kernel which Landlock version it has (no C handle is kept: a child's student code could reach it)."""
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        self.abi = libc.syscall(LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
        self.listings: dict[tuple, tuple[list[int], list[tuple[int, int]]]] = {}  # (folders, hidden) -> (their mtimes, opened rules)

    def plan(self, workdir: str, package_dir: str, extra_hidden: list[str], private: tuple[str, ...] = (),
             readable: tuple[str, ...] = ()) -> dict | None:
        """The zygote's part: {"handled": rights, "rules": [(fd, rights)], "job_fds": [...]} for a child, None without
        Landlock. The rules' folders are opened here (O_PATH): the child only adds them; the zygote closes job_fds after
        the fork, the listing's own once it changes. private: files and folders hidden too, except the readable paths
        inside them (a child that keeps the right to read what root reads is kept out of root's own files this way)."""
        if self.abi < 1:
            return None  # no Landlock in this kernel: the Guard alone watches Python's own file access
        root = os.path.realpath(KIT_ROOT)
        package, own = os.path.realpath(package_dir), os.path.realpath(workdir)
        kit_hidden = {h for h in (os.path.realpath(os.path.join(root, name)) for name in HIDDEN_FOLDERS)
                      if os.path.exists(h) and package != h and not package.startswith(h + os.sep)}
        hidden = frozenset(kit_hidden | {os.path.realpath(h) for h in extra_hidden if os.path.isdir(h)}
                           | {os.path.realpath(p) for p in private if os.path.lexists(p)})
        readable = [os.path.realpath(path) for path in readable if os.path.exists(path)]
        kept = [package, own, *readable]
        chains = frozenset(a for h in hidden for a in _ancestors(h))  # folders above a hidden one
        tunnels = {a for k in kept for a in [k, *_ancestors(k)] if _inside(a, hidden)} - set(kept)  # hidden, on the way to a kept one
        writes = FS_WRITE_FILE | FS_CHANGES | (FS_REFER if self.abi >= 2 else 0) | (FS_TRUNCATE if self.abi >= 3 else 0)
        job_rules = _opened([(package, FS_READ_FILE), (workdir, writes | FS_READ_FILE), (os.devnull, writes | FS_READ_FILE),
                             *((path, FS_READ_FILE) for path in readable)])
        rules = self._beside(tuple(sorted(chains - tunnels)), hidden, chains) + job_rules
        return {"handled": writes | (FS_READ_FILE if hidden else 0), "rules": rules, "job_fds": [fd for fd, _ in job_rules]}

    def _beside(self, folders: tuple[str, ...], hidden: frozenset[str], chains: frozenset[str]) -> list[tuple[int, int]]:
        """A read rule (opened) for every entry of folders that is neither hidden nor above a hidden one (links left out);
        listed again when a folder's modification time changed since the last listing."""
        times = []
        for folder in folders:
            try:
                times.append(os.stat(folder).st_mtime_ns)
            except OSError:
                times.append(-1)
        key = (folders, hidden)
        if key in self.listings and self.listings[key][0] == times:
            return self.listings[key][1]
        paths = []
        for folder in folders:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            paths += [(entry.path, FS_READ_FILE) for entry in entries
                      if not (_inside(entry.path, hidden) or entry.path in chains or entry.is_symlink())]
        for _, opened in self.listings.values():
            for fd, _ in opened:
                os.close(fd)
        self.listings = {key: (times, _opened(paths))}  # one class folder at a time: the last plan's listing is kept
        return self.listings[key][1]

    def restrict(self, plan: dict | None) -> bool:
        """The child's part: apply plan to this process for good, closing the rules' descriptors; False where that is not
        possible."""
        if plan is None:
            return False
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        try:
            handled = ctypes.c_uint64(plan["handled"])
            ruleset = libc.syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(handled), ctypes.c_size_t(8), ctypes.c_uint32(0))
            if ruleset < 0:
                return False
            rule, add_rule, flags = _Beneath(0, -1), libc.syscall, ctypes.c_uint32(0)
            pointer = ctypes.byref(rule)
            try:
                for fd, rights in plan["rules"]:
                    rule.allowed_access, rule.parent_fd = rights, fd
                    add_rule(LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, pointer, flags)
                if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                    return False
                return libc.syscall(LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) == 0
            finally:
                os.close(ruleset)
        finally:
            for fd, _ in plan["rules"]:
                os.close(fd)


def _opened(rules: list[tuple[str, int]]) -> list[tuple[int, int]]:
    """(O_PATH descriptor, rights) of each (path, rights) that can be opened, a file's rights cut to those a file takes."""
    opened = []
    for path, rights in rules:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue  # gone since it was listed: no rule, so less access, never more
        if rights & ~FILE_RIGHTS and not os.path.isdir(path):
            rights &= FILE_RIGHTS
        opened.append((fd, rights))
    return opened


def _inside(path: str, folders: frozenset[str]) -> bool:
    """True when path is one of folders or below one."""
    return any(path == folder or path.startswith(folder + os.sep) for folder in folders)


# seccomp, by architecture (AUDIT_ARCH value, x32 bit or None, {name: number}): the syscalls a child may never make (a
# new process or program, a socket, io_uring (whose operations seccomp does not see), mounts and namespaces, another
# process's memory or descriptors, the kernel's keyrings, BPF, perf), those checked by argument (signals: only the child
# itself or its own group; clone: threads only; mknod: no device; fcntl and ioctl: the commands below) and clone3,
# which gets ENOSYS so that the C library falls back to clone, whose flags a filter can read.
SECCOMP_ARCHES = {
    "x86_64": (0xC000003E, 0x40000000, {
        "kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "pidfd_open": 434,
        "pidfd_send_signal": 424, "pidfd_getfd": 438, "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
        "fcntl": 72, "ioctl": 16, "clone": 56, "clone3": 435, "fork": 57, "vfork": 58, "execve": 59, "execveat": 322,
        "socket": 41, "socketpair": 53, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "mknod": 133, "mknodat": 259, "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155,
        "chroot": 161, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsmount": 432, "open_by_handle_at": 304,
        "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "keyctl": 250, "add_key": 248, "request_key": 249}),
    "aarch64": (0xC00000B7, None, {
        "kill": 129, "tkill": 130, "tgkill": 131, "rt_sigqueueinfo": 138, "rt_tgsigqueueinfo": 240, "pidfd_open": 434,
        "pidfd_send_signal": 424, "pidfd_getfd": 438, "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
        "fcntl": 25, "ioctl": 29, "clone": 220, "clone3": 435, "execve": 221, "execveat": 281,
        "socket": 198, "socketpair": 199, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "mknodat": 33, "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41,
        "chroot": 51, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsmount": 432, "open_by_handle_at": 265,
        "bpf": 280, "perf_event_open": 241, "userfaultfd": 282, "keyctl": 219, "add_key": 217, "request_key": 218}),
}
SIGNAL_SYSCALLS = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")
# fcntl and ioctl commands refused: those that make the kernel signal a chosen process later (SIGIO to an owner: F_SETOWN,
# F_SETSIG, F_SETOWN_EX; FIOSETOWN, SIOCSPGRP, TIOCSPGRP), that push input into a terminal (TIOCSTI, TIOCLINUX) and that
# set an inode's flags (FS_IOC_SETFLAGS and its 32-bit form, FS_IOC_FSSETXATTR: chattr +i).
OWNER_COMMANDS = {"fcntl": (8, 10, 15), "ioctl": (0x8901, 0x8902, 0x5410, 0x5412, 0x541C, 0x40086602, 0x40046602, 0x401C5820)}
# By argument: (syscall, offset of the argument's low 32 bits in struct seccomp_data, mask, values refused after masking).
DEVICE_TYPES = (0o020000, 0o060000)  # S_IFCHR, S_IFBLK: mknod of a FIFO or a plain file stays allowed
CHECKED_MODES = (("mknod", 24, 0o170000, DEVICE_TYPES), ("mknodat", 32, 0o170000, DEVICE_TYPES))
CLONE_THREAD, ENOSYS, EACCES = 0x00010000, 38, 13
# No socket is ever made, but these fail with EACCES instead of killing the child: the C library itself tries a Unix socket
# (the name-service cache) when torch looks up the user's name, and falls back to the files when that fails.
REFUSED_CALLS = ("socket", "socketpair")
PR_SET_SECCOMP, SECCOMP_MODE_FILTER, SECCOMP_RET_ALLOW, SECCOMP_RET_KILL = 22, 2, 0x7FFF0000, 0x80000000  # kill: SIGSYS, reported
SECCOMP_RET_ERRNO = 0x00050000


def _seccomp_program() -> list[tuple[int, int, int, int | str]] | None:
    """The zygote's part of the seccomp filter: its BPF instructions (code, jt, jf, k), k "me" or "-me" where the child's
    pid goes; None where this architecture is not known here. A syscall of another architecture (x86_64's int 0x80, x32)
    kills the child: its numbers are not the ones checked here."""
    import platform

    if platform.machine() not in SECCOMP_ARCHES:
        return None
    arch, x32, numbers = SECCOMP_ARCHES[platform.machine()]
    checked = {*SIGNAL_SYSCALLS, *OWNER_COMMANDS, *REFUSED_CALLS, "clone", "clone3", *(name for name, *_ in CHECKED_MODES)}
    program: list[tuple] = [("ld", 4), ("jeq", arch, None, "deny"), ("ld", 0)]
    if x32 is not None:
        program.append(("jge", x32, "deny", None))
    program += [("jeq", number, "deny", None) for name, number in numbers.items() if name not in checked]
    program += [("jeq", numbers[name], "target", None) for name in SIGNAL_SYSCALLS]
    program += [("jeq", numbers[name], "command", None) for name in OWNER_COMMANDS]
    program += [("jeq", numbers["clone3"], "nosys", None), ("jeq", numbers["clone"], "clone", None)]
    program += [("jeq", numbers[name], "refused", None) for name in REFUSED_CALLS if name in numbers]
    program += [("jeq", numbers[name], f"mode-{name}", None) for name, *_ in CHECKED_MODES if name in numbers]
    program += [("label", "allow"), ("ret", SECCOMP_RET_ALLOW), ("label", "command"), ("ld", 24)]
    program += [("jeq", command, "deny", None) for commands in OWNER_COMMANDS.values() for command in commands]
    program += [("ret", SECCOMP_RET_ALLOW), ("label", "nosys"), ("ret", SECCOMP_RET_ERRNO | ENOSYS)]
    program += [("label", "refused"), ("ret", SECCOMP_RET_ERRNO | EACCES)]
    program += [("label", "clone"), ("ld", 16), ("jset", CLONE_THREAD, "thread", "deny"), ("label", "thread"), ("ret", SECCOMP_RET_ALLOW)]
    for name, offset, mask, refused in CHECKED_MODES:
        if name in numbers:
            program += [("label", f"mode-{name}"), ("ld", offset), ("and", mask)]
            program += [("jeq", value, "deny", None) for value in refused] + [("ret", SECCOMP_RET_ALLOW)]
    program += [("label", "target"), ("ld", 16)]
    program += [("jeq", value, "mine", None) for value in ("me", 0, "-me")]  # itself, its group, its group by -pgid
    program += [("label", "deny"), ("ret", SECCOMP_RET_KILL), ("label", "mine"), ("ret", SECCOMP_RET_ALLOW)]  # BPF jumps forward only
    labels, index = {}, 0
    for instruction in program:
        if instruction[0] == "label":
            labels[instruction[1]] = index
        else:
            index += 1
    codes = {"ld": 0x20, "jeq": 0x15, "jge": 0x35, "jset": 0x45, "and": 0x54, "ret": 0x06}
    filters, position = [], 0
    for instruction in program:
        if instruction[0] == "label":
            continue
        position += 1
        kind, k, *targets = instruction
        jumps = [0 if target is None else labels[target] - position for target in targets] or [0, 0]
        if not all(0 <= jump < 256 for jump in jumps):
            raise ValueError("a seccomp jump is out of range: the filter is too long")
        filters.append((codes[kind], jumps[0], jumps[1], k))
    return filters


def _seccomp(program: list[tuple[int, int, int, int | str]] | None) -> bool:
    """The child's part: a seccomp filter, kernel-enforced even for C code and fresh copies of os: no signal to any process
    but the child's own (or its group's), no pidfd, ptrace or process_vm_writev, no signal owner set on a file (SIGIO).
    False where program is None (an unknown architecture)."""
    if program is None:
        return False
    me = os.getpid()
    pids = {"me": me, "-me": -me & 0xFFFFFFFF}
    filters = ctypes.create_string_buffer(b"".join(_BPF.pack(code, jt, jf, pids[k] if type(k) is str else k) for code, jt, jf, k in program))
    fprog = ctypes.create_string_buffer(_FPROG.pack(len(program), ctypes.addressof(filters)))  # struct sock_fprog
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog, 0, 0) == 0


_BPF, _FPROG = struct.Struct("=HBBI"), struct.Struct("@HP")  # struct sock_filter; struct sock_fprog (length, pointer)
_SECCOMP_PROGRAM = _seccomp_program()


def _ancestors(path: str) -> list[str]:
    """Every folder above path, up to /."""
    found = []
    while os.path.dirname(path) != path:
        path = os.path.dirname(path)
        found.append(path)
    return found


def _reachable(path: str) -> bool:
    """True when a user with no privilege may read path (a folder: list it) and every folder above it lets them pass."""
    try:
        info = os.stat(path)
        if not info.st_mode & (0o005 if os.path.isdir(path) else 0o004):
            return False
        return all(os.stat(folder).st_mode & 0o001 for folder in _ancestors(path))
    except OSError:
        return False


_PYTHON_REACHABLE = None  # whether Python's own folders can be read without privilege (computed once, in the zygote)
# What root alone may read, hidden (Landlock) from a child that keeps the right to read as root does; Python's folders,
# the package and these devices stay readable inside them.
PRIVATE = ("/root", "/home", "/dev", "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh", "/var", "/run",
           "/boot", "/srv", "/mnt", "/media")
PRIVATE_READABLE = ("/dev/zero", "/dev/urandom", "/dev/random", "/dev/full")


@functools.cache
def _python_folders() -> tuple[str, ...]:
    """The folders Python and torch import from (the standard library, the site-packages, torch's own), listed once."""
    return tuple(sorted({os.path.realpath(p) for p in [sys.prefix, sys.base_prefix, os.path.dirname(torch.__file__), *sys.path]
                         if p and os.path.isdir(p)}))


def _needs_read_privilege(package_dir: str, workdir: str) -> bool:
    """True when a child dropped to an unprivileged user could not import what it needs: Python's folders or the
    student's package sit below a folder only root may enter (a pyenv in /root, a grader's private scratch folder)."""
    global _PYTHON_REACHABLE
    if _PYTHON_REACHABLE is None:
        _PYTHON_REACHABLE = all(_reachable(root) for root in _python_folders())
    return not (_PYTHON_REACHABLE and _reachable(os.path.dirname(workdir))
                and all(_reachable(os.path.join(package_dir, name)) for name in [".", *os.listdir(package_dir)]))


def _drop_privileges(job: dict) -> bool:
    """Under root: become user and group CHILD_IDS + pid, with no supplementary group and no capability (but
    CAP_DAC_READ_SEARCH when job["read_privilege"]: reading and listing, which Landlock still confines, so that Python
    and the package stay importable from folders only root may enter), after giving the child its folder. False when not
    root (nothing to drop)."""
    if os.geteuid() != 0:
        return False
    import platform

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
    resource.setrlimit(resource.RLIMIT_NPROC, (CHILD_THREADS, CHILD_THREADS))  # counted per user: here its own id, so its threads
    os.setgroups([])
    os.setresgid(ids, ids, ids)
    os.setresuid(ids, ids, ids)  # clears every capability (all of them, unless kept above)
    if keep:
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        data = (ctypes.c_uint32 * 6)(keep, keep, 0, 0, 0, 0)  # effective, permitted, inheritable; then the upper 32 bits
        libc.syscall.restype = ctypes.c_long
        if libc.syscall(CAPSET[platform.machine()], header, data) != 0:
            raise OSError(ctypes.get_errno(), "capset failed")
    if os.getuid() == 0 or os.geteuid() == 0:
        raise PermissionError("the child is still root")
    return True


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


def _run_child(job: dict) -> None:
    """Body of a forked child: limits, Landlock and seccomp, then the shared loop (child/serve.py): guards, import of the
    student's module, requests answered until told to stop."""
    _LANDLOCK.restrict(job["landlock"])  # first: it closes the zygote's descriptors of its rules, so the channel's are the lowest
    requests = os.open(job["requests"], os.O_RDONLY | os.O_NONBLOCK)  # never waits for a grader that has already gone
    answers = os.open(job["answers"], os.O_WRONLY | os.O_NONBLOCK)  # ENXIO when the grader closed it: this child just ends
    os.set_blocking(requests, True)
    os.set_blocking(answers, True)
    _limit(job)
    torch.set_num_threads(1)
    torch.default_generator.manual_seed(0)  # torch.manual_seed would also queue CUDA's seeding (the zygote did, once): 3 ms
    _drop_privileges(job)
    _die_with_zygote(job["zygote"])  # after the drop, which clears a parent-death signal
    _seccomp(_SECCOMP_PROGRAM)
    _child.serve.run(requests, answers, job["package"], job["module"], job["workdir"], job["hidden"], job["own_modules"])


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
        except BaseException:  # noqa: B036 - nothing may escape the child
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
    """Kill the ended child's process group, then kill and reap every process re-parented to the zygote that is not one of
    its running children, until none is left however deep the tree was; count them. (Where seccomp works, a child starts no
    process at all.)"""
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


def _preload(modules: list[str]) -> None:
    """Import modules here, once, so that every later child finds them imported (torch imports some lazily, at a cost)."""
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as error:  # noqa: BLE001 - a module this torch build lacks: each child imports what it can itself
            print(f"preloading {name} failed: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
    gc.freeze()


MADV_COLLAPSE, HUGE_PAGE = 25, 1 << 21


def _collapse_memory() -> None:
    """Back the zygote's heap and anonymous memory (torch's and Python's objects, 150 to 220 MB) with huge pages where the
    kernel can (MADV_COLLAPSE, Linux 6.1): a fork then copies one page-table entry per 2 MiB instead of 512, and a child's
    exit frees as few, about 15 ms less CPU per question; a child that writes to such a page still copies only 4 KiB of
    it. Where the kernel cannot (older, or huge pages off), nothing changes."""
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
            continue  # only the heap and private anonymous memory: never a file's, a stack, shared memory or a guard page
        low, high = (int(bound, 16) for bound in fields[0].split("-"))
        low, high = (low + HUGE_PAGE - 1) & -HUGE_PAGE, high & -HUGE_PAGE
        if high > low:
            libc.madvise(low, high - low, MADV_COLLAPSE)  # refused (EINVAL) by a kernel without it: that range stays as it was


_LANDLOCK = _Landlock()


def serve() -> None:
    """Zygote loop: fork a child per job line (or import the modules of a preload line), report each child's pid and exit."""
    # Listed once: a child that walked sys.modules would copy the pages of its ~2,000 keys (5 ms).
    own_modules = [name for name in sys.modules if name in ("_child", "_codec") or name.startswith("_child.")]
    torch.manual_seed(0)  # queues CUDA's seeding once; each child reseeds only the CPU generator
    _become_subreaper()
    gc.freeze()  # the objects the zygote made stay out of every collection: a child's collector never touches (copies) their pages
    _say({"ready": True})
    children: dict[int, tuple[object, int]] = {}  # pidfd -> (job id, pid)
    stdin, pending, open_input = sys.stdin.fileno(), b"", True
    forked, collapsed = 0, False  # children forked; whether the memory was collapsed since the last preload
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
                        collapsed = False
                        continue
                    if forked and not collapsed:  # from the second child on: a single `check 3` never waits for it
                        _collapse_memory()
                        collapsed = True
                    job["close_fds"] = list(children)
                    job["own_modules"] = own_modules
                    job["hidden"] = [os.path.dirname(job["workdir"]), *job.get("hidden", [])]  # the sandbox's folder: the other children's channels
                    job["read_privilege"] = os.geteuid() == 0 and _needs_read_privilege(job["package"], job["workdir"])
                    private = (PRIVATE, (*_python_folders(), *PRIVATE_READABLE)) if job["read_privilege"] else ((), ())
                    job["landlock"] = _LANDLOCK.plan(job["workdir"], job["package"], job["hidden"], *private)
                    pid = _fork(job)
                    forked += 1
                    for fd in job["landlock"]["job_fds"] if job["landlock"] else ():
                        os.close(fd)
                    children[os.pidfd_open(pid)] = (job["id"], pid)
                    _say({"id": job["id"], "pid": pid})
            else:
                job_id, pid = children.pop(fd)
                os.close(fd)
                _, status = os.waitpid(pid, 0)
                orphans = _reap_orphans(pid, {child for _, child in children.values()})  # what it started must not outlive it
                _say({"id": job_id, "exit": os.waitstatus_to_exitcode(status), "orphans": orphans})


if __name__ == "__main__":
    serve()
