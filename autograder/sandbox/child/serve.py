"""The child's side of the wire, the same under every backend: frames in and out, the request loop over a Session.

`run` is what a child does once its backend has set its limits: read its answer key (the first request frame), put up
the Guard and the import refusal, import the student's module, say whether that worked, then answer requests until told
to stop. Every answer frame ends with a tag made with the key (codec.sealer), which only this loop holds, as a local:
an answer that student code writes itself has a wrong tag, and the grader flags the question. Between two calls the
child's own code runs with signals held back (where the platform can hold them) and with the recursion limit it
started with; a timer the student left running ends the child at once (TimerLeftRunning).
"""
import _signal
import faulthandler
import importlib
import importlib.util
import os
import signal
import sys
import traceback
from typing import Callable

from . import forbidden, plain, session
from .guard import Guard, RefusedImport

# Bound here, before any student code runs: a patched builtin never reaches the child's loop.
from builtins import isinstance, len, min, str  # noqa: E402, A004

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)

CHILD_FAILED = 70  # exit code of a child whose own loop failed after the student's code ran (sandbox/base.py says so)
STACK_FILE = "stack.txt"  # in the child's folder: where it dumps its stack when the grader stops it at its time limit
STACK_SIGNAL = getattr(signal, "SIGUSR1", None)  # the grader's "say where you are" (sandbox/base.py where_it_ran)
STACK_EVERY = 1.0  # seconds between two dumps where no signal can ask for one (Windows): the last one says where it was


def load_module(name: str, path: str, search: list[str] | None = None) -> object:
    """Import the file at path as module name (a package's __init__.py with search), without putting its folder on
    sys.path."""
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=search)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_codec = load_module("_codec", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "codec.py"))
_encode, _decode, _sealer, _os_read, _os_write = _codec.encode, _codec.decode, _codec.sealer, os.read, os.write
_fromhex = bytes.fromhex
# The C function: signal.pthread_sigmask would turn the old mask into 64 Enum members on every call, twice per request.
# Neither it nor interval timers exist everywhere (Windows): there the child's loop does without.
_block_signals, _ALL_SIGNALS = getattr(_signal, "pthread_sigmask", None), frozenset(signal.valid_signals())
_getitimer = getattr(_signal, "getitimer", None)
_TIMERS = tuple(
    getattr(signal, name) for name in ("ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF") if hasattr(signal, name)
)


def describe(error: BaseException, package_dir: str) -> dict:
    """Plain description of an exception: type, message, and the frames that are in the student's files.

    Everything is coerced to short text: the exception is the student's object, and its str() may raise, loop or lie.
    """
    try:
        stack = traceback.StackSummary.extract(traceback.walk_tb(error.__traceback__), lookup_lines=False)
        # only these lines are read: the grader's files stay closed
        frames = [f for f in stack if str(f.filename).startswith(package_dir)]
        if (
            isinstance(error, SyntaxError)
            and isinstance(error.filename, str)
            and error.filename.startswith(package_dir)
        ):
            frames.append(
                traceback.FrameSummary(
                    error.filename, int(error.lineno or 0), "<module>", line=str(error.text or "").strip()
                )
            )
        where = [
            {
                "file": os.path.relpath(f.filename, os.path.dirname(package_dir)),
                "line": int(f.lineno or 0),
                "function": str(f.name),
                "code": str(f.line or "").strip()[:200],
            }
            for f in frames
        ]
    except Exception:  # noqa: BLE001 - a traceback the student tampered with
        where = []
    try:
        message = str(error.msg if isinstance(error, SyntaxError) else error)
    except BaseException:  # noqa: BLE001 - a __str__ that raises (even SystemExit)
        message = "(its message could not be read)"
    described = {"type": str(type(error).__name__)[:100], "message": message[:500], "where": where}
    template, fields = getattr(error, "template", None), getattr(error, "fields", None)
    # the kit's own line, worded by the grader
    if described["type"] == "MissingFunction" and type(template) is str and type(fields) is dict:
        described["template"], described["fields"] = template, {str(k): str(v)[:200] for k, v in fields.items()}
    return described


def read_frame(fd: int) -> bytes | None:
    """One length-prefixed frame from fd; None at end of input."""
    header = _read_exactly(fd, 8)
    return None if header is None else _read_exactly(fd, int.from_bytes(header, "little"))


def read_value(fd: int) -> object:
    """The value of the next frame on fd (sandbox/codec.py); None at end of input."""
    frame = read_frame(fd)
    return None if frame is None else _decode(frame)


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = _os_read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def write_frame(fd: int, value: object, tag: Callable[[bytes], bytes] | None = None) -> None:
    """value, encoded (sandbox/codec.py), as one length-prefixed frame on fd; ending with its tag when tag is given
    (an answer)."""
    data = plain.bare(_encode, value)  # no mode of the student's sees the answer's tensors read out
    if tag is not None:
        data += tag(data)
    view = memoryview(len(data).to_bytes(8, "little") + data)
    while view:
        view = view[_os_write(fd, view) :]


