"""Notice, at the dispatcher, the PyTorch work a question asks the student not to use.

`with ForbiddenWork(labels) as watch:` runs the student's code under a TorchFunctionMode and a
TorchDispatchMode; `watch.seen` then lists the labels whose forbidden work ran inside the block. What each label
forbids is one entry of forbid_table.py (its entry points, aten operators, classes), bound here at import.
Every route to that work meets one of the two modes, whatever name the student reached it by:

- the function mode sees the public entry points (F.scaled_dot_product_attention,
  F.multi_head_attention_forward, torch._native_multi_head_attention, Tensor.backward,
  torch.autograd.grad / backward, forward-mode duals, the student's own read of `.grad_fn`, or torch.autograd's
  on the student's behalf, as get_gradient_edge's) and every `torch.ops.aten.X` call, by overload packet, and
  any torch function called while a method of nn.MultiheadAttention or of a subclass runs (torch.ao's
  pure-Python quantizable one included): the profile function below counts, per thread, those methods' frames as
  they are entered and left (a generator's at each resume and yield), and those already running when it starts
  hearing the thread;
- the dispatch mode sees the kernels that survive decomposition (the fused attention kernels,
  `aten._safe_softmax`, which only SDPA's math path uses, the native multi-head kernel) and every
  operation the autograd engine runs (`torch._C._current_graph_task_id() != -1`).

Hand-written attention (matmul, einsum, softmax, masked_fill, baddbmm, nn.Linear ...) meets neither mode as the
attention labels' work (einsum is the torch.einsum label's). The SDPA call that nn.MultiheadAttention makes inside
itself counts as multi-head attention, not as SDPA. Threads started inside the block are watched too (threading's
profile hook gives them the modes, and a profile function of their own that sees them popped or switched off: the
block's exit sees only its own thread's stacks); a Python thread that runs beside the block without them makes the
block `unwatched`: every asked label counts as seen, since what that thread ran cannot be told apart. Such a thread
was either alive when the block began (started at import or in an earlier call: the interpreter's count of running
threads, `_thread._count`, which takes no lock, is not 0) or started inside it around threading's hook (_thread's
start is heard: its audit event from Python 3.12, a wrapper before). The interpreter's list of frames
(`sys._current_frames`) is not read: it holds a lock that a thread ending at that moment can deadlock against.
Turning the watch off from inside the block (disabling torch functions around work, popping the modes, replacing
threading's hook) counts as forbidden work for every label asked too, and as `tampered`; the block's own thread has
the same profile function as the threads it starts, so modes emptied and pushed back before the block's exit are seen
at the student's next call or return.

The profile function runs at every call and return of the block's threads, C calls included (millions while
torch.func imports torch._dynamo), and so at every call the modes' handlers make: it returns at once inside a
handler, reads a frame's code (an audit event, which costs a call of the Guard) only to count the classes' frames or
when the stacks do not hold the modes, and the handlers call as little as they can (the dispatch mode calls an aten
overload's kernel itself, as OpOverload.__call__ would).

Every reference compared against is bound when this module is imported, in the zygote, before any
student code runs: patching `torch.nn.functional` afterwards hides nothing.
"""
import _thread
import os
import sys
import threading
import types
from functools import partial as _partial
from typing import Callable, Iterable

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._device import DeviceContext
from torch.utils._python_dispatch import TorchDispatchMode

from .forbid_table import LABELS, TABLE
from .guard import hold_threads
from .hidden import keep
from .seal import FORWARDER_FILE, FORWARDER_NAME, bind

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)

# torch's own use of a tensor's autograd node (nn.Module, optimizers, printing) is not the student's; torch.autograd's
# helpers (graph.get_gradient_edge) read it to hand it out. Who read it decides, for the labels whose table entry says
# `engine`.
_GRAPH_ATTRIBUTES = tuple(
    torch._C.TensorBase.__dict__[name] for name in ("grad_fn", "_grad_fn") if name in torch._C.TensorBase.__dict__
)


def _resolve(path: str) -> object:
    """The object at a dotted path from torch (`torch.nn.functional.scaled_dot_product_attention`), None where this
    build has none."""
    found = torch
    for part in path.split(".")[1:]:
        found = getattr(found, part, None)
        if found is None:
            return None
    return found


