"""macOS, as far as a Linux interpreter can be made to behave like it, for tests: loaded after no_linux.py.

no_linux.py took what macOS lacks with every non-Linux platform (pidfd_open, O_PATH, prctl and syscall, so no Landlock
and no seccomp, and /proc). macOS keeps what POSIX gives (os.fork, fcntl, resource, os.mkfifo, select on pipes, process
groups, signals) and this file leaves them; it takes away what macOS lacks beside (os.sched_getaffinity, os.pipe2,
select.epoll) and makes the rest behave as macOS does:

- an address-space limit (resource.setrlimit(RLIMIT_AS, ...)) is accepted and not enforced: getrlimit gives it back;
- multiprocessing's default start method is spawn (fork is still there, as on macOS);
- fork is unsafe once torch is imported (Apple supports only exec after a fork of a process whose libraries started
  threads): here the forked child stops at once with a message, so that code which forks after torch fails every time,
  where on a Mac it would hang or crash some of the time.
"""
import multiprocessing
import multiprocessing.context
import os
import resource
import select
import sys

for name in ("sched_getaffinity", "sched_setaffinity", "pipe2"):
    if hasattr(os, name):
        delattr(os, name)
if hasattr(select, "epoll"):
    del select.epoll

_setrlimit, _getrlimit, _accepted = resource.setrlimit, resource.getrlimit, {}


def _setrlimit_as_macos(which: int, limits: tuple[int, int]) -> None:
    """resource.setrlimit, except that an address-space limit is only remembered (its audit event is still raised)."""
    if which != resource.RLIMIT_AS:
        return _setrlimit(which, limits)
    sys.audit("resource.setrlimit", which, limits)
    soft, hard = limits
    _accepted[which] = (soft, hard)
    return None


def _getrlimit_as_macos(which: int) -> tuple[int, int]:
    """resource.getrlimit, giving back an address-space limit that was accepted."""
    return _accepted.get(which) or _getrlimit(which)


resource.setrlimit, resource.getrlimit = _setrlimit_as_macos, _getrlimit_as_macos

_contexts = multiprocessing.context
_contexts._default_context._default_context = _contexts._concrete_contexts["spawn"]  # macOS's default since Python 3.8
# its order on macOS
_contexts._default_context.get_all_start_methods = multiprocessing.get_all_start_methods = lambda: [
    "spawn",
    "fork",
    "forkserver",
]

_fork = os.fork


def _fork_as_macos() -> int:
    """os.fork, whose child stops at once when this process had imported torch."""
    pid = _fork()
    if pid == 0 and "torch" in sys.modules:
        os.write(2, b"simulated macOS: fork() after importing torch is unsafe; this child stops here\n")
        os._exit(134)
    return pid


os.fork = _fork_as_macos
