"""The child's audit hook (Guard) and import refusal (RefusedImport): the Python-level walls every backend puts up.

Loaded with the rest of `_child` before any student code runs; the functions and tables it relies on are bound
here, so patching os, builtins or this module's globals afterwards reaches nothing.
"""
import _imp
import _thread
import importlib
import importlib.abc
import importlib.machinery
import os
import site
import sys
import sysconfig
import types

# Bound here, before any student code runs: a patched builtin never reaches the Guard.
from builtins import all, any, isinstance, str  # noqa: E402, A004

from .hidden import keep  # noqa: E402
from .seal import unwrap  # noqa: E402

try:
    from _limits import CHILD_THREADS  # the child: boot.py loaded sandbox/limits.py by path, as `_limits`
except ImportError:  # the grader (walls.py, the tests), where this module is autograder.sandbox.child.guard
    from ..limits import CHILD_THREADS

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)

REFUSED_PACKAGES = ("reference", "solutions", "autograder")
# autograder/sandbox/child/guard.py
KIT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
HIDDEN_FOLDERS = ("reference", "solutions", os.path.join("autograder", "suites"), ".git")  # under the kit's root
SPAWN_EVENTS = frozenset(
    {"os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen", "pty.spawn"}
)
PATH_EVENTS = frozenset(
    {
        "os.remove",
        "os.rmdir",
        "os.mkdir",
        "os.rename",
        "os.truncate",
        "os.chmod",
        "os.chown",
        "os.utime",
        "os.link",
        "os.symlink",
        "shutil.rmtree",
        "os.mkfifo",
        "os.mknod",
    }
)
# ctypes: loading a library, finding a symbol, a C value laid on an address (from_address), ctypes' own call helper. A
# call through a function pointer made from an address raises no event at all: what such a call could do to another
# process is the seccomp filter's (walls.py).
C_EVENTS = {
    "ctypes.dlopen": "loads C code with ctypes",
    "ctypes.dlsym": "loads C code with ctypes",
    "ctypes.dlsym/handle": "loads C code with ctypes",
    "ctypes.call_function": "calls a C function through ctypes",
    "ctypes.cdata": "reads or writes memory at an address through ctypes",
}
# The gc's object lists reach the grader's own objects in the child (its watch on forbidden work, its channel).
REACH_EVENTS = {
    "gc.get_objects": "lists the interpreter's objects (gc)",
    "gc.get_referrers": "lists the interpreter's objects (gc)",
    "gc.get_referents": "lists the interpreter's objects (gc)",
}
# Every Python route to a frame object (and so to the locals of the child's own loop, its answer key among them) raises
# one of these events (object.__getattr__: for the attributes in FRAME_ATTRIBUTES), on Python 3.10 to 3.13; code run
# under the name of a library file (compiled so, or remade), or made from bytes, would pass for the library's. Made by
# the student's code, or through a library function that hands the frame back (HAND_BACK), each is a reach into the
# grader: the question is flagged. A signal handler is handed a frame with no event: not covered (docs/sandbox.md).
FRAME_EVENTS = {
    "sys._getframe": "reads a frame (sys._getframe)",
    "sys._current_frames": "reads the threads' frames (sys._current_frames)",
    "sys._current_exceptions": "reads the threads' exceptions (sys._current_exceptions)",
    "sys.settrace": "sets a trace hook (sys.settrace)",
    "sys.setprofile": "sets a profile hook (sys.setprofile)",
    "sys.addaudithook": "adds an audit hook (sys.addaudithook)",
    "object.__getattr__": "reads a frame ({name})",
    "exec": "runs code under the name of a library file",
    "function.__new__": "runs code under the name of a library file",
    "code.__new__": "makes code under the name of a library file",
    "marshal.loads": "makes code from bytes (marshal)",
}
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
# A function of the sandbox's own (its code's file under autograder/sandbox/): reading its code (where a sealed class's
# forwarder holds the method it stands for, child/seal.py) or changing its code or defaults is a reach into the grader.
FUNCTION_EVENTS = {
    "object.__getattr__": frozenset({"__code__"}),
    "object.__setattr__": frozenset({"__code__", "__defaults__", "__kwdefaults__"}),
}
SANDBOX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# where the code object is (None: args[1] is its file name)
CODE_ARGS = {"exec": 0, "function.__new__": 0, "code.__new__": None}
# Library functions that hand a frame (or its locals) back to their caller, by the standard library's file: (file,
# names), None for every function of the file. A reach made inside one counts as its caller's.
HAND_BACK = (
    # inspect's getmembers reads any attribute for its caller (a stand-in's __code__, a generator's gi_frame: before,
    # tests/attacks/tamper_inspect_getmembers.py took the watch that way, q3 12 / 12); its get*locals hand a frame's
    # locals back
    (
        "inspect.py",
        frozenset(
            {
                "currentframe",
                "stack",
                "trace",
                "getinnerframes",
                "getmembers",
                "getmembers_static",
                "_getmembers",
                "getgeneratorlocals",
                "getcoroutinelocals",
                "getasyncgenlocals",
            }
        ),
    ),
    (
        "traceback.py",
        frozenset(
            {
                "walk_stack",
                "walk_tb",
                "_walk_tb_with_full_positions",
                "extract",
                "extended_frame_gen",
                "_extract_from_extended_frame_gen",
                "from_exception",
            }
        ),
    ),
    ("threading.py", frozenset({"settrace_all_threads", "setprofile_all_threads"})),
    (os.path.join("logging", "__init__.py"), frozenset({"<lambda>"})),
    (os.path.join("asyncio", "base_tasks.py"), frozenset({"_task_get_stack"})),
    ("bdb.py", None),
    ("profile.py", None),
    ("dis.py", None),  # hands back a code object's constants (a forwarder's method, child/seal.py)
)
# TracebackException(capture_locals=True) hands the frames' locals back (as text)
CAPTURE_LOCALS = ("traceback.py", "__init__")
# fcntl and ioctl commands that make the kernel signal a chosen process later (SIGIO, or any signal F_SETSIG picks, to
# an owner): F_SETOWN, F_SETSIG, F_SETOWN_EX; FIOSETOWN, SIOCSPGRP, TIOCSPGRP. Without seccomp (the portable backend)
# this refusal is the only thing between an answer and the grader's life. F_SETLEASE too: a lease on a file the child
# owns (under an ordinary user, the kit's and every file of the instructor's) makes any other process's open of it,
# root's too, wait until the child ends or for the kernel's lease-break-time (45 s), a file at a time.
F_SETLEASE = 1024
OWNER_COMMANDS = {
    "fcntl.fcntl": frozenset({8, 10, 15, F_SETLEASE}),
    "fcntl.ioctl": frozenset({0x8901, 0x8902, 0x5410}),
}
# Python 3.12 and later raise them
THREAD_EVENTS = frozenset({"_thread.start_new_thread", "_thread.start_joinable_thread"})
_running_threads = _thread._count  # Python threads alive besides the main one; takes no lock
# [CHILD_THREADS] once a Guard stands in this process (a child): a test importing the child's modules is not held
_HELD: list = []


