"""Linux's kernel walls around a child, for both backends: Landlock (files) and seccomp (system calls).

Loaded by path (boot.py's load_walls, as `_walls`) by each backend's worker; the grader imports it only to ask which
walls this machine can put up (missing). Both are
kernel-enforced, C code (torch.save, torch.from_file) and fresh copies of the os module included, where the audit hook
sees only Python's own calls. Where the kernel or the C library lacks them (macOS, Windows, an old or stripped Linux),
`Landlock().abi` is 0 and `seccomp` answers False: the child keeps the audit hook alone. The Linux backend's zygote
plans Landlock's rules before each fork and its child applies them; a portable child plans and applies its own.
"""
import ctypes
import functools
import os
import platform
import stat
import struct
import sys

try:
    from _child.guard import HIDDEN_FOLDERS, KIT_ROOT
except ImportError:  # imported by the grader (sandbox.missing_walls), which only asks what the kernel offers
    from .child.guard import HIDDEN_FOLDERS, KIT_ROOT

# Bound here, before any student code runs: a patched builtin never reaches the walls.
from builtins import any, len  # noqa: E402, A004

PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE = 38, 4

# Linux Landlock: syscall numbers (the same on every architecture) and the file-system access rights used here.
LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF, LANDLOCK_RULE_PATH_BENEATH = 444, 445, 446, 1
FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR, FS_TRUNCATE, FS_REFER = 1 << 1, 1 << 2, 1 << 3, 1 << 14, 1 << 13
FS_CHANGES = sum(1 << bit for bit in range(4, 13))  # remove dir/file, make char/dir/reg/sock/fifo/block/sym
READS = FS_READ_FILE | FS_READ_DIR  # reading a file, listing a folder: granted together, never one without the other
FILE_RIGHTS = FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE  # the rights a rule on a file (not a folder) may carry
# Readable by every child besides Python's folders, the kit, the package and its own folder: the system's libraries and
# data, the kernel's views of the processes and the machine (/proc: another process's secrets are the ptrace check's),
# and the harmless devices. Nothing else: not /tmp (other sandboxes, stand-in copies, scratch files), /root, /home,
# /opt, /srv, /var.
SYSTEM_READABLE = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev/null",
                   "/dev/zero", "/dev/urandom", "/dev/random", "/dev/full")


