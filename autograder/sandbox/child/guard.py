"""The child's audit hook (Guard) and import refusal (RefusedImport): the Python-level walls every backend puts up.

Loaded with the rest of `_child` before any student code runs; the functions and tables it relies on are bound
here, so patching os, builtins or this module's globals afterwards reaches nothing.
"""
import importlib
import importlib.abc
import os
import sys

# Bound here, before any student code runs: a patched builtin never reaches the Guard.
from builtins import all, any, isinstance, str  # noqa: E402, A004

REFUSED_PACKAGES = ("reference", "solutions", "autograder")
KIT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # autograder/sandbox/child/guard.py
HIDDEN_FOLDERS = ("reference", "solutions", os.path.join("autograder", "suites"), ".git")  # under the kit's root
SPAWN_EVENTS = frozenset({"os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen", "pty.spawn"})
PATH_EVENTS = frozenset({"os.remove", "os.rmdir", "os.mkdir", "os.rename", "os.truncate", "os.chmod", "os.chown", "os.utime",
                         "os.link", "os.symlink", "shutil.rmtree", "os.mkfifo", "os.mknod"})
C_EVENTS = frozenset({"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle"})
# The gc's object lists reach the grader's own objects in the child (its watch on forbidden work, its channel).
REACH_EVENTS = {"gc.get_objects": "lists the interpreter's objects (gc)", "gc.get_referrers": "lists the interpreter's objects (gc)",
                "gc.get_referents": "lists the interpreter's objects (gc)"}
WATCHED_EVENTS = frozenset({"import", "open", "os.kill", "os.killpg", "resource.setrlimit", "resource.prlimit",
                            *PATH_EVENTS, *SPAWN_EVENTS, *REACH_EVENTS, *C_EVENTS})  # the events Guard looks at
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
PIDFD_FUNCTIONS = (("os", "pidfd_open"), ("posix", "pidfd_open"), ("signal", "pidfd_send_signal"), ("_signal", "pidfd_send_signal"))  # no audit event


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

    def __init__(self, attempts: list, workdir: str, package_dir: str, extra_hidden: list[str] = ()) -> None:
        """Bind the folders and helpers; attempts receives one line per refused action."""
        self.attempts, self.getcwd, self.fspath, self.realpath = attempts, os.getcwd, os.fspath, os.path.realpath
        # The event tables, copied here: an answer that empties the module's own (`__main__.WATCHED_EVENTS`) changes nothing.
        self.watched, self.path_events, self.spawn_events = WATCHED_EVENTS, PATH_EVENTS, SPAWN_EVENTS
        self.reach_events, self.c_events = dict(REACH_EVENTS), C_EVENTS
        self.normpath, self.join, self.getpid, self.getpgrp = os.path.normpath, os.path.join, os.getpid, getattr(os, "getpgrp", os.getpid)
        root = KIT_ROOT
        self.own = self._both(workdir)
        self.package = self._both(package_dir)
        self.hidden = tuple(form for name in HIDDEN_FOLDERS for form in self._both(os.path.join(root, name)))
        self.hidden += tuple(form for folder in extra_hidden for form in self._both(folder))
        for module_name, name in PIDFD_FUNCTIONS:  # signals sent through a pidfd raise no audit event: take them away
            try:
                module = sys.modules.get(module_name) or importlib.import_module(module_name)
            except ImportError:  # no such module on this platform (posix)
                continue
            if hasattr(module, name):
                setattr(module, name, self._no_pidfd)
        for name in ("_text", "_forms", "_under", "_hidden", "_writable", "_refuse"):  # bound on the instance: replacing
            setattr(self, name, getattr(self, name))  # them on the class afterwards (`__main__.Guard._refuse = ...`) reaches nothing

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
        if all(self._under(form, self.package) or self._under(form, self.own) for form in forms):
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
        if event not in self.watched:  # most events (builtins.id, object.__getattr__, exec ...): one set lookup
            return
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
        elif event in self.path_events:
            paths = [a for a in args[:2 if event in ("os.rename", "os.link", "os.symlink") else 1] if not isinstance(a, int)]
            if event in ("os.link", "os.symlink"):
                self._refuse(f"makes a link ({event})")
            if any(not self._writable(path) for path in paths):
                self._refuse(f"changes {self._text(paths[0])}, outside its own folder ({event})")
        elif event in self.spawn_events:
            self._refuse(f"starts a process ({event})")
        elif event in ("os.kill", "os.killpg"):
            target = args[0]
            if target not in (0, self.getpid() if event == "os.kill" else self.getpgrp()):
                self._refuse(f"sends a signal to process {target} ({event})")
        elif event in self.reach_events:
            self._refuse(self.reach_events[event])
        elif event in self.c_events:
            self._refuse(f"loads C code with ctypes ({event})")
        elif event == "resource.setrlimit" or (event == "resource.prlimit" and (args[2] is not None or args[0] not in (0, self.getpid()))):
            self._refuse(f"changes a resource limit ({event})")  # as root it could lift its own memory limit