def _bind() -> tuple[dict, dict, dict]:
    """({id(entry point): (it, label)}, {id(packet): (it, label)}, {"aten::name": label}) from the table, bound once
    at import."""
    functions, packets, names = {}, {}, {}
    for label, row in TABLE.items():
        for function in map(_resolve, row.entry_points):
            if function is not None:
                functions[id(function)] = (function, label)
        for name in row.operators:
            try:
                packet = getattr(torch.ops.aten, name)
            except (AttributeError, RuntimeError):  # an operator this torch build does not have
                continue
            packets[id(packet)] = (packet, label)
            names[packet._qualified_op_name] = label
    return functions, packets, names


_FUNCTIONS, _PACKETS, _NAMES = _bind()
_OpOverload, _OpOverloadPacket, _MethodWrapper = (
    torch._ops.OpOverload,
    torch._ops.OpOverloadPacket,
    types.MethodWrapperType,
)
_type, _id, _getattr, _isinstance, _sorted = type, id, getattr, isinstance, sorted
_graph_task_id = getattr(torch._C, "_current_graph_task_id", lambda: -1)
_function_modes_on = getattr(torch._C, "_is_torch_function_mode_enabled", lambda: True)
_function_stack = torch.overrides._get_current_function_mode_stack
_dispatch_stack = torch.utils._python_dispatch._get_current_dispatch_mode_stack
_push_function_mode, _push_dispatch_mode = torch.overrides._push_mode, torch.utils._python_dispatch._push_mode
# torch's own modes that honest code may leave on a stack between calls (torch.set_default_device), by exact type
_TORCH_MODES = (DeviceContext,)
_set_thread_profile, _get_thread_profile, _set_profile, _get_profile = (
    threading.setprofile,
    threading.getprofile,
    sys.setprofile,
    sys.getprofile,
)
_getframe, _get_ident, _TORCH_DIR = sys._getframe, threading.get_ident, os.path.dirname(torch.__file__) + os.sep
# _count: Python threads alive besides the main one
_running_threads, _get_thread_trace = _thread._count, threading.gettrace
_AUTOGRAD_DIR, _subclasses = os.path.dirname(torch.autograd.__file__) + os.sep, type.__subclasses__
# the autograd engine's work (at most one label)
_ENGINE = next((label for label, row in TABLE.items() if row.engine), None)
_CLASSES = {label: tuple(filter(None, map(_resolve, row.classes))) for label, row in TABLE.items() if row.classes}
# labels that nest
_COVERED = {label: frozenset(row.covers) for label, row in TABLE.items() if row.classes or row.covers}
# not the student's frames
_LIBRARIES = (_TORCH_DIR, os.path.dirname(os.__file__) + os.sep, os.path.dirname(os.path.abspath(__file__)) + os.sep)
_BOOTSTRAP = threading.Thread._bootstrap  # what threading starts a thread with: its profile hook equips such threads
_CHILD_DIR = _LIBRARIES[2]
# torch's helpers that read, pop or push the mode stacks for their caller: a call of one is judged as its caller's. A
# mode's own __enter__ and __exit__ count for the mode stacks' reads and pops only: a torch context manager that
# switches the Python dispatch key off for its caller's block is torch's own use.
_KEY_HELPERS = frozenset(
    {
        "_get_current_function_mode_stack",
        "_get_current_dispatch_mode_stack",
        "_get_current_dispatch_mode",
        "_pop_mode",
        "_pop_mode_temporarily",
        "_disable_current_modes",
        "_disable_infra_mode",
        "_push_mode",
    }
)
_STACK_HELPERS = _KEY_HELPERS | {"__enter__", "__exit__"}
# the child's frames that pass a call on: the clock's tripwires, hidden.keep
_PASSING = frozenset({"tripwire", "stand_in", "_keeper"})


def _asked_by_student(frame: object, helpers: frozenset) -> bool:
    """True when the student's code asked for what frame does: the first frame outwards that is not the standard
    library's nor one of torch's helpers named in helpers is neither torch's nor the sandbox's."""
    while frame is not None:
        code = frame.f_code
        file = code.co_filename
        if not (
            file.startswith(_LIBRARIES[1])
            or (file.startswith(_TORCH_DIR) and code.co_name in helpers)
            or (file.startswith(_CHILD_DIR) and code.co_name in _PASSING)
        ):
            return not file.startswith(_LIBRARIES)
        frame = frame.f_back
    return False