def hold_threads() -> None:
    """Refuse a thread's start when the child already runs CHILD_THREADS Python threads, with the error the system gives
    when it refuses one (threading.Thread.start raises it)."""
    if _HELD and _running_threads() >= _HELD[0]:
        raise RuntimeError("can't start new thread")


WATCHED_EVENTS = frozenset(
    {
        "import",
        "open",
        "os.kill",
        "os.killpg",
        "resource.setrlimit",
        "resource.prlimit",
        *OWNER_COMMANDS,
        # the events Guard looks at
        *PATH_EVENTS,
        *SPAWN_EVENTS,
        *REACH_EVENTS,
        *C_EVENTS,
        *FRAME_EVENTS,
        *FUNCTION_EVENTS,
        *THREAD_EVENTS,
    }
)
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# no audit event
PIDFD_FUNCTIONS = (
    ("os", "pidfd_open"),
    ("posix", "pidfd_open"),
    ("signal", "pidfd_send_signal"),
    ("_signal", "pidfd_send_signal"),
)


def kit_archives(root: str) -> list[str]:
    """The zip files at the top of the kit's folder (a Gradescope zip built there carries the suites and the course
    secret): hidden from every child like the kit's hidden folders (here, and by Landlock in walls.py)."""
    try:
        return [name for name in os.listdir(root) if name.lower().endswith(".zip")]
    except OSError:
        return []


def _case_blind(folder: str) -> bool:
    """True when the volume holding folder ignores case: the folder's name with its letters' case swapped is the
    folder."""
    swapped = folder.swapcase()
    try:
        return swapped != folder and os.path.samefile(folder, swapped)
    except (OSError, ValueError):
        return False