def send_answer(fd: int, answer: dict, tag: Callable[[bytes], bytes]) -> None:
    """Send an answer, tagged; one that cannot be encoded becomes a failure the grader can read."""
    try:
        write_frame(fd, answer, tag)
    except Exception as error:  # noqa: BLE001 - a result the codec cannot write
        unsaved = {
            "type": "UnsavableResult",
            "message": f"returned a result the grader cannot take back ({type(error).__name__})",
            "where": [],
            "template": "returned a result the grader cannot take back ({error})",
            "fields": {"error": type(error).__name__},
        }
        write_frame(
            fd,
            {
                "ok": False,
                "error": unsaved,
                "spied": answer.get("spied", []),
                "refused": answer.get("refused", []),
                "reads": 0,
            },
            tag,
        )


class TimerLeftRunning(Exception):
    """The student's code left an interval timer running: it would fire at a moment set by the wall clock, inside the
    student's next call or inside the sandbox's own loop, so the score would change from run to run."""


def between_calls(limit: int) -> None:
    """The grader's side of the child runs with signals held back (a student's handler waits for the next call) and
    with the recursion limit it started with; a timer left running ends the child (TimerLeftRunning), whenever it
    would fire."""
    if _block_signals is not None:
        _block_signals(signal.SIG_BLOCK, _ALL_SIGNALS)
    sys.setrecursionlimit(limit)
    for which in _TIMERS:
        if _getitimer is not None and _getitimer(which)[0]:
            raise TimerLeftRunning


def watch_stack(workdir: str) -> object:
    """Have the interpreter write its stack to STACK_FILE when the grader asks (STACK_SIGNAL, handled in C even
    inside an endless loop), or every STACK_EVERY seconds where there is no such signal; the open file (kept open
    for good)."""
    stack = open(os.path.join(workdir, STACK_FILE), "w")
    if STACK_SIGNAL is not None and hasattr(faulthandler, "register"):
        faulthandler.register(STACK_SIGNAL, file=stack, all_threads=True, chain=False)
    else:
        faulthandler.dump_traceback_later(STACK_EVERY, repeat=True, file=stack)
    return stack


def run(
    requests: int,
    answers: int,
    package_dir: str,
    module_name: str,
    workdir: str,
    hidden: list[str],
    own_modules: list[str],
) -> None:
    """Read the answer key, Guard, import exercises.<module_name> from package_dir, then answer the frames read on
    requests on answers until told to stop (or the grader closes requests). own_modules: the sandbox's own
    modules, taken out of sys.modules first."""
    first = read_value(requests)  # the grader's key for this child's answers, read before any student code runs
    if not isinstance(first, dict) or not isinstance(first.get("key"), str):
        return
    tag = _sealer(_fromhex(first["key"]))  # kept only here, as a local: the Guard flags every reach into a frame
    del first
    stack = watch_stack(workdir)  # noqa: F841 - kept open: the dump is written to it
    attempts: list[str] = []
    reached: list[str] = []
    sys.meta_path.insert(0, RefusedImport(attempts))
    guard = Guard(attempts, workdir, package_dir, hidden, reached, forbidden.thread_started)
    sys.addaudithook(guard.__call__)  # the bound method: replacing Guard.__call__ afterwards reaches nothing

    def described(error: BaseException) -> dict:
        return describe(error, package_dir)

    for name in own_modules:  # bound here; the student's code cannot look them up to patch the watch
        sys.modules.pop(name, None)
    limit = sys.getrecursionlimit()
    try:
        load_module("exercises", os.path.join(package_dir, "__init__.py"), [package_dir])
        module = importlib.import_module("exercises." + module_name)
    except BaseException as error:  # noqa: BLE001 - the student's import may raise anything, SystemExit included
        between_calls(limit)
        write_frame(
            answers, tampered({"ok": False, "error": described(error), "refused": list(attempts)}, reached), tag
        )
        return
    between_calls(limit)
    write_frame(answers, tampered({"ok": True, "refused": list(attempts)}, reached), tag)
    questions = session.Session(module, described, attempts)
    while (request := read_value(requests)) is not None:
        if request["op"] == "exit":
            return
        if _block_signals is not None:
            _block_signals(signal.SIG_UNBLOCK, _ALL_SIGNALS)
        reply = questions.handle(request)
        between_calls(limit)
        send_answer(answers, tampered(reply, reached), tag)


def tampered(answer: dict, reached: list[str]) -> dict:
    """answer, with the first reach into the grader the Guard saw (a frame, a trace hook) as its "tampered" entry, if
    any."""
    if reached and not answer.get("tampered"):
        answer["tampered"] = str(reached[0])
    return answer
