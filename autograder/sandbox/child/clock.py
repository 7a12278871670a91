"""A virtual clock that advances with the work torch does, so timing code gets the same figure every run.

Inside `with virtual_clock(modules) as clock:` every clock the student can reach reads `clock`, a
WorkClock that is the active dispatch mode. Each aten operation adds its FLOPs (matrix products) or
its output size (everything else) to the work done; one read in ten also adds a burst of
interference four times the work since the previous read, as a busy machine would. Minimum or
median over repeats sees through the bursts; a single reading, a mean or a total does not.

"Every clock" is done generically: the functions of `time` (perf_counter, monotonic, time,
process_time, thread_time, their _ns forms, clock_gettime), `datetime.datetime`'s now, utcnow and today
(the class is swapped for a subclass that reads the virtual clock), and every reference to one of them held
as a module global, a function or method default (`__defaults__`, `__kwdefaults__`), a closure cell
or a class attribute in `timeit`, in the torch.utils.benchmark modules the student's code imported
(`Timer.__init__(timer=...)`), and in the student's own modules (`from time import perf_counter`).
Everything is put back on exit, exceptions included; a reference to a virtual clock bound inside the
block (a module imported there) is turned back into the real clock too. A thread started through threading inside the
block reads the same clock, its work counted (threading's profile hook pushes the WorkClock on its own mode stack); a
clock read in a thread the block did not equip (alive before it: its work is not counted) marks the clock `reached`.

Between each two readings the clock also notes the score tables that ran: every matrix product (mm, addmm, bmm,
baddbmm) or fused attention kernel whose result is square, T x T over an inner size d, as (T, d, how many); the
grader then knows which intervals held attention of which size, and a figure must be one of those it measured.

The clock's speed is the grader's: it is a pure function of the check and its input, chosen so that no figure
can be worked out ahead without reading a clock. The mode on the dispatch stack holds the work only (the speed
lives with the stand-in clocks), and the functions that read the dispatch-mode stack are tripwires while the
block runs: a call from code outside torch marks the clock `reached`, and the grader fails the check.
"""
import contextlib
import datetime
import os
import sys
import threading
import time
import timeit
import types
from typing import Callable, Iterator, Sequence

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import flop_registry

from . import forbidden  # noqa: F401 - its stand-ins for the mode-stack functions first: the tripwires below wrap them, never the originals
from .hidden import keep
from .seal import bind, forward_methods

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)

WORK_PER_SECOND = 7.31e8  # virtual machine speed: units of work per virtual second
# one block in five of a two-read timer: rare enough for an IQR test to settle
BURST_EVERY, BURST_AT, BURST_SIZE = 10, 1, 4.0
WARMUP_WORK = 2e6  # one-off cost the first time each operation runs
CLOCKS = ("perf_counter", "monotonic", "time", "process_time", "thread_time")
# torch.utils.benchmark costs ~0.1 s to import, so it is not imported here: its modules are swapped
# when the student's code has imported them (they are in sys.modules), or made right on exit when
# they were imported inside the block (then they bound the virtual clock, which is what is wanted).
LAZY_PACKAGES = ("torch.utils.benchmark",)

