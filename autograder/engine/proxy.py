"""The `student` fixture's object: the student's module, called from the test process, run in the sandboxed child.

`student.attention(q, k, v)` sends the arguments to the question's child, which calls the student's
function there and sends back plain data (tensors, numbers, tuples, lists, dicts). Any other object
(an nn.Module, a trained model, a tensor subclass) stays in the child and comes back as a Handle,
which the test can call (`model(x)`), read attributes of (`model.qkv`), inspect (`structure(model)`)
and load weights into (`load_weights(model, state)`).
"""
import contextlib
import hashlib
from dataclasses import dataclass, field
from typing import Callable, Iterator

import torch

from ..course.manifest import Question
from ..i18n import N_, _, number_text
from .inputs import describe, seeded
from .stand_in import BROKEN
from ..sandbox import CRASHED, TIMEOUT, Child, ChildStopped
from ..sandbox.limits import CHILD_FILES, MEMORY_BYTES, OUTPUT_BYTES
from ..statuses import FAILED, FLAGGED, NOT_ATTEMPTED


CLOCK_SPEEDS = (1.0e9, 2.0e9)  # units of work per virtual second: each virtual_clock block's speed lies between them
# the kit's lines the sandbox child sends as a template and fields (it has no catalogue), worded here
CHILD_LINES = frozenset({
    N_("function `{name}` not found in {file}"),
    N_("the module has no parameter or buffer `{name}`"),
    N_("returned a result the grader cannot take back ({error})"),
})


class CheckFailure(AssertionError):
    """A failed check with the one line the student reads; kind says how the question's status is affected."""

    def __init__(
        self,
        message: str,
        kind: str = FAILED,
        compared: tuple | None = None,
        naming: str = "",
        named: str = "",
        refutes: frozenset[str] = frozenset(),
        sentence: str = "",
    ) -> None:
        """compared: (got, expected, names) when assert_same failed, for the report's side-by-side view; naming:
        `named` when the message names a known mistake (named: its id; sentence: the end of message that says so),
        `unsettled` when a mistake matched on an input that cannot tell it apart; refutes: the ids of the mistakes
        this result rules out."""
        super().__init__(message)
        self.message, self.kind, self.compared = message, kind, compared  # kind: a status or "stopped"
        self.naming, self.named, self.refutes, self.sentence = naming, named, refutes, sentence

    def unnamed(self) -> "CheckFailure":
        """The same failure without its known-mistake sentence."""
        return CheckFailure(
            self.message.removesuffix(self.sentence) if self.sentence else self.message, self.kind, self.compared
        )


class Flagged(CheckFailure):
    """The code reached into the grader's side of the child (its watch, frames, mode stacks): the question is
    flagged."""

    def __init__(self, what: str) -> None:
        super().__init__(_("flagged for review: the code reaches into the grader ({what})").format(what=what), FLAGGED)


class Refused(CheckFailure):
    """Work an answer may not do (a forbidden call, a refused action): a fault of the code, whatever the input."""


class StudentError(CheckFailure):
    """The student's code raised an exception (type is its class name)."""

    def __init__(self, message: str, type_name: str, not_attempted: bool) -> None:
        super().__init__(message, NOT_ATTEMPTED if not_attempted else FAILED)
        self.type = type_name


@dataclass(frozen=True)
class Unsupported:
    """A value the child could not send back (a CUDA tensor, a structure nested too deeply)."""

    description: str


@dataclass(frozen=True)
class Generator:
    """A torch.Generator seeded with seed (mixed with the course secret in class grading), made in the child for the
    call."""

    seed: int


@dataclass(frozen=True)
class Call:
    """One call of the student's code by the grader: its target (a name, or a handle number), arguments and result."""

    student: "Student"
    target: object
    args: tuple
    kwargs: dict
    value: object


_latest: list[Call] = []  # the grader's most recent call of student code, for the known-mistakes bank


def latest_call() -> Call | None:
    """The grader's most recent call of student code that returned, if any."""
    return _latest[-1] if _latest else None