def _registry() -> Callable:
    """The watches whose blocks run now (innermost last), in a list no student code reaches (hidden.keep):
    act(caller, what, value, frame) enters or leaves a watch (from the sandbox's own code only), hears a thread
    start, or judges a use of the mode stacks."""
    watching: list = []

    def act(caller: object, what: str, value: object = None, frame: object = None) -> None:
        if what in ("enter", "exit"):
            if _getattr(_getattr(caller, "f_code", None), "co_filename", "").startswith(_CHILD_DIR):
                (watching.append if what == "enter" else watching.remove)(value)
        elif not watching:
            return
        elif what == "thread":
            if _getattr(value, "__func__", None) is not _BOOTSTRAP:
                watching[-1]._unwatched()
        elif what == "switch" and _asked_by_student(frame, _KEY_HELPERS):
            watching[-1]._tamper("switches PyTorch's Python dispatch off")
        elif what == "mode" and any(value is w._function_mode or value is w._dispatch_mode for w in watching):
            if _asked_by_student(frame, _STACK_HELPERS):
                watching[-1]._tamper("takes PyTorch's mode stacks into its own hands")

    return keep(act, told=True)


_WATCHING = _registry()


def thread_started(function: object) -> None:
    """A thread is starting with function (the Guard hears _thread's audit event; the wrapper below hears it where
    there is none): refused past the child's count of threads (guard.hold_threads); one that threading's hook will
    not equip makes the running block unwatched, even if it ends before the block."""
    hold_threads()
    _WATCHING("thread", function)


def _announcing(start: object) -> object:
    """_thread's start function, telling thread_started first (Python 3.10 and 3.11 raise no audit event for it);
    held by hidden.keep, so that its globals (this module's) are not handed to the student with it."""

    def start_thread(function: object, *args: object, **kwargs: object) -> object:
        thread_started(function)
        return start(function, *args, **kwargs)

    kept = keep(start_thread)
    kept.__name__ = kept.__qualname__ = _getattr(start, "__name__", "start_new_thread")
    return kept


for _owner, _names in (
    (_thread, ("start_new_thread", "start_joinable_thread", "start_new")),
    # threading's own bindings of _thread's
    (threading, ("_start_new_thread", "_start_joinable_thread")),
):
    for _name in _names:
        if hasattr(_owner, _name):
            setattr(_owner, _name, _announcing(getattr(_owner, _name)))


def foreign_modes() -> list[str]:
    """The class names of the modes on this thread's PyTorch mode stacks, torch's own aside, read between the grader's
    blocks (where the grader has none): a mode the student's code entered outside a watched call (at import, in a call
    with nothing forbidden) would see every later operation unwatched, the child's turning of an answer into plain data
    after the watch among them (tests/attacks/tamper_dispatch_mode_after_call.py)."""
    modes = [*_function_stack(), *_dispatch_stack()]
    return [_type(mode).__name__ for mode in modes if _type(mode) not in _TORCH_MODES]


def _judged_mode(caller: object, args: tuple, result: object) -> None:
    """A mode read or popped off a stack: one of a running watch's, by the student's code, tampers with it."""
    _WATCHING("mode", result, caller)


def _judged_switch(caller: object, args: tuple, result: object) -> None:
    """The Python dispatch key switched off: by the student's code while a watch runs, it tampers with it."""
    _WATCHING("switch", None, caller)


def _gate_stacks() -> None:
    """Put a stand-in (hidden.keep) in place of each of torch's C entry points that reads or pops a mode stack or
    switches the Python dispatch key off, wherever a loaded module holds it: used by the student's code (directly
    or from C code it called, as `list(map(...))` calls), it is judged; torch's own use is not."""
    gates = {}
    for name in (
        "_pop_torch_function_stack",
        "_pop_torch_dispatch_stack",
        "_get_function_stack_at",
        "_get_dispatch_stack_at",
    ):
        gates[_id(_getattr(torch._C, name))] = keep(_getattr(torch._C, name), _judged_mode)
    gates[_id(torch._C._dispatch_tls_set_dispatch_key_excluded)] = keep(
        torch._C._dispatch_tls_set_dispatch_key_excluded, _judged_switch
    )
    for module in list(sys.modules.values()):
        names = _getattr(module, "__dict__", None)
        if _isinstance(names, dict) and (module is torch._C or _getattr(module, "__name__", "").startswith("torch")):
            for key, value in list(names.items()):
                if _id(value) in gates:
                    names[key] = gates[_id(value)]
    for name in (
        "_DisableTorchDispatch",
        "_ExcludeDispatchKeyGuard",
        "ExcludeDispatchKeyGuard",
        "_SetExcludeDispatchKeyGuard",
        "_ForceDispatchKeyGuard",
        "_RestorePythonTLSSnapshot",
    ):
        cls = _getattr(torch._C, name, None)
        if cls is not None:
            cls.__init__ = keep(cls.__init__, _judged_switch)