def _linux_libc() -> ctypes.CDLL | None:
    """The C library where it has Linux's prctl and syscall; None elsewhere (macOS has a syscall with other numbers)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if not (callable(libc.prctl) and callable(libc.syscall)):
            return None
    except (AttributeError, OSError, TypeError):  # no such symbol, or no C library to load by None (Windows)
        return None
    libc.syscall.restype = ctypes.c_long
    return libc


class _Beneath(ctypes.Structure):
    """struct landlock_path_beneath_attr."""

    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class Landlock:
    """Linux Landlock, kernel-enforced even for C code (torch.save, torch.from_file): a child writes only in its
    folder and reads (files, and folders' listings) only what it needs.

    Readable: Python's folders (python_folders), the kit's autograder/ but its suites (kit_unneeded: no other entry of
    the kit's folder, unless it holds the package or a Python folder), the
    system's libraries and data (SYSTEM_READABLE) but what only root may read there (root_only), the package and the
    child's folder; nothing else, so a child that keeps root's right to read (CAP_DAC_READ_SEARCH, where Python sits
    under /root) reads no other root-only file. Hidden: the kit's oracle, solutions, suites, .git, tests and every
    other entry of its folder but autograder/, plus the job's
    extra folders (the sandbox's folder, where the other children's channels are, and the folders holding other
    students' packages), except the package and the child's folder themselves. Landlock only grants, so every other
    entry of each readable folder above a hidden one gets its own read rule. The zygote plans the rules before each
    fork and opens their paths, listing those folders again only when one of them changed; the child only adds the
    opened rules (a few microseconds each, where opening them costs ten)."""

    def __init__(self) -> None:
        """Ask the kernel which Landlock version it has, 0 for none (no C handle is kept: a child's student code could
        reach it)."""
        libc = _linux_libc()
        self.abi = (
            0
            if libc is None
            else max(0, libc.syscall(LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1)))
        )
        # (folders, hidden) -> (their mtimes, opened rules)
        self.listings: dict[tuple, tuple[list[int], list[tuple[int, int]]]] = {}

    def plan(self, workdir: str, package_dir: str, extra_hidden: list[str]) -> dict | None:
        """The zygote's part: {"handled": rights, "rules": [(fd, rights)], "job_fds": [...]} for a child, None without
        Landlock. The rules' folders are opened here (O_PATH): the child only adds them; the zygote closes job_fds after
        the fork, the listing's own once it changes."""
        if self.abi < 1:
            return None  # no Landlock in this kernel: the Guard alone watches Python's own file access
        root = os.path.realpath(KIT_ROOT)
        package, own = os.path.realpath(package_dir), os.path.realpath(workdir)
        kept = (package, own, *python_folders())  # never hidden, nor any folder holding one
        kit_hidden = {
            h
            for h in (os.path.realpath(os.path.join(root, name)) for name in [*HIDDEN_FOLDERS, *kit_unneeded(root)])
            if os.path.exists(h) and not any(k == h or k.startswith(h + os.sep) for k in kept)
        }
        hidden = frozenset(kit_hidden | {os.path.realpath(h) for h in extra_hidden if os.path.isdir(h)} | root_only())
        readable = frozenset(
            os.path.realpath(path) for path in (root, *SYSTEM_READABLE, *python_folders()) if os.path.exists(path)
        )
        # readable folders above a hidden one
        chains = frozenset(a for h in hidden for a in ancestors(h) if _inside(a, readable))
        kept = [package, own]
        # hidden, on the way to a kept one
        tunnels = {a for k in kept for a in [k, *ancestors(k)] if _inside(a, hidden)} - set(kept)
        writes = FS_WRITE_FILE | FS_CHANGES | (FS_REFER if self.abi >= 2 else 0) | (FS_TRUNCATE if self.abi >= 3 else 0)
        whole = [(path, READS) for path in sorted(readable) if path not in chains and not _inside(path, hidden)]
        job_rules = _opened([(package, READS), (workdir, writes | READS), (os.devnull, writes | FS_READ_FILE)])
        rules = self._beside(tuple(sorted(chains - tunnels)), hidden, chains, tuple(whole)) + job_rules
        return {"handled": writes | READS, "rules": rules, "job_fds": [fd for fd, _ in job_rules]}

    def _beside(
        self,
        folders: tuple[str, ...],
        hidden: frozenset[str],
        chains: frozenset[str],
        whole: tuple[tuple[str, int], ...],
    ) -> list[tuple[int, int]]:
        """The read rules (opened) of the readable folders that hold nothing hidden (whole) and of every entry of
        folders that is neither hidden nor above a hidden one (links left out); listed again when a folder's
        modification time changed since the last listing."""
        times = []
        for folder in folders:
            try:
                times.append(os.stat(folder).st_mtime_ns)
            except OSError:
                times.append(-1)
        key = (folders, hidden, whole)
        if key in self.listings and self.listings[key][0] == times:
            return self.listings[key][1]
        paths = list(whole)
        for folder in folders:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            paths += [
                (entry.path, READS)
                for entry in entries
                if not (_inside(entry.path, hidden) or entry.path in chains or entry.is_symlink())
            ]
        for _, opened in self.listings.values():
            for fd, _ in opened:
                os.close(fd)
        self.listings = {key: (times, _opened(paths))}  # one class folder at a time: the last plan's listing is kept
        return self.listings[key][1]

    def restrict(self, plan: dict | None) -> bool:
        """The child's part: apply plan to this process for good, closing the rules' descriptors; False where that is
        not possible."""
        if plan is None:
            return False
        libc = _linux_libc()
        try:
            handled = ctypes.c_uint64(plan["handled"])
            ruleset = libc.syscall(
                LANDLOCK_CREATE_RULESET, ctypes.byref(handled), ctypes.c_size_t(8), ctypes.c_uint32(0)
            )
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


# The only entry of the kit's folder a child reads: its own side (boot.py, child/, codec.py, walls.py) and the messages.
KIT_NEEDED = ("autograder",)


def kit_unneeded(root: str) -> list[str]:
    """The entries of the kit's folder a child does not need, hidden from it like the kit's hidden folders: all but
    KIT_NEEDED. A checkout of the kit holds the tests, whose corpus has right answers to every question (a child that
    ran one got full marks: tests/attacks/cross_read_kit_corpus.py), a zip built there (a Gradescope zip carries the
    suites and the course secret), and whatever the instructor keeps beside the kit (a release, a course folder). None
    where the kit is installed in a site-packages, whose other entries are the packages the child imports."""
    if os.path.basename(root) in INSTALL_FOLDERS:  # an installed kit (pip install): its folder is Python's own
        return []
    try:
        return [name for name in os.listdir(root) if name not in KIT_NEEDED]
    except OSError:
        return []


INSTALL_FOLDERS = ("site-packages", "dist-packages")  # where pip, conda and Debian install packages


@functools.cache
def python_folders() -> tuple[str, ...]:
    """The folders Python and torch import from, listed once: the prefixes, torch's own folder, each site-packages on
    sys.path, and any other sys.path entry a module already loaded came from. Landlock opens a folder whole, so an entry
    nothing came from (a grading script's own folder, a broad PYTHONPATH such as the home folder) stays closed."""
    import torch  # called once torch is imported (the child's side): importing walls must not import it on the grader's

    folders: dict[str, str] = {}  # a module file's folder -> its real path: ~1,200 files share ~150 folders
    loaded = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            folder, name = os.path.split(path)
            if folder not in folders:
                folders[folder] = os.path.realpath(folder)
            # a file that is itself a link resolves on its own (realpath of each file: 50 ms before the first fork)
            loaded.append(os.path.realpath(path) if os.path.islink(path) else os.path.join(folders[folder], name))
    entries = {os.path.realpath(entry) for entry in sys.path if entry and os.path.isdir(entry)}
    used = {
        entry
        for entry in entries
        if os.path.basename(entry) in INSTALL_FOLDERS or any(path.startswith(entry + os.sep) for path in loaded)
    }
    return tuple(
        sorted(used | {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, os.path.dirname(torch.__file__))})
    )


@functools.cache
def root_only() -> frozenset[str]:
    """What only root may read below /etc (/etc/shadow, /etc/ssl/private, /etc/sudoers ...: no read right for others),
    found once: hidden from a child that keeps root's right to read, whatever the distribution puts there."""
    found = set()
    for folder, folders, files in os.walk(os.path.realpath("/etc")):
        for name in [*files, *folders]:
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            wanted = 0o005 if stat.S_ISDIR(info.st_mode) else 0o004
            if not stat.S_ISLNK(info.st_mode) and info.st_mode & wanted != wanted:
                found.add(path)
        folders[:] = [name for name in folders if os.path.join(folder, name) not in found]
    return frozenset(found)


def _opened(rules: list[tuple[str, int]]) -> list[tuple[int, int]]:
    """(O_PATH descriptor, rights) of each (path, rights) that can be opened, a file's rights cut to those a file
    takes."""
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


def ancestors(path: str) -> list[str]:
    """Every folder above path, up to /."""
    found = []
    while os.path.dirname(path) != path:
        path = os.path.dirname(path)
        found.append(path)
    return found


# seccomp, by architecture (AUDIT_ARCH value, x32 bit or None, {name: number}): the syscalls a child may never make (a
# new process or program, a socket, io_uring (whose operations seccomp does not see), mounts and namespaces, another
# process's memory or descriptors, the kernel's keyrings, BPF, perf, System V IPC (shared memory, semaphores, message
# queues) and POSIX message queues, kernel objects that outlive the process that made them), those checked by argument
# (signals: only the child itself or its own group; clone: threads only; mknod: no device; fcntl and ioctl: the commands
# below) and clone3, which gets ENOSYS so that the C library falls back to clone, whose flags a filter can read.
SECCOMP_ARCHES = {
    "x86_64": (
        0xC000003E,
        0x40000000,
        {
            "kill": 62,
            "tkill": 200,
            "tgkill": 234,
            "rt_sigqueueinfo": 129,
            "rt_tgsigqueueinfo": 297,
            "pidfd_open": 434,
            "pidfd_send_signal": 424,
            "pidfd_getfd": 438,
            "ptrace": 101,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "fcntl": 72,
            "ioctl": 16,
            "clone": 56,
            "clone3": 435,
            "fork": 57,
            "vfork": 58,
            "execve": 59,
            "execveat": 322,
            "socket": 41,
            "socketpair": 53,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "mknod": 133,
            "mknodat": 259,
            "unshare": 272,
            "setns": 308,
            "mount": 165,
            "umount2": 166,
            "pivot_root": 155,
            "chroot": 161,
            "open_tree": 428,
            "move_mount": 429,
            "fsopen": 430,
            "fsmount": 432,
            "open_by_handle_at": 304,
            "bpf": 321,
            "perf_event_open": 298,
            "userfaultfd": 323,
            "keyctl": 250,
            "add_key": 248,
            "request_key": 249,
            "shmget": 29,
            "shmat": 30,
            "shmctl": 31,
            "shmdt": 67,
            "semget": 64,
            "semop": 65,
            "semctl": 66,
            "semtimedop": 220,
            "msgget": 68,
            "msgsnd": 69,
            "msgrcv": 70,
            "msgctl": 71,
            "mq_open": 240,
            "mq_unlink": 241,
            "mq_timedsend": 242,
            "mq_timedreceive": 243,
            "mq_notify": 244,
            "mq_getsetattr": 245,
            "kcmp": 312,
            "process_madvise": 440,
            "process_mrelease": 448,
            "prlimit64": 302,
            "sched_setparam": 142,
            "sched_setscheduler": 144,
            "sched_setaffinity": 203,
            "sched_setattr": 314,
            "migrate_pages": 256,
            "move_pages": 279,
            "setpriority": 141,
            "ioprio_set": 251,
            "memfd_create": 319,
            "memfd_secret": 447,
            "inotify_init": 253,
            "inotify_init1": 294,
            "fanotify_init": 300,
            "chmod": 90,
            "fchmod": 91,
            "fchmodat": 268,
            "fchmodat2": 452,
            "chown": 92,
            "fchown": 93,
            "lchown": 94,
            "fchownat": 260,
            "setxattr": 188,
            "lsetxattr": 189,
            "fsetxattr": 190,
            "removexattr": 197,
            "lremovexattr": 198,
            "fremovexattr": 199,
            "setxattrat": 463,
            "removexattrat": 466,
            "utime": 132,
            "utimes": 235,
            "futimesat": 261,
            "utimensat": 280,
            "fallocate": 285,
            "io_setup": 206,
            "prctl": 157,
        },
    ),
    "aarch64": (
        0xC00000B7,
        None,
        {
            "kill": 129,
            "tkill": 130,
            "tgkill": 131,
            "rt_sigqueueinfo": 138,
            "rt_tgsigqueueinfo": 240,
            "pidfd_open": 434,
            "pidfd_send_signal": 424,
            "pidfd_getfd": 438,
            "ptrace": 117,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "fcntl": 25,
            "ioctl": 29,
            "clone": 220,
            "clone3": 435,
            "execve": 221,
            "execveat": 281,
            "socket": 198,
            "socketpair": 199,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "mknodat": 33,
            "unshare": 97,
            "setns": 268,
            "mount": 40,
            "umount2": 39,
            "pivot_root": 41,
            "chroot": 51,
            "open_tree": 428,
            "move_mount": 429,
            "fsopen": 430,
            "fsmount": 432,
            "open_by_handle_at": 265,
            "bpf": 280,
            "perf_event_open": 241,
            "userfaultfd": 282,
            "keyctl": 219,
            "add_key": 217,
            "request_key": 218,
            "shmget": 194,
            "shmat": 196,
            "shmctl": 195,
            "shmdt": 197,
            "semget": 190,
            "semop": 193,
            "semctl": 191,
            "semtimedop": 192,
            "msgget": 186,
            "msgsnd": 189,
            "msgrcv": 188,
            "msgctl": 187,
            "mq_open": 180,
            "mq_unlink": 181,
            "mq_timedsend": 182,
            "mq_timedreceive": 183,
            "mq_notify": 184,
            "mq_getsetattr": 185,
            "kcmp": 272,
            "process_madvise": 440,
            "process_mrelease": 448,
            "prlimit64": 261,
            "sched_setparam": 118,
            "sched_setscheduler": 119,
            "sched_setaffinity": 122,
            "sched_setattr": 274,
            "migrate_pages": 238,
            "move_pages": 239,
            "setpriority": 140,
            "ioprio_set": 30,
            "memfd_create": 279,
            "memfd_secret": 447,
            "inotify_init1": 26,
            "fanotify_init": 262,
            "fchmod": 52,
            "fchmodat": 53,
            "fchmodat2": 452,
            "fchownat": 54,
            "fchown": 55,
            "setxattr": 5,
            "lsetxattr": 6,
            "fsetxattr": 7,
            "removexattr": 14,
            "lremovexattr": 15,
            "fremovexattr": 16,
            "setxattrat": 463,
            "removexattrat": 466,
            "utimensat": 88,
            "fallocate": 47,
            "io_setup": 0,
            "prctl": 167,
        },
    ),
}
SIGNAL_SYSCALLS = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")
# Calls that change a process's limits, priority, scheduling, CPUs or memory placement: allowed on the child itself only
# (a pid of 0, or its own), EPERM for any other process. Without them a child running under the grader's own user (an
# instructor who is not root) could lower the zygote's or the grader's limits and zero every classmate graded after it.
# PID_FIRST: the pid is the first argument; WHICH_WHO: (which, who), allowed only for which = one process (PRIO_PROCESS
# 0, IOPRIO_WHO_PROCESS 1), never a process group or a user (who 0 there is the caller's whole group or user).
PID_FIRST = (
    "prlimit64",
    "sched_setparam",
    "sched_setscheduler",
    "sched_setaffinity",
    "sched_setattr",
    "migrate_pages",
    "move_pages",
)
WHICH_WHO = (("setpriority", 0), ("ioprio_set", 1))
# fcntl and ioctl commands refused: those that make the kernel signal a chosen process later (SIGIO to an owner:
# F_SETOWN, F_SETSIG, F_SETOWN_EX; FIOSETOWN, SIOCSPGRP, TIOCSPGRP), that make other processes wait on a file
# (F_SETLEASE: the kernel allows a lease on a file its caller owns, which under an ordinary user is every file of the
# instructor's, the kit's and Python's among them; while the child lives, any other process's open of that file, even
# root's and even for reading, waits for up to the kernel's lease-break-time, 45 s, a file at a time), that push input
# into a terminal (TIOCSTI, TIOCLINUX) and that set an inode's flags (FS_IOC_SETFLAGS and its 32-bit form,
# FS_IOC_FSSETXATTR: chattr +i).
OWNER_COMMANDS = {
    "fcntl": (8, 10, 15, 1024),
    "ioctl": (0x8901, 0x8902, 0x5410, 0x5412, 0x541C, 0x40086602, 0x40046602, 0x401C5820),
}
# fcntl(fd, F_SETPIPE_SZ, size) past a pipe's default size (16 pages of 4 KiB) fails with EPERM, the kernel's own answer
# to an unprivileged process asking past its bounds. A user's pipes share fs.pipe-user-pages-soft (16,384 pages):
# past it every new pipe of that user, the grader's and a classmate's, gets a buffer of one or two pages, and 64 pipes
# of 1 MiB reach it. A size up to the default never grows a pipe, so code that sets one (shrinking a pipe, or setting
# the default) keeps working; Python and torch set none. Both halves of the argument are read: a kernel that reads
# it as a long gets no size above the default either.
F_SETPIPE_SZ, PIPE_DEFAULT_BYTES = 1031, 65536
# prctl options refused (EPERM): PR_SET_DUMPABLE. A child that is not dumpable hides its /proc/<pid>/fd from a grader
# run by an ordinary user (its held files would escape the disk check); the backends set it before the filter.
REFUSED_PRCTL = (PR_SET_DUMPABLE,)
# By argument: (syscall, offset of the argument's low 32 bits in struct seccomp_data, mask, values refused after
# masking).
DEVICE_TYPES = (0o020000, 0o060000)  # S_IFCHR, S_IFBLK: mknod of a FIFO or a plain file stays allowed
CHECKED_MODES = (("mknod", 24, 0o170000, DEVICE_TYPES), ("mknodat", 32, 0o170000, DEVICE_TYPES))
CLONE_THREAD, ENOSYS, EACCES, EPERM, EOPNOTSUPP = 0x00010000, 38, 13, 1, 95
# Refused with EPERM, as a process that does not own the file is refused: memory files (memfd_create, memfd_secret:
# their pages count in no address-space limit, so files of the output limit by the thousand would take the machine's
# memory past the question's memory limit) and a file's metadata (its mode, owner, extended attributes and times), which
# Landlock does not guard: under an ordinary user the child owns what the instructor owns, and would otherwise make a
# classmate's files or the kit's suites unreadable by their path (mode 000), or change their times.
# Also the objects counted per user, whatever the process (fs.inotify.max_user_instances, 128 by default;
# fs.fanotify.max_user_groups): under an ordinary user a child would take them all, and a classmate's or the
# instructor's next inotify_init would fail while it runs. Neither torch nor Python's own code makes one.
REFUSED_NOT_PERMITTED = (
    "memfd_create",
    "memfd_secret",
    "inotify_init",
    "inotify_init1",
    "fanotify_init",
    "chmod",
    "fchmod",
    "fchmodat",
    "fchmodat2",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
    "setxattrat",
    "removexattrat",
    "utime",
    "utimes",
    "futimesat",
    "utimensat",
)
# No socket is ever made, but these fail with EACCES instead of killing the child: the C library itself tries a Unix
# socket (the name-service cache) when torch looks up the user's name, and falls back to the files when that fails.
REFUSED_CALLS = ("socket", "socketpair")
# Answered EOPNOTSUPP, as a file system without it answers: fallocate, which takes a file's blocks on disk without
# writing them, gigabytes a second (4 GiB in 0.15 s measured on ext4), and with FALLOC_FL_KEEP_SIZE past the output
# limit (RLIMIT_FSIZE looks at a file's size, which that mode leaves at 0): between two looks of the grader at a child's
# folder (POLL_SECONDS) a question's disk limit was the machine's whole disk. The C library's posix_fallocate then
# writes the blocks itself, under the output limit and at the speed of writing; torch and Python's own code call
# neither.
REFUSED_UNSUPPORTED = ("fallocate",)
# Answered ENOSYS, as a kernel without it answers: io_setup, whose contexts draw on one count for the whole machine
# (fs.aio-max-nr, 65,536 events), not per user or process: 16 calls of a child with 4,096 events each took it all, and
# every other process of the machine, any user's (a database's), got EAGAIN from io_setup while the child lived. Callers
# of Linux's native AIO fall back to threads; Python and torch make none.
REFUSED_NOT_IMPLEMENTED = ("io_setup",)
# kill: SIGSYS, reported
PR_SET_SECCOMP, SECCOMP_MODE_FILTER, SECCOMP_RET_ALLOW, SECCOMP_RET_KILL = 22, 2, 0x7FFF0000, 0x80000000
SECCOMP_RET_ERRNO = 0x00050000


def seccomp_program() -> list[tuple[int, int, int, int | str]] | None:
    """The zygote's part of the seccomp filter: its BPF instructions (code, jt, jf, k), k "me" or "-me" where the
    child's pid goes; None where this architecture is not known here. A syscall of another architecture (x86_64's
    int 0x80, x32) kills the child: its numbers are not the ones checked here."""
    if platform.machine() not in SECCOMP_ARCHES:
        return None
    arch, x32, numbers = SECCOMP_ARCHES[platform.machine()]
    checked = {
        *SIGNAL_SYSCALLS,
        *OWNER_COMMANDS,
        *REFUSED_CALLS,
        *REFUSED_UNSUPPORTED,
        *REFUSED_NOT_IMPLEMENTED,
        *REFUSED_NOT_PERMITTED,
        "clone",
        "clone3",
        *(name for name, *_ in CHECKED_MODES),
        *PID_FIRST,
        *(name for name, _ in WHICH_WHO),
        "prctl",
    }
    program: list[tuple] = [("ld", 4), ("jeq", arch, None, "deny"), ("ld", 0)]
    if x32 is not None:
        program.append(("jge", x32, "deny", None))
    program += [("jeq", number, "deny", None) for name, number in numbers.items() if name not in checked]
    program += [("jeq", numbers[name], "target", None) for name in SIGNAL_SYSCALLS]
    program += [("jeq", numbers[name], f"command-{name}", None) for name in OWNER_COMMANDS]
    program += [("jeq", numbers["clone3"], "nosys", None), ("jeq", numbers["clone"], "clone", None)]
    program += [("jeq", numbers[name], "refused", None) for name in REFUSED_CALLS if name in numbers]
    program += [("jeq", numbers[name], "unsupported", None) for name in REFUSED_UNSUPPORTED]
    program += [("jeq", numbers[name], "nosys", None) for name in REFUSED_NOT_IMPLEMENTED]
    program += [("jeq", numbers[name], "other", None) for name in REFUSED_NOT_PERMITTED if name in numbers]
    program += [("jeq", numbers[name], f"mode-{name}", None) for name, *_ in CHECKED_MODES if name in numbers]
    program += [("jeq", numbers[name], "pid-first", None) for name in PID_FIRST]
    program += [("jeq", numbers[name], f"which-{name}", None) for name, _ in WHICH_WHO]
    program += [("jeq", numbers["prctl"], "prctl", None)]
    program += [("label", "allow"), ("ret", SECCOMP_RET_ALLOW)]
    for name, commands in OWNER_COMMANDS.items():
        program += [("label", f"command-{name}"), ("ld", 24), *(("jeq", command, "deny", None) for command in commands)]
        if name == "fcntl":  # a pipe's new size: both halves of the third argument
            program += [("jeq", F_SETPIPE_SZ, "pipe-size", None), ("ret", SECCOMP_RET_ALLOW), ("label", "pipe-size")]
            program += [("ld", 36), ("jeq", 0, None, "other"), ("ld", 32), ("jgt", PIPE_DEFAULT_BYTES, "other", None)]
        program += [("ret", SECCOMP_RET_ALLOW)]
    program += [("label", "prctl"), ("ld", 16), *(("jeq", option, "other", None) for option in REFUSED_PRCTL)]
    program += [("ret", SECCOMP_RET_ALLOW), ("label", "nosys"), ("ret", SECCOMP_RET_ERRNO | ENOSYS)]
    program += [("label", "refused"), ("ret", SECCOMP_RET_ERRNO | EACCES)]
    program += [("label", "unsupported"), ("ret", SECCOMP_RET_ERRNO | EOPNOTSUPP)]
    program += [
        ("label", "clone"),
        ("ld", 16),
        ("jset", CLONE_THREAD, "thread", "deny"),
        ("label", "thread"),
        ("ret", SECCOMP_RET_ALLOW),
    ]
    for name, offset, mask, refused in CHECKED_MODES:
        if name in numbers:
            program += [("label", f"mode-{name}"), ("ld", offset), ("and", mask)]
            program += [("jeq", value, "deny", None) for value in refused] + [("ret", SECCOMP_RET_ALLOW)]
    itself = [("jeq", 0, "itself", None), ("jeq", "me", "itself", None), ("ret", SECCOMP_RET_ERRNO | EPERM)]
    program += [("label", "pid-first"), ("ld", 16), *itself]
    for name, which in WHICH_WHO:
        program += [("label", f"which-{name}"), ("ld", 16), ("jeq", which, None, "other"), ("ld", 24), *itself]
    program += [("label", "other"), ("ret", SECCOMP_RET_ERRNO | EPERM), ("label", "itself"), ("ret", SECCOMP_RET_ALLOW)]
    program += [("label", "target"), ("ld", 16)]
    program += [("jeq", value, "mine", None) for value in ("me", 0, "-me")]  # itself, its group, its group by -pgid
    # BPF jumps forward only
    program += [("label", "deny"), ("ret", SECCOMP_RET_KILL), ("label", "mine"), ("ret", SECCOMP_RET_ALLOW)]
    labels, index = {}, 0
    for instruction in program:
        if instruction[0] == "label":
            labels[instruction[1]] = index
        else:
            index += 1
    codes = {"ld": 0x20, "jeq": 0x15, "jgt": 0x25, "jge": 0x35, "jset": 0x45, "and": 0x54, "ret": 0x06}
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


def set_dumpable(dumpable: bool) -> bool:
    """Make this process dumpable or not (Linux's prctl PR_SET_DUMPABLE). One that is not keeps its /proc/<pid>/fd,
    environ, maps, mem, io, auxv ... from every process of its user without CAP_SYS_PTRACE (the kernel's ptrace-read
    check, and those files then belong to root); its status, stat, limits, cmdline and schedstat stay readable by all.
    False where the C library has no prctl (not Linux) or the kernel refused."""
    libc = _linux_libc()
    return libc is not None and libc.prctl(PR_SET_DUMPABLE, 1 if dumpable else 0, 0, 0, 0) == 0


def hold_signals(most: int) -> None:
    """RLIMIT_SIGPENDING of this process, soft and hard: the signals its user has queued now (SigQ in /proc/self/status)
    plus most, where that is below its limit. The kernel counts queued signals per user, so a child that queues
    real-time signals while it blocks them takes at most that many of the user's quota, never the grader's nor a
    classmate's share (their timer_create and sigqueue would fail while it ran). Nothing where there is no such limit
    or no /proc (not Linux)."""
    try:
        import resource  # POSIX only
    except ImportError:
        return
    which = getattr(resource, "RLIMIT_SIGPENDING", None)
    if which is None:
        return
    try:
        with open("/proc/self/status") as status:
            line = next(line for line in status if line.startswith("SigQ:"))
        used = int(line.split()[1].split("/")[0])
    except (OSError, StopIteration, ValueError, IndexError):
        return
    hard = resource.getrlimit(which)[1]
    if hard == resource.RLIM_INFINITY or used + most < hard:
        resource.setrlimit(which, (used + most, used + most))


def seccomp(program: list[tuple[int, int, int, int | str]] | None) -> bool:
    """The child's part: a seccomp filter, kernel-enforced even for C code and fresh copies of os: no signal to any
    process but the child's own (or its group's), no pidfd, ptrace or process_vm_writev, no signal owner set on a
    file (SIGIO). False where program is None (an unknown architecture) or the C library has no prctl (not Linux)."""
    if program is None:
        return False
    me = os.getpid()
    pids = {"me": me, "-me": -me & 0xFFFFFFFF}
    filters = ctypes.create_string_buffer(
        b"".join(_BPF.pack(code, jt, jf, pids[k] if type(k) is str else k) for code, jt, jf, k in program)
    )
    fprog = ctypes.create_string_buffer(_FPROG.pack(len(program), ctypes.addressof(filters)))  # struct sock_fprog
    libc = _linux_libc()
    if libc is None or libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog, 0, 0) == 0


_BPF, _FPROG = struct.Struct("=HBBI"), struct.Struct("@HP")
PR_GET_SECCOMP = 21


def missing() -> list[str]:
    """The kernel walls this machine cannot put up around a child: "seccomp" (no Linux C library, an architecture the
    filter does not know, a kernel without it) and "Landlock" (a kernel without it, or a container that refuses it)."""
    libc = _linux_libc()
    gone = (
        []
        if libc is not None and seccomp_program() is not None and libc.prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0
        else ["seccomp"]
    )
    # struct sock_filter; struct sock_fprog (length, pointer)
    return gone + ([] if Landlock().abi >= 1 else ["Landlock"])
