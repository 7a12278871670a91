"""A limit on processes (`ulimit -u`, a container's pids.max), for tests: loaded in every process of a simulated
interpreter.

Each process may start STARTS processes (os.fork, or subprocess's fork and exec; a forked process counts its own from
0); the next start fails as the kernel fails it at the limit: BlockingIOError, EAGAIN, "Resource temporarily
unavailable". (Root is exempt from the real `ulimit -u`, and an ordinary user cannot run the interpreter of this
machine: hence a stand-in.)"""
import _posixsubprocess
import errno
import os

STARTS = 1  # the test writes its own figure here when it copies this file
_started: list[int] = []


def _one_more() -> None:
    if len(_started) >= STARTS:
        raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
    _started.append(1)


def _limited(function: object) -> object:
    def start(*args: object, **kwargs: object) -> object:
        _one_more()
        return function(*args, **kwargs)

    start.__name__ = function.__name__
    return start


os.register_at_fork(after_in_child=_started.clear)
os.fork = _limited(os.fork)
_posixsubprocess.fork_exec = _limited(_posixsubprocess.fork_exec)