def _profiler() -> Callable:
    """profile(watch): the watch's profile function, kept (hidden.keep) with a reader of the stacks that calls
    torch's own functions, which only that keeper's frame holds: holds(function mode, dispatch mode) is True when
    this thread's stacks hold both, torch functions are not switched off and the Python dispatch key is not excluded."""
    function_depth, function_at = torch._C._len_torch_function_stack, torch._C._get_function_stack_at
    dispatch_depth, dispatch_at = torch._C._len_torch_dispatch_stack, torch._C._get_dispatch_stack_at
    excluded, python_key = torch._C._dispatch_tls_is_dispatch_key_excluded, torch._C.DispatchKey.Python

    def holds(function_mode: object, dispatch_mode: object) -> bool:
        function_top, dispatch_top = function_depth() - 1, dispatch_depth() - 1
        return (
            _function_modes_on()
            and not excluded(python_key)
            # the top first: where the watch's modes are, unless the student's code (or torch's) pushed one above
            and (
                (function_top >= 0 and function_at(function_top) is function_mode)
                or any(function_at(i) is function_mode for i in range(function_top))
            )
            and (
                (dispatch_top >= 0 and dispatch_at(dispatch_top) is dispatch_mode)
                or any(dispatch_at(i) is dispatch_mode for i in range(dispatch_top))
            )
        )

    def profile(watch: "ForbiddenWork") -> Callable:
        # the check bound on the watch itself (seal.bind: its class's forwarder would cost a frame), and holds handed
        # to it by a partial, which costs no Python frame per event as a lambda did
        return keep(_partial(watch._check_thread, holds))

    return profile


_profile_of = _profiler()
_gate_stacks()


def _packet_label(packet: object) -> str | None:
    """The label of an aten overload packet: by identity, or by the operator's registered name."""
    entry = _PACKETS.get(_id(packet))
    if entry is not None and entry[0] is packet:
        return entry[1]
    return _NAMES.get(_getattr(packet, "_qualified_op_name", None))


def _function_label(func: object) -> str | None:
    """The label of what the function mode was handed, or None for ordinary work."""
    entry = _FUNCTIONS.get(_id(func))
    if entry is not None and entry[0] is func:
        return entry[1]
    kind = _type(func)
    if kind is _OpOverloadPacket:
        return _packet_label(func)
    if _isinstance(func, _OpOverload):
        return _packet_label(func._overloadpacket)
    if kind is _MethodWrapper and _getattr(func, "__self__", None) in _GRAPH_ATTRIBUTES:
        frame = _getframe(2)  # 0: here, 1: the mode's handler, 2: its forwarder (a sealed class's), or the reader
        while frame.f_code.co_filename == FORWARDER_FILE and frame.f_code.co_name == FORWARDER_NAME:
            frame = frame.f_back
        reader = frame.f_code.co_filename  # the code that read .grad_fn
        return None if reader.startswith(_TORCH_DIR) and not reader.startswith(_AUTOGRAD_DIR) else _ENGINE
    return None


_KERNELS: dict = {}  # an aten overload's kernel (its _op) -> (the overload, its label, the kernel), as first seen
_BuiltinFunction = types.BuiltinFunctionType


def _kernel_entry(func: object) -> tuple:
    """(func, its label, what runs it) for what the dispatch mode was handed; remembered in _KERNELS by its kernel when
    func is a plain OpOverload, which the mode then calls directly (OpOverload.__call__ only calls it)."""
    label = _packet_label(_getattr(func, "_overloadpacket", func))
    kernel = func._op if _type(func) is _OpOverload else None
    if _type(kernel) is not _BuiltinFunction:
        return func, label, func
    _KERNELS[kernel] = entry = (func, label, kernel)
    return entry


