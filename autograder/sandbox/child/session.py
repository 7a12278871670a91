"""The child's side of one question: answer the grader's requests by calling the student's code.

A request names a target (a function of the student's module, or a handle to an object kept here),
arguments (plain data, handles, seeded generators) and options (forbidden labels,
the virtual clock, grad mode). The answer is plain data: the value, with every object that is not
plain data replaced by a handle the grader can call, inspect and load weights into.
"""
import inspect
import sys
from typing import Callable

import torch

from . import backward, clock, forbidden, helpers, plain

# Bound at import, in the zygote, before any student code runs: a patched builtin never reaches this module.
from builtins import dict, getattr, id, isinstance, len, list, tuple, type  # noqa: E402, A004

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)


class MissingFunction(Exception):
    """The exercise module does not define a function or class the question asks for.

    The grader words the student's line from template and fields, in the student's language (the child has no
    catalogue)."""

    def __init__(self, template: str, **fields: str) -> None:
        super().__init__(template.format(**fields))
        self.template, self.fields = template, fields


class Session:
    """The student's module and the objects handed out as handles, for one question."""

    def __init__(self, module: object, describe: Callable[[BaseException], dict], refused: list[str]) -> None:
        self.module = module
        self.describe = describe
        self.refused = refused
        self.tampered = ""  # what the student's code did to the watch on forbidden work, once it did
        self.objects: dict[int, object] = {}
        self.ids: dict[int, int] = {}  # id(object) -> handle number, so one object keeps one handle
        self.spied: list[str] = []  # what the latest call's watch saw, kept when the call raised
        self.unwatched = False  # whether a thread ran beside the latest call without the watch, kept likewise
        self.trained: tuple = ()  # the leaves of the last backward pass of the latest call that counted them

    def _handle(self, value: object) -> int:
        """The handle number of value, kept alive in this session."""
        key = id(value)
        if key not in self.ids:
            self.ids[key] = len(self.objects)
            self.objects[self.ids[key]] = value
        return self.ids[key]

    def _decode(self, value: object) -> object:
        """Arguments as the grader sent them, markers turned into objects."""
        if isinstance(value, dict):
            if "__handle__" in value:
                return self.objects[value["__handle__"]]
            if "__generator__" in value:
                return torch.Generator().manual_seed(value["__generator__"])
            return {key: self._decode(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self._decode(item) for item in value)
        return value

    def _target(self, target: object) -> object:
        """A handle's object, or the student's module attribute of that name."""
        if isinstance(target, int):
            return self.objects[target]
        try:
            return getattr(self.module, target)
        except AttributeError:
            raise MissingFunction("function `{name}` not found in {file}", name=str(target),
                                  file=f"exercises/{self.module.__name__.split('.')[-1]}.py") from None

    def handle(self, request: dict) -> dict:
        """Answer one request; never raises (the student's exceptions are described in the answer)."""
        op = request["op"]
        answer: dict = {"ok": True, "spied": [], "reads": 0}
        try:
            if op == "call":
                self._foreign_modes(request)
                answer |= self._call(request)
            elif op == "getattr":
                answer["value"] = getattr(self._target(request["target"]), request["name"])
            elif op == "trained":
                answer["value"] = trained_share(self._target(request["target"]), self.trained)
            elif op == "structure":
                answer["value"] = structure(self._target(request["target"]))
            elif op == "wall_times":
                answer["value"] = clock.wall_times(
                    self._target(request["target"]), request["Ts"], request["d"], request["budget"]
                )
            elif op == "helper":
                answer["value"] = helpers.Counted(request["name"])
            elif op == "load":
                load(self._target(request["target"]), self._decode(request["state"]))
                answer["value"] = None
            else:
                raise ValueError(f"unknown request {op!r}")
            answer["value"] = plain.plain(answer["value"], self._handle)
            if op == "call":
                self._foreign_modes(request)  # the answer made plain data after the watch: no student's mode saw it
        except BaseException as error:  # noqa: BLE001 - the student may raise SystemExit or KeyboardInterrupt
            # forbidden work that ended in an error is still seen
            spied = answer.get("spied") or (self.spied if op == "call" else [])
            answer = {"ok": False, "error": self.describe(error), "spied": spied, "reads": answer.get("reads", 0)}
            if op == "call" and self.unwatched:
                answer["unwatched"] = True
        answer["refused"] = list(self.refused)
        if self.tampered:
            answer["tampered"] = self.tampered
        return answer

    def _foreign_modes(self, request: dict) -> None:
        """A call with forbidden work asked about, before its block and once its answer is plain data: a mode of the
        student's on PyTorch's stacks (none of the grader's is there then) tampers with the watch."""
        if request.get("forbid") and not self.tampered:
            foreign = forbidden.foreign_modes()
            if foreign:
                self.tampered = f"leaves a mode of its own on PyTorch's mode stacks outside the watch ({foreign[0]})"

    def _call(self, request: dict) -> dict:
        """Call the target under the requested options; the value, the tensor arguments afterwards, what was spied."""
        function = self._target(request["target"])
        args, kwargs = self._decode(request["args"]), self._decode(request["kwargs"])
        spy = forbidden.ForbiddenWork(request.get("forbid", ()))
        self.spied = []
        result: dict = {"spied": [], "reads": 0, "names": parameter_names(function, len(args))}
        try:
            with torch.set_grad_enabled(request.get("grad", torch.is_grad_enabled())):
                if request.get("clock"):
                    speed = float(request["clock"]) if type(request["clock"]) is float else clock.WORK_PER_SECOND
                    with clock.virtual_clock([self.module, *self._student_modules()], speed) as work_clock, spy:
                        try:
                            value = function(*args, **kwargs)
                        finally:
                            result |= {
                                "reads": work_clock.reads,
                                "readings": list(work_clock.readings),
                                "tables": list(work_clock.tables),
                                "reached": work_clock.reached,
                            }
                elif request.get("backward"):
                    with backward.BackwardPasses() as passes, spy:
                        try:
                            value = function(*args, **kwargs)
                        finally:
                            result |= {
                                "backward_passes": passes.count,
                                "stale_passes": passes.stale,
                                "optimizer_steps": passes.steps,
                            }
                            self.trained = passes.leaves
                else:
                    with spy:
                        value = function(*args, **kwargs)
        finally:
            result["spied"] = self.spied = list(spy.seen)
            self.unwatched = spy.unwatched  # a thread of the student's ran beside the call without the watch
            if spy.unwatched:
                result["unwatched"] = True
            self.tampered = self.tampered or spy.tampered  # kept for every later answer: the grader flags the question
        result["value"] = value
        result["after"] = [plain.plain(arg, self._handle) for arg in args if type(arg) is torch.Tensor]
        return result

    def _student_modules(self) -> list[object]:
        """The other exercise modules already imported (earlier questions the module uses)."""
        return [
            module
            for name, module in list(sys.modules.items())
            if name.startswith("exercises.") and module is not self.module
        ]


def parameter_names(function: object, count: int) -> list[str]:
    """The names of the first count positional parameters of function (`scores`, `mask`), for the grader's messages;
    [] when its signature cannot be read."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except Exception:  # noqa: BLE001 - a student's object may answer anything, or raise
        return []
    names = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [str(name) for name in names[:count]]


def structure(model: object) -> dict:
    """Names and shapes of parameters and buffers, and the class of every direct child, of an nn.Module."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"expected an nn.Module, got a {type(model).__name__}")
    found: dict = {"class": type(model).__name__, "parameters": {}, "buffers": {}, "children": {}}
    read = object.__getattribute__  # the module's own tables, not its methods: an override cannot lie about its layout
    for name, child in read(model, "_modules").items():
        if child is not None:
            found["children"][name] = type(child).__name__
    stack, seen = [("", model)], set()
    while stack:
        prefix, module = stack.pop(0)
        if id(module) in seen:
            continue
        seen.add(id(module))
        found["parameters"] |= {
            prefix + k: list(v.shape) for k, v in read(module, "_parameters").items() if v is not None
        }
        found["buffers"] |= {
            prefix + k: [list(v.shape), str(v.dtype)] for k, v in read(module, "_buffers").items() if v is not None
        }
        stack += [(f"{prefix}{k}.", v) for k, v in read(module, "_modules").items() if v is not None]
    return found


def trained_share(model: object, leaves: tuple) -> list[int]:
    """[how many of the nn.Module's parameters the last counted backward pass reached, how many it has]."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"expected an nn.Module, got a {type(model).__name__}")
    reached = {id(leaf) for leaf in leaves}
    parameters = list(model.parameters())
    return [sum(id(p) in reached for p in parameters), len(parameters)]


def load(model: object, state: dict) -> None:
    """Copy each tensor of state into the parameter or buffer of that name, without recording gradients."""
    with torch.no_grad():
        for name, tensor in state.items():
            try:
                target = model.get_parameter(name)
            except AttributeError:
                try:
                    target = model.get_buffer(name)
                except AttributeError:
                    raise MissingFunction("the module has no parameter or buffer `{name}`", name=str(name)) from None
            target.copy_(tensor)