# The real clocks, bound at import, in the zygote, before any student code runs.
_REAL: dict[str, Callable] = {
    name: getattr(time, name) for name in CLOCKS + tuple(c + "_ns" for c in CLOCKS) if hasattr(time, name)
}
_REAL.update({name: getattr(time, name) for name in ("clock_gettime", "clock_gettime_ns") if hasattr(time, name)})
_perf_counter, _get_ident = time.perf_counter, threading.get_ident
_set_thread_profile, _get_thread_profile, _set_profile = threading.setprofile, threading.getprofile, sys.setprofile
_push_dispatch_mode = torch.utils._python_dispatch._push_mode
_DATETIME, _fromtimestamp = datetime.datetime, datetime.datetime.fromtimestamp
# Functions that read (or pop) the dispatch-mode stack, where the WorkClock sits: a student's call to one is a reach
# into the grader.
_MODE_STACK = {
    torch.utils._python_dispatch: (
        "_get_current_dispatch_mode",
        "_get_current_dispatch_mode_stack",
        "_get_dispatch_stack_at",
        "_pop_mode",
        "_pop_mode_temporarily",
        "_disable_current_modes",
        "_pop_torch_dispatch_stack",
        "_len_torch_dispatch_stack",
    ),
    torch._C: (
        "_get_dispatch_stack_at",
        "_get_dispatch_mode",
        "_pop_torch_dispatch_stack",
        "_unset_dispatch_mode",
        "_len_torch_dispatch_stack",
    ),
}
_MODE_STACK_REAL = {
    (owner, name): getattr(owner, name)
    for owner, names in _MODE_STACK.items()
    for name in names
    if hasattr(owner, name)
}
# torch's and the child's: no reach
_OWN_CODE = (os.path.dirname(torch.__file__) + os.sep, os.path.dirname(__file__) + os.sep)
READINGS_KEPT = 4096  # the first readings a call took, sent back so that the grader can tell a mean from a total
# The fused CPU attention kernel: its own operator from torch 2.3, the flash kernel's CPU implementation before.
_FLASH_CPU = (
    getattr(torch.ops.aten, "_scaled_dot_product_flash_attention_for_cpu", None)
    or torch.ops.aten._scaled_dot_product_flash_attention
)
# Matrix products, by overload packet: the position of their first factor among the arguments (addmm's is after the
# bias).
_PRODUCTS = {torch.ops.aten.mm: 0, torch.ops.aten.bmm: 0, torch.ops.aten.addmm: 1, torch.ops.aten.baddbmm: 1}
_Tensor, _isinstance, _id = torch.Tensor, isinstance, id


def _cpu_attention_flops(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *args: object, **kwargs: object) -> int:
    """FLOPs of the fused CPU attention kernel, which torch's flop registry does not list from torch 2.3."""
    batch = q.numel() // (q.shape[-2] * q.shape[-1])
    return 2 * batch * q.shape[-2] * k.shape[-2] * (q.shape[-1] + v.shape[-1])