def _method_codes(classes: tuple) -> list:
    """The code of every method of classes and of each of their subclasses defined so far."""
    classes, codes = list(classes), []
    while classes:
        cls = classes.pop()
        classes.extend(_subclasses(cls))
        for value in vars(cls).values():
            function = _getattr(value, "__func__", value)
            code = _getattr(function, "__code__", None) if _type(function) is types.FunctionType else None
            if code is not None:
                codes.append(code)
    return codes


def _class_lines(labels: Iterable[str]) -> dict[int, tuple]:
    """{first line: ((code, label), ...)} for the code of every method of the classes of labels (and of their
    subclasses): the profile function looks a frame's code up by its first line, an int the code keeps as a C int, then
    by identity (hashing a code object hashes its contents: half a microsecond at every call and return)."""
    lines: dict[int, tuple] = {}
    for label in labels:
        for code in _method_codes(_CLASSES[label]):
            lines[code.co_firstlineno] = (*lines.get(code.co_firstlineno, ()), (code, label))
    return lines


def _count_frames(lines: dict[int, tuple], inside: dict[str, int], frame: object) -> None:
    """Count in inside, by label, the frames from frame outwards that run the code of a method in lines (_class_lines):
    those a thread runs when the watch's profile function starts hearing it."""
    while frame is not None:
        code = frame.f_code
        for method, owner in lines.get(code.co_firstlineno, ()):
            if method is code:
                inside[owner] = inside.get(owner, 0) + 1
        frame = frame.f_back


class _PerThread(threading.local):
    """How deep this thread is in the function mode's handler, the nesting labels' work it runs (innermost last), and
    how many frames of each label's classes' methods it runs."""

    depth = 0
    within: tuple = ()
    handling = 0  # inside the dispatch mode's handler, where torch has taken that mode off the stack for the while

    def __init__(self) -> None:
        super().__init__()
        self.inside: dict[str, int] = {}  # label -> its classes' methods' frames running (the profile function counts)


class _FunctionWatch(TorchFunctionMode):
    """Sees every __torch_function__ entry point and every torch.ops call."""

    def __init__(self, watch: "ForbiddenWork") -> None:
        super().__init__()
        bind(self, "__torch_function__")  # torch calls it at every operation: the handler itself, no forwarder
        self.watch = watch

    def __torch_function__(self, func, types, args=(), kwargs=None):
        watch, here = self.watch, self.watch._thread
        here.depth += 1  # first: torch has taken this mode off the stack until the handler returns
        try:
            label = _function_label(func)
            if label is None and watch._class_labels and not here.within:
                # work done while a method of a label's classes runs, whatever the subclass (torch.ao's is pure
                # Python): the profile function counts their frames as they are entered and left (_check_thread)
                inside = here.inside
                label = next((owner for owner in watch._class_labels if inside.get(owner, 0) > 0), None)
            if label is not None:
                watch._note(label)
            nests = label in _COVERED
            if nests:
                here.within += (label,)
            try:
                return func(*args, **(kwargs or {}))
            finally:
                if nests:
                    here.within = here.within[:-1]
        finally:
            here.depth -= 1