class RefusedImport(importlib.abc.MetaPathFinder):
    """Refuses the grader's own packages and records every attempt. It stands in `sys.meta_path`, where any code
    reaches it: it holds no list of refusals (one that code could clear), only a stand-in (hidden.keep) that appends
    to it."""

    def __init__(self, attempts: list) -> None:
        self._record = keep(attempts.append)

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        """Raise ImportError for the grader's packages; None (not mine to find) for everything else."""
        top = fullname.partition(".")[0]
        if top in REFUSED_PACKAGES:
            self._record(f"imports `{fullname}`")
            raise ImportError(
                f"importing `{fullname}` is not allowed in an answer: only torch, numpy, math and earlier exercise "
                f"modules"
            )
        return None


class Guard:
    """Audit hook of a child: records and refuses what an answer never needs to do.

    That is: reading the oracle, the solutions, the hidden suites or the kit's git history by path; writing, removing
    or linking files outside the child's own folder; starting processes; signalling other processes; changing
    resource limits; loading C libraries or calling C functions with ctypes. Imports of the grader's packages are
    recorded (RefusedImport refuses them). The functions it relies on are bound here, before student code runs."""

    def __init__(
        self,
        attempts: list,
        workdir: str,
        package_dir: str,
        extra_hidden: list[str] = (),
        reached: list | None = None,
        on_thread: object = None,
    ) -> None:
        """Bind the folders and helpers; attempts receives one line per refused action, reached one per reach into
        the grader; on_thread(function) is told of every thread that starts (the watch on forbidden work)."""
        self.attempts, self.getcwd, self.fspath, self.realpath = attempts, os.getcwd, os.fspath, os.path.realpath
        # The event tables, copied here: an answer that empties the module's own (`__main__.WATCHED_EVENTS`) changes
        # nothing.
        self.watched, self.path_events, self.spawn_events = WATCHED_EVENTS, PATH_EVENTS, SPAWN_EVENTS
        self.reach_events, self.c_events, self.owner_commands = dict(REACH_EVENTS), dict(C_EVENTS), dict(OWNER_COMMANDS)
        self.normpath, self.join, self.getpid, self.getpgrp = (
            os.path.normpath,
            os.path.join,
            os.getpid,
            getattr(os, "getpgrp", os.getpid),
        )
        root = KIT_ROOT
        self.own = self._both(workdir)
        self.package = self._both(package_dir)
        self.hidden = tuple(form for name in HIDDEN_FOLDERS for form in self._both(os.path.join(root, name)))
        self.hidden += tuple(form for folder in extra_hidden for form in self._both(folder))
        self.hidden += tuple(form for name in kit_archives(root) for form in self._both(os.path.join(root, name)))
        # Where the volume ignores case (macOS's default, Windows), `SOLUTIONS/` opens solutions/: there a path is also
        # compared as the file system compares it, by the identity (device, inode) of each folder it goes through.
        self.stat, self.dirname = os.stat, os.path.dirname
        self.hidden_ids = (
            frozenset(self._identity(form) for form in self.hidden) - {None} if _case_blind(root) else frozenset()
        )
        self.reached = [] if reached is None else reached
        # busy: per thread
        self.frame_events, self.getframe, self.busy = dict(FRAME_EVENTS), sys._getframe, _thread._local()
        stdlib = os.path.dirname(os.__file__)
        self.hand_back = {form: names for file, names in HAND_BACK for form in self._both(os.path.join(stdlib, file))}
        self.capture_locals = self._both(os.path.join(stdlib, CAPTURE_LOCALS[0]))
        libraries = [
            stdlib,
            *sysconfig.get_paths().values(),
            *getattr(site, "getsitepackages", list)(),
            *sys.path,
            # the sandbox's own files (child/, codec.py)
            SANDBOX_DIR,
        ]
        self.libraries = tuple(
            {form + os.sep for path in libraries if path and os.path.isdir(path) for form in self._both(path)}
            - {form + os.sep for form in self.package + self.own}
        ) + ("<frozen ",)
        for module_name, name in PIDFD_FUNCTIONS:  # signals sent through a pidfd raise no audit event: take them away
            try:
                module = sys.modules.get(module_name) or importlib.import_module(module_name)
            except ImportError:  # no such module on this platform (posix)
                continue
            if hasattr(module, name):
                setattr(module, name, keep(self._no_pidfd))  # kept: a bound method would hand the student this Guard
        self.on_thread = on_thread or (lambda function: None)
        _HELD[:] = [CHILD_THREADS]
        self.builtins_made = set(sys.builtin_module_names) & set(sys.modules)
        self.create_builtin = _imp.create_builtin
        # a second copy of a built-in module gives back what was taken from the first
        _imp.create_builtin = keep(self._first_copy)
        # ... and of an extension module (torch._C) the functions its first copy had replaced (the watch's stand-ins)
        self.create_dynamic, self.extensions_made = (
            _imp.create_dynamic,
            {self.realpath(path) for path in self._extension_files()},
        )
        _imp.create_dynamic = keep(self._first_extension, depth=16)
        self.function_events, self.sandbox_dir = FUNCTION_EVENTS, SANDBOX_DIR + os.sep
        for name in (
            "__call__",  # the audit hook (serve.py adds this instance's)
            "_owned",
            "_text",
            "_forms",
            "_under",
            "_hidden",
            "_writable",
            "_refuse",
            "_reach",
            "_students",
            "_library",
            "_handed_back",
            # bound on the instance, the functions themselves, not the sealed class's forwarders (child/seal.py):
            # replacing them on the class afterwards (`__main__.Guard._refuse = ...`) reaches nothing
            "_memory",
            "_first_copy",
            "_first_extension",
            "_identity",
            "_in_hidden_folder",
        ):
            function = unwrap(getattr(type(self), name))  # a static method's function is called as it is
            static = isinstance(vars(Guard)[name], staticmethod)
            setattr(self, name, function if static else types.MethodType(function, self))

    def _first_copy(self, spec: object) -> object:
        """Stands in for _imp.create_builtin: a built-in module is made once (its first import); a fresh copy of one
        already made (_thread's unwrapped start, posix's pidfd_open) is refused."""
        name = getattr(spec, "name", None)
        if name in self.builtins_made:
            self._refuse(f"makes a second copy of the built-in module {name}")
        module = self.create_builtin(spec)
        self.builtins_made.add(name)
        return module

    @staticmethod
    def _extension_files() -> list:
        """The files of the extension modules loaded so far."""
        suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
        files = [getattr(module, "__file__", None) for module in list(sys.modules.values())]
        return [file for file in files if isinstance(file, str) and file.endswith(suffixes)]

    def _first_extension(self, spec: object, *args: object) -> object:
        """Stands in for _imp.create_dynamic: an extension module's file is loaded once; loading it again is refused."""
        origin = getattr(spec, "origin", None)
        path = self.realpath(origin) if isinstance(origin, str) else None
        if path in self.extensions_made:
            self._refuse(f"loads a second copy of the extension module {getattr(spec, 'name', origin)}")
        module = self.create_dynamic(spec, *args)
        if path is not None:
            self.extensions_made.add(path)
        return module

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
        if self.hidden_ids and self._in_hidden_folder(forms[0]):
            return True
        written = self._text(path)
        if written.startswith(os.sep):
            return False
        parts = [part.casefold() if self.hidden_ids else part for part in written.split(os.sep)]
        # may be relative to a dir_fd
        return any(part in ("reference", "solutions", "suites", ".git") for part in parts)

    def _identity(self, path: str) -> tuple[int, int] | None:
        """(device, inode) of path, None when it cannot be read."""
        try:
            info = self.stat(path)
        except (OSError, ValueError):
            return None
        return info.st_dev, info.st_ino

    def _in_hidden_folder(self, path: str) -> bool:
        """True when path, or a folder on its way, is a hidden folder by the file system's identity (whatever its
        case)."""
        while True:
            if self._identity(path) in self.hidden_ids:
                return True
            parent = self.dirname(path)
            if parent == path:
                return False
            path = parent

    def _writable(self, path: object) -> bool:
        """True only inside the child's own folder (and /dev/null)."""
        forms = self._forms(path)
        return all(self._under(form, self.own) or form == os.devnull for form in forms)

    def _refuse(self, what: str) -> None:
        """Record what for the grader and stop it with PermissionError."""
        self.attempts.append(what)
        raise PermissionError(f"an answer may not do this: {what}")

    def _memory(self, path: object) -> bool:
        """True for a path to a process's memory file (/proc/<pid>/mem, /proc/self/task/<tid>/mem), or a relative
        `mem` (a dir_fd on /proc/self): reading it reads the loop's locals, its answer key among them."""
        written = self._text(path)
        if written.rpartition(os.sep)[2] != "mem":
            return False
        return not written.startswith(os.sep) or any(form.startswith("/proc" + os.sep) for form in self._forms(path))

    def _library(self, file: object) -> bool:
        """True for a file of the standard library, of an installed package or of the sandbox itself (not the
        student's)."""
        return (
            isinstance(file, str)
            and not self._under(file, self.package)
            and not self._under(file, self.own)
            and any(file.startswith(root) for root in self.libraries)
        )

    def _handed_back(self, frame: object) -> bool:
        """True when frame runs a library function that hands the frame it reaches back to its caller."""
        code = frame.f_code
        names = self.hand_back.get(code.co_filename, ())
        if names is None or code.co_name in names:
            return True
        return (
            code.co_name == CAPTURE_LOCALS[1]
            and code.co_filename in self.capture_locals
            and bool(frame.f_locals.get("capture_locals"))
        )

    def _students(self) -> bool:
        """True when the event being audited was raised by the student's code: the frame that raised it (past the
        wrappers that hand a frame back) runs code that is not a library's (the package's files, or code it
        compiled)."""
        try:
            frame = self.getframe(3)  # 0: here, 1: _reach, 2: __call__, 3: the code that raised the event
        except ValueError:  # raised from C with no Python frame above
            return False
        while frame is not None and self._handed_back(frame):
            frame = frame.f_back
        return frame is not None and not self._library(frame.f_code.co_filename)

    def _reach(self, what: str) -> None:
        """Record a reach into the grader (the grader flags the question) and stop it, when the student's code made
        it."""
        if getattr(self.busy, "on", False):
            return  # the events that _students raises itself (sys._getframe, f_code)
        self.busy.on = True
        try:
            students = self._students()
        finally:
            self.busy.on = False
        if students:
            self.reached.append(what)
            raise PermissionError(f"an answer may not do this: {what}")

    def _owned(self, function: object) -> str | None:
        """The name of function when it is a function of the sandbox's own (its code under autograder/sandbox/),
        else None. Its code is read with the Guard busy: that read raises the event being judged again."""
        if type(function) is not types.FunctionType or getattr(self.busy, "on", False):
            return None
        self.busy.on = True
        try:
            owned = function.__code__.co_filename.startswith(self.sandbox_dir)
        finally:
            self.busy.on = False
        return str(getattr(function, "__qualname__", "?"))[:60] if owned else None

    def __call__(self, event: str, args: tuple) -> None:
        """The audit hook itself: return for allowed events, record and raise for refused ones."""
        if event not in self.watched:  # most events (builtins.id, compile, os.listdir ...): one set lookup
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
            if self._memory(path):
                self._reach("reads the process's memory (/proc/.../mem)")
        elif event in self.path_events:
            paths = [
                a for a in args[: 2 if event in ("os.rename", "os.link", "os.symlink") else 1] if not isinstance(a, int)
            ]
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
        elif event in self.owner_commands:
            if args[1] == F_SETLEASE and event == "fcntl.fcntl":
                self._refuse("takes a lease on a file, which makes every other process that opens it wait (F_SETLEASE)")
            if args[1] in self.owner_commands[event]:
                self._refuse(f"sends a signal to another process ({event} {args[1]}: a signal owner)")
        elif event in self.c_events:
            self._refuse(f"{self.c_events[event]} ({event})")
        elif event in self.function_events and args[1] in self.function_events[event]:
            name = self._owned(args[0])
            if name is not None:
                what = "reads the code of" if event == "object.__getattr__" else f"changes the {args[1]} of"
                self._reach(f"{what} the grader's function {name}")
        elif event in self.frame_events:
            if event == "object.__getattr__":
                if args[1] in FRAME_ATTRIBUTES:
                    self._reach(self.frame_events[event].format(name=args[1]))
            elif event not in CODE_ARGS or self._library(
                args[1] if CODE_ARGS[event] is None else getattr(args[0], "co_filename", None)
            ):
                self._reach(self.frame_events[event])
        elif event in THREAD_EVENTS:
            self.on_thread(args[0])
        elif event == "resource.setrlimit" or (
            event == "resource.prlimit" and (args[2] is not None or args[0] not in (0, self.getpid()))
        ):
            self._refuse(f"changes a resource limit ({event})")  # as root it could lift its own memory limit