@dataclass
class CallRecord:
    """What the last call did besides returning: clock reads, forbidden work seen."""

    reads: int = 0
    spied: list[str] = field(default_factory=list)
    # the times the virtual clock gave, in order (the first thousands)
    readings: list[float] = field(default_factory=list)
    # per interval between two readings, the score tables that ran: [[T, d, how many], ...]
    tables: list = field(default_factory=list)
    backward_passes: int = 0  # the autograd engine's backward passes, counted in a counting_backward block
    stale_passes: int = 0  # of those, the passes into parameters still holding gradients from before (no zero_grad)
    optimizer_steps: int = 0  # the torch.optim steps taken in a counting_backward block


def one_line(text: object, limit: int = 300) -> str:
    """Student-made text made safe for a one-line message: no line breaks or control characters, surrogates escaped,
    short."""
    text = str(text).encode("utf-8", "backslashreplace").decode("utf-8")
    # French puts a no-break space before `:`
    text = "".join(c if c.isprintable() or c == "\u00a0" else " " for c in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _where(error: dict) -> str:
    """` at exercises/q03_attention.py line 12: code` for the innermost frame in the student's files."""
    if not error["where"]:
        return ""
    frame = error["where"][-1]
    file, line = one_line(frame["file"], 120), frame["line"]
    if frame["code"]:
        return _(" at {file} line {line}: {code}").format(file=file, line=line, code=one_line(frame["code"], 120))
    return _(" at {file} line {line}").format(file=file, line=line)


def explain(error: dict, question: Question) -> str:
    """One line saying what the student's code raised, and where in their own files."""
    kind, message = one_line(error["type"], 100), str(error["message"])
    if kind in ("MissingFunction", "UnsavableResult"):
        return _child_line(error)
    if kind == BROKEN:  # an earlier question's module that does not import: its reason, not the stand-in's line
        return one_line(message)
    if kind == "NotImplementedError":
        frame = error["where"][-1] if error["where"] else None
        if frame and not frame["file"].endswith(question.file.split("/")[-1]):
            return _("uses `{function}` from {file}, which is not written yet (raises NotImplementedError)").format(
                function=one_line(frame['function'], 80), file=one_line(frame['file'], 120)
            )
        name = one_line(frame["function"], 80) if frame else _("this function")
        return _("not attempted: `{name}` still raises NotImplementedError").format(name=name)
    if kind == "SystemExit":
        return _("called sys.exit(){where}; return a value instead").format(where=_where(error))
    if kind == "KeyboardInterrupt":
        return _("raised KeyboardInterrupt{where}").format(where=_where(error))
    if kind == "MemoryError" or "can't allocate memory" in message:
        return _("ran out of memory (the limit is {size} GiB){where}").format(
            size=number_text(MEMORY_BYTES / (1 << 30)), where=_where(error)
        )
    if kind == "OSError" and "File too large" in message:
        return _("printed more than {size} MiB of output{where}").format(
            size=number_text(OUTPUT_BYTES / (1 << 20)), where=_where(error)
        )
    if kind == "OSError" and "Too many open files" in message and "in system" not in message:  # EMFILE, not ENFILE
        return _("had too many files or pipes open at once (the limit is {count}){where}").format(
            count=CHILD_FILES, where=_where(error)
        )
    if kind == "SyntaxError":
        first = one_line(message.strip().splitlines()[0] if message.strip() else '', 200)
        return _("SyntaxError: {message}{where}").format(message=first, where=_where(error))
    first_line = message.strip().splitlines()[0] if message.strip() else ""
    return _("raised {kind}: {message}{where}").format(
        kind=kind, message=one_line(first_line, 200), where=_where(error)
    )


def _child_line(error: dict) -> str:
    """The kit's line the child described by a template of CHILD_LINES and its fields, in the current language; any
    other template (the child is the student's process) is ignored and its English message shown as it came."""
    template, fields = error.get("template"), error.get("fields")
    if isinstance(template, str) and template in CHILD_LINES and isinstance(fields, dict):
        try:
            return one_line(_(template).format(**{str(k): one_line(v, 200) for k, v in fields.items()}))
        except (KeyError, IndexError, ValueError):
            pass
    return one_line(error["message"])


def not_attempted(error: dict, question: Question) -> bool:
    """True for a NotImplementedError raised in the question's own file: a stub not yet written."""
    return (
        error["type"] == "NotImplementedError"
        and bool(error["where"])
        and error["where"][-1]["file"].endswith(question.file.split("/")[-1])
    )


def refusal(what: str) -> str:
    """One line for an action the child refused (an import of the grader's packages, a file, a process)."""
    what = one_line(what, 200)
    if what.startswith("imports "):
        return _("{what}; answers may import only torch, numpy, math and earlier exercises").format(what=what)
    return _(
        "{what}: not allowed in an answer, which may only compute with torch, numpy, math and earlier exercises"
    ).format(what=what)


def _unchanged(after: torch.Tensor, before: torch.Tensor) -> bool:
    """True when a tensor argument is as it was sent, up to the rounding of a nudge undone by arithmetic (x + eps -
    eps)."""
    if torch.equal(after, before):
        return True
    if not before.is_floating_point() or after.dtype != before.dtype:
        return False
    scale = before.abs().max().item() if before.numel() else 0.0
    return torch.allclose(
        after, before, rtol=0, atol=16 * torch.finfo(before.dtype).eps * max(1.0, scale), equal_nan=True
    )


def _shown(value: object) -> str:
    """An argument as sent to the child, named for the student: a tensor by dtype and shape, a generator or an object
    of theirs by what it is (never a generator's seed, which comes from the course secret in class grading)."""
    if isinstance(value, dict) and "__generator__" in value:
        return "generator"
    if isinstance(value, dict) and "__handle__" in value:
        return _("an object")
    if isinstance(value, dict) or (
        isinstance(value, (list, tuple)) and any(isinstance(item, (dict, list, tuple, torch.Tensor)) for item in value)
    ):
        return one_line(type(value).__name__, 20)
    return one_line(describe(value), 60)


class Student:
    """The student's module for one question; attribute access gives callables that run in the child."""

    def __init__(self, child: Child, question: Question, reopen: Callable[[], Child | None] | None = None) -> None:
        """reopen: a fresh child for the question after its child stopped (None when none can be had): a function
        that ran out of time or crashed costs its own checks, and the question's other functions go on in the
        fresh child."""
        self._child, self._question, self._reopen = child, question, reopen
        self._generation = 0  # how many times the child was replaced: a handle into an earlier one is gone
        self._printed = 0  # the bytes the current child had printed after the latest request
        self.printed_first = ""  # the call during which the code printed first, `causal_mask(T=3)`
        self._faulted: set[str] = set()  # the functions (or classes) whose call stopped a child
        self._forbid: tuple[str, ...] = ()
        # the functions (or classes) asked for since the plugin last emptied it: a check's calls
        self.called: set[str] = set()
        self._clock: float | bool = False
        self._grad: bool | None = None
        self._backward = False
        self.last = CallRecord()
        self.made: dict[int, Call] = {}  # handle number -> the call that first returned it (a constructor)
        self.loaded: dict[int, dict[str, torch.Tensor]] = {}  # handle number -> the weights load_weights put in

    def __getattr__(self, name: str) -> "Handle":
        """The student's function or class `name` (it is looked up in the child when called)."""
        if name.startswith("_"):
            raise AttributeError(name)
        return Handle(self, name, f"`{name}`")

    @contextlib.contextmanager
    def virtual_clock(self, *key: object) -> Iterator[float]:
        """Calls inside the block run with every clock reading the virtual clock; after each, `last.reads` counts its
        reads.

        Yields the clock's speed (units of work per virtual second), a pure function of the question and key (the
        check and its input): the same code always gets the same figure, and a figure cannot be worked out without
        the speed, which only the clock's readings reveal. A measured time is judged by its ratio to the work, which
        does not depend on it."""
        digest = hashlib.sha256(repr((self._question.number, key)).encode()).digest()
        self._clock = CLOCK_SPEEDS[0] + (CLOCK_SPEEDS[1] - CLOCK_SPEEDS[0]) * int.from_bytes(digest[:8], "big") / 2**64
        try:
            yield self._clock
        finally:
            self._clock = False

    @contextlib.contextmanager
    def no_grad(self) -> Iterator[None]:
        """Calls inside the block run with gradients off in the child."""
        self._grad = False
        try:
            yield
        finally:
            self._grad = None

    @contextlib.contextmanager
    def counting_backward(self) -> Iterator[None]:
        """Calls inside the block count the autograd engine's backward passes they run (`last.backward_passes`),
        those into gradients left from before (`last.stale_passes`) and torch.optim's steps
        (`last.optimizer_steps`)."""
        self._backward = True
        try:
            yield
        finally:
            self._backward = False

    def known_function(self, name: str) -> "Handle":
        """A scalar test function kept in the child (cubic, sin_exp, read_loss, quartic); `.calls` counts its calls."""
        return self._value({"op": "helper", "name": name})

    def wall_times(self, name: str, Ts: list[int], d: int, budget: float) -> dict:
        """The student's timing function `name` on the real clock for growing T within budget seconds: {"Ts",
        "seconds"}."""
        return self._value({"op": "wall_times", "target": name, "Ts": Ts, "d": d, "budget": budget})

    def forbid(self, labels: tuple[str, ...]) -> None:
        """Forbidden work for the calls that follow (set by the kit's plugin from the test's markers)."""
        self._forbid = labels

    def _encode(self, value: object) -> object:
        """Arguments as plain data the child can load."""
        if isinstance(value, Handle):
            if value._number is None:
                raise TypeError("a function of the student's module cannot be passed as an argument")
            return {"__handle__": value._target}
        if isinstance(value, Generator):
            return {"__generator__": seeded(value.seed)}  # from the course secret in class grading
        if isinstance(value, (list, tuple)):
            return type(value)(self._encode(item) for item in value)
        if isinstance(value, dict):
            return {key: self._encode(item) for key, item in value.items()}
        return value

    def _decode(self, value: object) -> object:
        """The child's plain data, handles and markers turned into Handle and Unsupported objects."""
        if isinstance(value, dict):
            if "__handle__" in value:
                return Handle(self, value["__handle__"], described(value.get("type")))
            if "__unsupported__" in value:
                return Unsupported(described(value["__unsupported__"]))
            return {key: self._decode(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self._decode(item) for item in value)
        return value

    def _ask(self, request: dict) -> dict:
        """Send a request and return the child's answer; every kind of failure becomes a CheckFailure."""
        __tracebackhide__ = True  # pytest shows the test's line, not the proxy's
        function = self._function_of(request)
        if function:
            self.called.add(function)
        if self._child.stopped:
            self._fresh_child(function)
        try:
            answer = self._child.ask(request)
        except ChildStopped as stopped:
            self._faulted.add(function)
            raise CheckFailure(stopped.reason, "stopped") from None
        finally:
            self._note_printing(request, function)
        readings = answer.get("readings", [])
        passes, stale, steps = (answer.get(name, 0) for name in ("backward_passes", "stale_passes", "optimizer_steps"))
        self.last = CallRecord(
            answer.get("reads", 0),
            list(answer.get("spied", [])),
            [float(r) for r in readings if type(r) in (int, float)] if isinstance(readings, list) else [],
            answer.get("tables", []) if isinstance(answer.get("tables"), list) else [],
            *(count if type(count) is int else 0 for count in (passes, stale, steps)),
        )
        if answer.get("tampered"):
            raise Flagged(one_line(str(answer["tampered"]), 100))
        if answer.get("reached"):
            raise Flagged(_("it reads the virtual clock's dispatch-mode stack; time the work with a clock instead"))
        if answer.get("refused"):
            raise Refused(refusal(answer["refused"][0]))
        banned = [label for label in answer.get("spied", []) if label in self._forbid]
        if banned and answer.get("unwatched"):
            raise Refused(
                _(
                    "a thread your code started before this call ran beside it, where the watch on forbidden work "
                    "cannot see: question {number} asks you to do without {name}, so no thread of yours may run during "
                    "its calls"
                ).format(name=banned[0], number=self._question.number)
            )
        if banned:
            raise Refused(
                _("calls {name}, which question {number} asks you to do without: write it by hand").format(
                    name=banned[0], number=self._question.number
                )
            )
        if not answer["ok"]:
            error = answer["error"]
            raise StudentError(explain(error, self._question), error["type"], not_attempted(error, self._question))
        return answer

    def _note_printing(self, request: dict, function: str) -> None:
        """Remember the first call during which the student's code printed (its output file grew), named with its
        inputs."""
        printed = self._child.printed()
        if printed > self._printed and not self.printed_first:
            if request.get("op") == "call":
                arguments = [_shown(value) for value in request.get("args", [])]
                arguments += [f"{key}={_shown(value)}" for key, value in request.get("kwargs", {}).items()]
                called = function or _("a method")
                self.printed_first = one_line(f"{called}({', '.join(arguments)})", 160)
            else:
                self.printed_first = one_line(function or _("an object"), 160)
        self._printed = printed

    def _function_of(self, request: dict) -> str:
        """The name of the student's function (or class) a request runs: its target, or the class a handle's object came
        from; "" when unknown."""
        target = request.get("target")
        if isinstance(target, int):
            made = self.made.get(target)
            target = made.target if made is not None else None
        return target if isinstance(target, str) else ""

    def _fresh_child(self, function: str) -> None:
        """After the child stopped: a fresh one for a function that did not stop a child (a time limit or a crash only);
        else the CheckFailure that says this check was not run."""
        __tracebackhide__ = True
        stopped = self._child.stopped
        if (
            function in self._faulted
            or stopped is None
            or stopped.status not in (TIMEOUT, CRASHED)
            or self._reopen is None
        ):
            raise CheckFailure(_("not run: the process had stopped during an earlier check"), "stopped")
        child = self._reopen()
        if child is None:
            self._reopen = None  # one try: a fresh child that cannot start or import will not on the next check either
            raise CheckFailure(_("not run: the process had stopped during an earlier check"), "stopped")
        self._child, self._generation, self._printed = child, self._generation + 1, 0
        self.made, self.loaded = {}, {}

    def _value(self, request: dict) -> object:
        """The decoded value of the answer to request."""
        __tracebackhide__ = True  # pytest shows the test's line, not the proxy's
        return self._decode(self._ask(request)["value"])

    def _call(self, target: object, args: tuple, kwargs: dict) -> object:
        """Call target (a name or a handle number) in the child; fail when it changed a tensor argument in place."""
        __tracebackhide__ = True  # pytest shows the test's line, not the proxy's
        request = {
            "op": "call",
            "target": target,
            "args": self._encode(list(args)),
            "kwargs": self._encode(kwargs),
            "forbid": list(self._forbid),
            "clock": self._clock,
        }
        if self._grad is not None:
            request["grad"] = self._grad
        if self._backward:
            request["backward"] = True
        answer = self._ask(request)
        names = answer.get("names") if isinstance(answer.get("names"), list) else []
        tensors = [(index, arg) for index, arg in enumerate(args) if type(arg) is torch.Tensor]
        for (index, original), after in zip(tensors, answer.get("after", [])):
            if type(after) is torch.Tensor and after.shape == original.shape and not _unchanged(after, original):
                if index < len(names) and isinstance(names[index], str):
                    raise CheckFailure(
                        _(
                            "tensor argument `{name}` was modified in place; leave inputs untouched and return a new "
                            "tensor"
                        ).format(name=one_line(names[index], 60))
                    )
                raise CheckFailure(
                    _(
                        "tensor argument {index} was modified in place; leave inputs untouched and return a new tensor"
                    ).format(index=index + 1)
                )
        value = self._decode(answer["value"])
        call = Call(self, target, args, kwargs, value)
        if isinstance(value, Handle) and value._number is not None:
            self.made.setdefault(value._number, call)
        _latest[:] = [call]
        return value


def described(fields: object) -> str:
    """What the child's fields say of an object it kept or a value it could not send, worded here in the student's
    language: `a Linear`, `a tensor subclass `Liar``, `a sparse_coo tensor on cpu` (the fields are the child's: each
    is cut short)."""
    if not isinstance(fields, dict):
        return _("an object")
    form, name = fields.get("form"), one_line(str(fields.get("name", "")), 80)
    if form == "subclass":
        return _("a tensor subclass `{name}`").format(name=name)
    if form == "nested":
        return _("a structure nested too deeply")
    if form == "device":
        return _("a {layout} tensor on {device}").format(
            layout=one_line(str(fields.get("layout", "")), 30), device=one_line(str(fields.get("device", "")), 30)
        )
    return _("a {type}").format(type=name) if name else _("an object")


class Handle:
    """An object that lives in the child: a function of the student's module, or a value that is not plain data."""

    def __init__(self, student: Student, target: object, description: str) -> None:
        self._student, self._raw_target, self._description = student, target, description
        self._number = target if isinstance(target, int) else None
        self._generation = getattr(student, "_generation", 0)  # a stand-in student of the tests has none

    @property
    def _target(self) -> object:
        """The name or handle number the child knows this object by; an object of a child since replaced is gone."""
        if self._number is not None and self._generation != self._student._generation:
            raise CheckFailure(_("not run: the process had stopped during an earlier check"), "stopped")
        return self._raw_target

    def __repr__(self) -> str:
        return f"<{self._description} in the sandbox>"

    @property
    def kind(self) -> str:
        """How the report names this object: `a Linear`, `a tensor subclass `Liar``."""
        return self._description

    def __call__(self, *args: object, **kwargs: object) -> object:
        """Call the object in the child."""
        __tracebackhide__ = True  # pytest shows the test's line, not the proxy's
        return self._student._call(self._target, args, kwargs)

    def __getattr__(self, name: str) -> object:
        """An attribute of the object in the child: plain data, or another Handle."""
        __tracebackhide__ = True  # pytest shows the test's line, not the proxy's
        if name.startswith("_"):
            raise AttributeError(name)
        return self._student._value({"op": "getattr", "target": self._target, "name": name})


@dataclass(frozen=True)
class Structure:
    """An nn.Module as the child describes it: class, parameter and buffer shapes, direct children's classes."""

    cls: str
    parameters: dict[str, list[int]]
    buffers: dict[str, tuple[list[int], str]]
    children: dict[str, str]


def structure(handle: Handle) -> Structure:
    """Names and shapes of the parameters and buffers of the nn.Module behind handle, and its children's classes."""
    found = handle._student._value({"op": "structure", "target": handle._target})
    return Structure(
        found["class"], found["parameters"], {k: (v[0], v[1]) for k, v in found["buffers"].items()}, found["children"]
    )


def trained_share(handle: Handle) -> tuple[int, int]:
    """(how many of the nn.Module's parameters the last backward pass of the latest counting_backward call reached,
    how many it has): (0, n) for a model that is not the one trained."""
    reached, total = handle._student._value({"op": "trained", "target": handle._target})
    return int(reached), int(total)


def load_weights(handle: Handle, state: dict[str, torch.Tensor]) -> None:
    """Copy each tensor of state into the parameter or buffer of that name of the nn.Module behind handle."""
    handle._student._value({"op": "load", "target": handle._target, "state": state})
    handle._student.loaded[handle._target] = state