class _DispatchWatch(TorchDispatchMode):
    """Sees every aten kernel that runs, the autograd engine's included."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        """Keep torch from wrapping __torch_dispatch__ for dynamo, whose import costs a second and a half."""
        return False

    def __init__(self, watch: "ForbiddenWork") -> None:
        super().__init__()
        bind(self, "__torch_dispatch__")  # torch calls it at every operation: the handler itself, no forwarder
        self.watch = watch
        self.engine = _ENGINE in watch._asked  # whether the autograd engine's work is asked about

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        # The profile function runs at every call and C call made here: this handler makes as few as it can (a
        # subscript, an attribute or type() makes none, and no audit event as id() does)
        watch, here = self.watch, self.watch._thread
        here.handling += 1
        try:
            entry = None
            if _type(func) is _OpOverload:
                kernel = func._op  # what OpOverload.__call__ calls
                if _type(kernel) is _BuiltinFunction:  # hashed and compared in C
                    try:
                        entry = _KERNELS[kernel]
                    except KeyError:
                        pass
            if entry is None or entry[0] is not func:
                entry = _kernel_entry(func)
            label = entry[1]
            # the autograd engine is running this kernel: read where it can change what is noted
            engine = (self.engine and label is None) or not here.depth
            engine = engine and _graph_task_id() != -1
            if label is None and engine:
                label = _ENGINE
            if label is not None and not (here.within and label in _COVERED[here.within[-1]]):
                watch._note(label)
            if not (here.depth or engine or _function_modes_on()):
                watch._blinded()  # work while the function mode was switched off from inside the block
            return entry[2](*args, **(kwargs or {}))
        finally:
            here.handling -= 1


# the modes' handlers' code, compared by identity (hashing a code object hashes its contents)
_FUNCTION_HANDLER = _FunctionWatch.__torch_function__.__code__
_DISPATCH_HANDLER = _DispatchWatch.__torch_dispatch__.__code__
_FRAME_EVENTS = ("call", "return")  # a frame entered or left (a generator's too, at each resume and yield)
_FrameType = types.FrameType


class ForbiddenWork:
    """Context manager: which of the given labels' forbidden work ran inside the block."""

    def __init__(self, labels: Iterable[str]) -> None:
        self._asked = frozenset(labels)
        unknown = self._asked - set(LABELS)
        if unknown:
            raise ValueError(f"unknown forbidden-work labels {sorted(unknown)}; known: {list(LABELS)}")
        self._seen: set[str] = set()
        # what the block did to the watch itself (switched it off, popped it), for the grader to flag
        self.tampered = ""
        self._active = False
        self._thread = _PerThread()
        # the asked labels that have classes (table order), and their methods' code by first line (_class_lines)
        self._class_labels = tuple(label for label in _CLASSES if label in self._asked)
        self._class_lines: dict[int, tuple] = {}
        bind(self, "_check_thread", "_note", "_blinded", "_tamper", "_unwatched", "_watch_new_thread")
        self._function_mode = _FunctionWatch(self)
        self._dispatch_mode = _DispatchWatch(self)
        self._thread_profile = None
        self._profile = None  # the block's thread's profile function before the block
        self._owner = 0  # the block's thread
        # threading's hook and the threads' profile function, as stand-ins (hidden.keep) that hand no student who gets
        # them (threading.getprofile, sys.getprofile) this watch or this module's globals
        self._hook, self._check = keep(self._watch_new_thread), _profile_of(self)
        self.unwatched = False  # a Python thread without the modes ran beside the block

    def _note(self, label: str) -> None:
        """Record label's work, when that label was asked for and the block is running."""
        if self._active and label in self._asked:
            self._seen.add(label)

    def _blinded(self) -> None:
        """The watch was switched off from inside the block: any asked work may have run unseen."""
        if self._active:
            self._seen.update(self._asked)
            self.tampered = "switches PyTorch's torch-function modes off"

    def _watch_new_thread(self, frame: object, event: str, arg: object) -> None:
        """threading's profile hook, run once at the start of each thread started inside the block: the modes, and a
        profile function of the thread's own that checks them (modes are per thread: the block's exit sees only its
        own)."""
        if self._active:
            if self._thread_profile is not None:  # an outer block's hook (the virtual clock's) equips the thread first
                self._thread_profile(frame, event, arg)
            _push_function_mode(self._function_mode)
            _push_dispatch_mode(self._dispatch_mode)
            if self._class_lines:  # sys._getframe raises an audit event, which the Guard judges with a walk
                _count_frames(self._class_lines, self._thread.inside, _getframe())
            _set_profile(self._check)
        else:
            _set_profile(self._thread_profile)  # hand the thread back to whatever profiler was there

    def _check_thread(self, holds: Callable, frame: object, event: str, arg: object) -> None:
        """The profile function of the block's thread and of each thread the watch equipped, run at each call and
        return in it: the thread's modes popped or switched off (outside the modes' own handlers and torch's own
        code) while the block runs make every asked label count as seen, and the block tampered; the thread's profile
        is then left alone (setting it again is a reach the Guard flags). It also counts the frames of the asked
        labels' classes' methods as they are entered and left (the function mode's handler reads the count). holds
        reads the stacks (_profiler)."""
        here, lines = self._thread, self._class_lines
        # reading a frame's f_code raises an audit event, which costs a call of the Guard (a microsecond and a half, at
        # every event): it is read only to count the classes' frames, or when the stacks do not hold the modes
        if here.depth or _type(frame) is not _FrameType:
            # torch takes the function mode off the stack while its handler runs (and the dispatch mode inside it, where
            # the function mode sees nothing); a frame not from the interpreter is a call by hand, which counts nothing
            return
        counted = lines and event in _FRAME_EVENTS
        if here.handling and not counted:
            return  # torch takes the dispatch mode off the stack while its handler runs
        code = frame.f_code if counted else None
        if counted:
            for method, owner in lines.get(code.co_firstlineno, ()):
                if method is code:
                    here.inside[owner] = here.inside.get(owner, 0) + (1 if event == "call" else -1)
        if here.handling or (self._active and holds(self._function_mode, self._dispatch_mode)):
            return
        if code is None:
            code = frame.f_code
        if code is _FUNCTION_HANDLER or code is _DISPATCH_HANDLER or code.co_filename.startswith(_LIBRARIES):
            return  # the handlers' own call and return, and torch's code, which may pop a mode for a while (printing)
        if self._active:
            self._seen.update(self._asked)
            self.tampered = self.tampered or (
                "empties PyTorch's mode stacks while it runs"
                if _get_ident() == self._owner
                else "pops PyTorch's modes in a thread it started"
            )
        _set_profile(None)

    def _tamper(self, what: str) -> None:
        """The student's code used the mode stacks (read or popped the watch's modes, switched the Python dispatch
        key off): every asked label counts as seen, and the block is tampered."""
        if self._active:
            self._seen.update(self._asked)
            self.tampered = self.tampered or what

    def _unwatched(self) -> None:
        """A thread without the modes runs beside the block: every asked label counts as seen."""
        self.unwatched = True
        self._seen.update(self._asked)

    def __enter__(self) -> "ForbiddenWork":
        self._seen.clear()
        self.tampered, self.unwatched = "", False
        if not self._asked:
            return self  # nothing forbidden: no modes, so no cost (the timing check runs this way)
        self._class_lines = _class_lines(self._class_labels)  # the student's subclasses exist by now
        self._thread_profile = _get_thread_profile()
        self._function_mode.__enter__()
        try:
            self._dispatch_mode.__enter__()
        except BaseException:
            self._function_mode.__exit__(None, None, None)
            raise
        self._active = True
        _WATCHING("enter", self)
        _set_thread_profile(self._hook)
        self._profile, self._owner = _get_profile(), _get_ident()
        if self._class_lines:  # a method of the classes already running (none, from the grader) counts, as in a thread
            _count_frames(self._class_lines, self._thread.inside, _getframe())
        _set_profile(self._check)  # the block's own thread: its modes emptied and put back before the exit are seen
        if _running_threads():  # started before the block (at import, in an earlier call): they run without the modes
            self._unwatched()
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._active:
            return
        _set_profile(self._profile)
        if _get_thread_profile() is not self._hook or _get_thread_trace() is not None:
            # threads started since would run without the modes, or hand frames to a tracer
            self._seen.update(self._asked)
            self.tampered = "replaces threading's hook for new threads"
        self._active = False
        _WATCHING("exit", self)
        _set_thread_profile(self._thread_profile)
        intact = self._leave(
            self._dispatch_mode, _dispatch_stack(), _push_dispatch_mode, torch._C._pop_torch_dispatch_stack, exc
        )
        intact = (
            self._leave(
                self._function_mode, _function_stack(), _push_function_mode, torch._C._pop_torch_function_stack, exc
            )
            and intact
        )
        if not intact:
            self._seen.update(self._asked)  # the student popped or buried a mode: the block was not watched
            self.tampered = "pops or buries PyTorch's mode stacks"

    @staticmethod
    def _leave(mode: object, stack: list, push: object, pop: object, exc: tuple) -> bool:
        """Exit mode, leaving the stack as it was before the block; True when mode was still on top, as the block
        left it."""
        if not any(entry is mode for entry in stack):
            push(mode)  # popped by the student: put it back so that its own exit restores torch's flags
            mode.__exit__(*exc)
            return False
        above = len(stack) - 1 - next(i for i, entry in enumerate(stack) if entry is mode)
        for _ in range(above):
            pop()  # modes the student left above ours
        mode.__exit__(*exc)
        return above == 0

    @property
    def seen(self) -> list[str]:
        """Sorted labels whose forbidden work ran inside the block."""
        return _sorted(self._seen)
