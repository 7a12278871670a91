"""A platform that is not POSIX either, for tests: loaded after no_linux.py in every process of a simulated interpreter.

Beside the Linux-only pieces that no_linux.py takes away, Windows lacks what POSIX gives every Unix, macOS included:
process groups and sessions (os.setsid, killpg, getpgrp, setpgid), users (getuid, geteuid, getgid, the pwd and grp
modules), os.sched_getaffinity, os.pipe2, the terminal modules (termios, tty, pty), select.poll and epoll,
faulthandler.register, and the signals and calls that only POSIX has (SIGKILL, SIGUSR1, SIGALRM, SIGHUP, SIGCHLD,
pthread_sigmask, setitimer, alarm ...). The kit's processes see a `signal` module without them; subprocess and psutil,
loaded first, keep the real one, since on this machine they run a POSIX implementation underneath (on Windows theirs
needs none of it). What numpy and torch read on their Linux paths (os.uname, os.sysconf) stays: they take those paths
by sys.platform, which a simulation cannot change.
"""
import faulthandler
import os
import select
import signal
import subprocess  # noqa: F401 - loaded with the real signal module: Popen.kill sends SIGKILL underneath
import sys
import types

try:
    import psutil  # noqa: F401 - the same: its POSIX implementation signals with SIGKILL
except ImportError:
    pass

for name in ("setsid", "killpg", "getpgrp", "setpgid", "getpgid", "getsid", "getuid", "geteuid", "getgid", "getegid",
             "setuid", "setgid", "getgroups", "sched_getaffinity", "pipe2"):
    if hasattr(os, name):
        delattr(os, name)
for name in ("poll", "epoll"):
    if hasattr(select, name):
        delattr(select, name)
for name in ("register", "unregister"):
    if hasattr(faulthandler, name):
        delattr(faulthandler, name)
for name in ("pwd", "grp", "termios", "tty", "pty"):
    sys.modules[name] = None

POSIX_ONLY = ("SIGKILL", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGHUP", "SIGQUIT", "SIGCHLD", "SIGPIPE", "SIGVTALRM", "SIGPROF",
              "SIGSTOP", "SIGCONT", "SIGTSTP", "SIGIO", "SIGXCPU", "SIGXFSZ", "pthread_sigmask", "pthread_kill", "setitimer",
              "getitimer", "alarm", "pause", "siginterrupt", "sigwait", "sigpending", "sigtimedwait", "sigwaitinfo",
              "ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF", "SIG_BLOCK", "SIG_UNBLOCK", "SIG_SETMASK")
for real in (signal, sys.modules["_signal"]):
    windows_like = types.ModuleType(real.__name__, real.__doc__)
    windows_like.__dict__.update({key: value for key, value in vars(real).items() if key not in POSIX_ONLY})
    sys.modules[real.__name__] = windows_like