def _score_table(first: int, args: tuple) -> tuple[int, int, int] | None:
    """(T, d, how many) when the product whose first factor is args[first] (-1: the fused kernel's q, k) gives square
    T x T tables over an inner size d; None for any other product."""
    if first < 0:
        a, rows, cols = args[0], args[0].shape[-2], args[1].shape[-2]
    else:
        a, rows, cols = args[first], args[first].shape[-2], args[first + 1].shape[-1]
    inner = a.shape[-1]
    return (rows, inner, a.numel() // (rows * inner)) if rows == cols and rows * inner else None


def _output_size(out: object) -> int:
    """Elements written: the work of an operation that is not a matrix product."""
    if _isinstance(out, _Tensor):
        return out.numel()
    if _isinstance(out, (tuple, list)):
        return sum(t.numel() for t in out if _isinstance(t, _Tensor))
    return 0


class WorkClock(TorchDispatchMode):
    """Counts the work of every aten operation; the stand-in clocks turn it into a time (the mode never holds the
    speed)."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        """Keep torch from wrapping __torch_dispatch__ for dynamo, whose import costs a second and a half."""
        return False

    def __init__(self) -> None:
        super().__init__()
        bind(self, "__torch_dispatch__", "_cost_of")  # torch calls it at every operation: no forwarder (seal.py)
        self.work = 0.0
        self.interference = 0.0
        self.reads = 0
        self.work_at_last_read = 0.0
        # student code called a function that reads the dispatch-mode stack, or a thread the clock did not equip read a
        # clock
        self.reached = False
        # the threads whose clocks read this one: the block's, and those started inside it
        self.threads: set[int] = set()
        self.readings: list[float] = []  # the first READINGS_KEPT times the stand-in clocks gave
        self.seen: set[object] = set()  # overload packets already run once (warm-up paid)
        # per interval between two readings (the first kept): [T, d, how many] per size
        self.tables: list[list[list[int]]] = []
        self._pending: dict[tuple[int, int], int] = {}  # (T, d) -> score tables since the last reading
        # id(overload) -> (overload, FLOP counter or None, takes out_val, first factor of a product or None)
        self._costs: dict[int, tuple[object, Callable | None, bool, int | None]] = {}

    def _cost_of(self, func: object) -> tuple[object, Callable | None, bool, int | None]:
        """(func, its FLOP counter or None for output size, whether that counter takes out_val, where its first
        factor is when it is a product: -1 for the fused attention kernel); pays the warm-up once."""
        packet = getattr(func, "_overloadpacket", func)
        if packet not in self.seen:
            self.seen.add(packet)
            self.work += WARMUP_WORK
        # before the registry, which lists torch 2.2's (the flash kernel's), and counts the same FLOPs
        if packet is _FLASH_CPU:
            return func, _cpu_attention_flops, False, -1
        if packet in flop_registry:
            return func, flop_registry[packet], True, _PRODUCTS.get(packet)
        return func, None, False, None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        entry = self._costs.get(_id(func))
        if entry is None or entry[0] is not func:
            entry = self._costs[_id(func)] = self._cost_of(func)
        _, flops, takes_out, first = entry
        if flops is None:  # the common case, kept short: this runs for every operation
            self.work += out.numel() if _isinstance(out, _Tensor) else _output_size(out)
            return out
        if takes_out:
            self.work += flops(*args, **kwargs, out_val=out)
        else:
            self.work += flops(*args, **kwargs)
        table = None if first is None else _score_table(first, args)
        if table is not None:
            self._pending[table[:2]] = self._pending.get(table[:2], 0) + table[2]
        return out

    def elapsed(self) -> float:
        """The work done so far, interference included; every BURST_EVERY-th read comes after a burst of
        interference."""
        if 0 < self.reads < READINGS_KEPT:  # the interval since the previous reading ends here
            self.tables.append([[rows, inner, count] for (rows, inner), count in self._pending.items()])
        self._pending = {}
        if self.reads % BURST_EVERY == BURST_AT:
            self.interference += BURST_SIZE * (self.work - self.work_at_last_read)
        self.reads += 1
        self.work_at_last_read = self.work
        return self.work + self.interference


def _reader(clock: WorkClock, speed: float) -> Callable[[], float]:
    """The virtual time in seconds, each reading kept (the first READINGS_KEPT) on clock.readings."""
    keep = clock.readings.append

    def seconds() -> float:
        value = clock.elapsed() / speed
        if clock.reads <= READINGS_KEPT:
            keep(value)
        return value

    return seconds


def _virtual_datetime(seconds: Callable[[], float]) -> type:
    """A datetime.datetime whose now, utcnow and today read the virtual clock (from the real time the block began)."""
    start = _REAL["time"]()

    class VirtualDatetime(_DATETIME):
        """datetime.datetime, its clock methods reading the virtual clock while the timing check runs."""

        @classmethod
        def now(cls, tz: datetime.tzinfo | None = None) -> datetime.datetime:
            return _fromtimestamp(start + seconds(), tz)

        @classmethod
        def today(cls) -> datetime.datetime:
            return _fromtimestamp(start + seconds())

        @classmethod
        def utcnow(cls) -> datetime.datetime:
            return _fromtimestamp(start + seconds(), datetime.timezone.utc).replace(tzinfo=None)

    VirtualDatetime.__name__ = VirtualDatetime.__qualname__ = "datetime"
    VirtualDatetime.__module__ = "datetime"
    forward_methods(VirtualDatetime)  # handed to the student's code: its methods hand out neither module nor clock
    return VirtualDatetime


def _tripwires(clock: WorkClock) -> dict[tuple[object, str], Callable]:
    """A stand-in for each function that reads the dispatch-mode stack: called from outside torch, it marks
    clock.reached."""

    def wire(real: Callable) -> Callable:
        def tripwire(caller: object, *args: object, **kwargs: object) -> object:
            if not caller.f_code.co_filename.startswith(_OWN_CODE):
                clock.reached = True
            return real(*args, **kwargs)

        kept = keep(tripwire, told=True)  # its closure (the clock, the real function) out of the student's reach
        kept.__name__ = kept.__qualname__ = getattr(real, "__name__", "tripwire")
        return kept

    return {where: wire(real) for where, real in _MODE_STACK_REAL.items()}


def _virtual_clocks(clock: WorkClock, speed: float) -> dict[str, Callable]:
    """A stand-in for each real clock, reading `clock` in the threads it equipped (clock.threads); a reading in another
    thread (one alive before the block: its work is not counted) gives the real clock and marks the clock reached."""
    owners, read = clock.threads, _reader(clock, speed)
    owners.add(_get_ident())

    def stand_in(name: str, real: Callable, nanoseconds: bool, takes_id: bool) -> Callable:
        if takes_id:

            def virtual(clk_id: int) -> float | int:
                if _get_ident() not in owners:
                    clock.reached = True
                    return real(clk_id)
                return int(read() * 1e9) if nanoseconds else read()
        else:

            def virtual() -> float | int:
                if _get_ident() not in owners:
                    clock.reached = True
                    return real()
                return int(read() * 1e9) if nanoseconds else read()

        virtual.__name__ = virtual.__qualname__ = name
        virtual.__doc__ = f"time.{name}, read from the virtual clock while the timing check runs."
        return keep(virtual)  # its closure (the clock) out of the student's reach

    clocks = {
        name: stand_in(name, real, name.endswith("_ns"), name.startswith("clock_gettime"))
        for name, real in _REAL.items()
    }
    clocks["datetime"] = _virtual_datetime(clocks["time"])  # its readings count as reads of the clock
    return clocks


class _Swaps:
    """Replaces references to some objects by others, in modules, and puts every one back."""

    def __init__(self, replacements: dict[int, tuple[object, object]], record: bool = True) -> None:
        self.replacements = replacements  # id(old) -> (old, new)
        self.record = record
        self.undo: list[tuple[Callable, object, str, object]] = []  # (setter, owner, where, old value)
        self.visited: set[int] = set()

    def _new(self, value: object) -> object:
        """The replacement of value, or value itself."""
        entry = self.replacements.get(_id(value))
        return entry[1] if entry is not None and entry[0] is value else value

    def _set(self, setter: Callable, owner: object, where: object, old: object, new: object) -> None:
        try:
            setter(owner, where, new)
        except (AttributeError, TypeError, ValueError):  # a read-only owner (a builtin type): nothing to swap there
            return
        if self.record:
            self.undo.append((setter, owner, where, old))

    def _defaults(self, function: object) -> None:
        """Swap in a function's positional and keyword defaults and in its closure cells."""
        if type(function) in (staticmethod, classmethod, types.MethodType):
            function = function.__func__
        if type(function) is not types.FunctionType or _id(function) in self.visited:
            return  # type(), not getattr: a student's object is never asked for attributes
        self.visited.add(_id(function))
        defaults = function.__defaults__
        if defaults and any(self._new(value) is not value for value in defaults):
            self._set(setattr, function, "__defaults__", defaults, tuple(self._new(value) for value in defaults))
        kwdefaults = function.__kwdefaults__
        if kwdefaults and any(self._new(value) is not value for value in kwdefaults.values()):
            self._set(
                setattr,
                function,
                "__kwdefaults__",
                kwdefaults,
                {key: self._new(value) for key, value in kwdefaults.items()},
            )
        for cell in function.__closure__ or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if self._new(value) is not value:
                self._set(setattr, cell, "cell_contents", value, self._new(value))

    def _class(self, cls: type) -> None:
        """Swap in a class's attributes and its methods' defaults."""
        if _id(cls) in self.visited:
            return
        self.visited.add(_id(cls))
        for name, value in list(vars(cls).items()):
            if self._new(value) is not value:
                self._set(setattr, cls, name, value, self._new(value))
            elif type(value) is property:
                for accessor in (value.fget, value.fset, value.fdel):
                    self._defaults(accessor)
            else:
                self._defaults(value)

    def module(self, module: types.ModuleType) -> None:
        """Swap in a module's globals, its functions' defaults and its classes' attributes."""
        if not isinstance(module, types.ModuleType) or _id(module) in self.visited:
            return
        self.visited.add(_id(module))
        for name, value in list(vars(module).items()):
            if self._new(value) is not value:
                self._set(setattr, module, name, value, self._new(value))
            elif isinstance(value, type):
                self._class(value)
            else:
                self._defaults(value)

    def restore(self) -> None:
        """Put every swapped reference back, last swapped first."""
        while self.undo:
            setter, owner, where, old = self.undo.pop()
            try:
                setter(owner, where, old)
            except (AttributeError, TypeError, ValueError):  # made read-only inside the block: the rest still goes back
                continue


def _timing_modules(modules: Sequence[types.ModuleType]) -> list[types.ModuleType]:
    """timeit, the torch.utils.benchmark modules already imported, and the student's modules."""
    lazy = [
        module
        for name, module in list(sys.modules.items())
        if any(name == package or name.startswith(package + ".") for package in LAZY_PACKAGES)
    ]
    return [timeit, *lazy, *modules]


_NOT_SET = object()  # threading's hook before the block, not yet read


def _equipper(clock: WorkClock, previous: Callable | None) -> Callable:
    """threading's profile hook while the block runs, run once at the start of each thread started inside it: the
    thread's clocks read `clock` and its work is counted (the WorkClock on its own dispatch-mode stack); then the
    hook there was."""

    def equip(frame: object, event: str, arg: object) -> None:
        clock.threads.add(_get_ident())
        _push_dispatch_mode(clock)
        _set_profile(previous)
        if previous is not None:
            previous(frame, event, arg)

    return keep(equip)  # threading.getprofile() hands the student this: its closure (the clock) out of reach


@contextlib.contextmanager
def virtual_clock(modules: Sequence[types.ModuleType], speed: float = WORK_PER_SECOND) -> Iterator[WorkClock]:
    """Inside the block every clock the student can reach reads the yielded WorkClock, the active dispatch mode.

    `modules` are the student's modules: their globals may hold clocks imported by name
    (`from time import perf_counter`) or bound as defaults. speed: units of work per virtual second.
    Everything is restored on exit.
    """
    modules, clock, previous = list(modules), WorkClock(), _NOT_SET
    virtual = _virtual_clocks(clock, speed)
    wires = _tripwires(clock)
    real = {**_REAL, "datetime": _DATETIME}
    to_virtual = {_id(real[name]): (real[name], stand_in) for name, stand_in in virtual.items()}
    to_virtual |= {_id(_MODE_STACK_REAL[where]): (_MODE_STACK_REAL[where], wire) for where, wire in wires.items()}
    to_real = {_id(stand_in): (stand_in, real[name]) for name, stand_in in virtual.items()}
    swaps = _Swaps(to_virtual)
    # their closures hold the real ones
    swaps.visited.update(_id(stand_in) for stand_in in [*virtual.values(), *wires.values()])
    try:
        for name, stand_in in virtual.items():  # whatever they hold now, even a student's own function
            if name != "datetime":
                swaps._set(setattr, time, name, getattr(time, name), stand_in)
        swaps._set(setattr, datetime, "datetime", datetime.datetime, virtual["datetime"])
        for (owner, name), wire in wires.items():
            swaps._set(setattr, owner, name, getattr(owner, name), wire)
        swaps._set(setattr, timeit, "default_timer", timeit.default_timer, virtual["perf_counter"])
        for module in _timing_modules(modules):
            swaps.module(module)
        previous = _get_thread_profile()
        _set_thread_profile(_equipper(clock, previous))
        with clock:
            yield clock
    finally:
        if previous is not _NOT_SET:
            _set_thread_profile(previous)
        swaps.restore()
        cleanup = _Swaps(to_real, record=False)  # virtual clocks bound inside the block (a module imported there)
        cleanup.module(time)
        cleanup.module(datetime)
        for module in _timing_modules(modules):
            cleanup.module(module)


def wall_times(time_attention: Callable, Ts: Sequence[int], d: int, budget: float) -> dict:
    """The student's time_attention on the real clock, for growing T, until `budget` seconds are spent.

    Returns {"Ts": [...], "seconds": [...]}, the sizes that ran and their figures.
    """
    start, sizes, seconds = _perf_counter(), [], []
    for T in Ts:
        if _perf_counter() - start > budget:
            break
        seconds.append(float(time_attention(T, d=d, repeats=3)))
        sizes.append(T)
    return {"Ts": sizes, "seconds": seconds}
