"""Seal the child's own classes before any student code runs: nothing reached through them changes the watch.

`object.__subclasses__()` hands any code every class, the watch's among them, and a method's `__globals__` (read
without an audit event) hands over its module's dict, where rebinding a name (`_function_label`) raises no event
either. `seal(modules)` closes both routes for every class a module of the child's side defines:

- each function of such a class (method, static method, class method, property accessor) is replaced by a forwarder:
  a function with no globals and no closure whose code holds the original as a constant, so the class hands out no
  module dict; the code is reached only through `__code__`, whose reading the Guard flags (guard.py);
- the class is then made immutable (CPython's `Py_TPFLAGS_IMMUTABLETYPE`, as the classes of C modules are): setting
  or deleting its attributes (`setattr`, `type.__setattr__`, `delattr`) or its instances' `__class__` raises
  TypeError.

CPython raises no audit event when a class's attribute is set, so the flag is the only way to refuse it; it is set
through ctypes, before the Guard refuses ctypes, at the offset a throwaway class proves (the flag set there makes
that class refuse an attribute). Where no offset proves so (another interpreter), the classes stay mutable: `seal`
returns False, and the forwarders alone keep the module dicts out of reach.
"""
import sys
import types
import warnings

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)

IMMUTABLE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE (Python 3.10 and later)
_PLACEHOLDER = "__sealed_original__"
with warnings.catch_warnings():  # "'str' object is not callable": the constant is replaced before any call
    warnings.simplefilter("ignore")
    _TEMPLATE = next(
        const
        for const in compile(f"def forward(*args, **kwargs):\n    return {_PLACEHOLDER!r}(*args, **kwargs)\n", __file__,
                             "exec").co_consts
        if isinstance(const, types.CodeType)
    )
# every forwarder's code: this file, this name (the watch skips its frames)
FORWARDER_FILE, FORWARDER_NAME = _TEMPLATE.co_filename, _TEMPLATE.co_name


def forwarder(original: object) -> types.FunctionType:
    """A function that calls original with its arguments, holding it only as a constant of its code."""
    code = _TEMPLATE.replace(co_consts=tuple(original if const == _PLACEHOLDER else const for const in
                                             _TEMPLATE.co_consts))
    function = types.FunctionType(code, {"__builtins__": {}}, getattr(original, "__name__", FORWARDER_NAME))
    function.__qualname__ = getattr(original, "__qualname__", function.__name__)
    function.__doc__ = getattr(original, "__doc__", None)
    return function


def unwrap(function: object) -> object:
    """The function a forwarder calls (its code's constant); function itself when it is no forwarder. It reads
    `__code__`: the sandbox's own code calls it, never on the student's behalf."""
    code = getattr(function, "__code__", None)
    if getattr(code, "co_filename", None) != FORWARDER_FILE or code.co_name != FORWARDER_NAME:
        return function
    return next(const for const in code.co_consts if callable(const))


# (class, name) -> the function bind() binds: looked up once per class, as reading a forwarder's code raises an audit
# event that the Guard judges with a walk of the stack; a sealed class's forwarder never changes
_BOUND: dict = {}


def bind(instance: object, *names: str) -> None:
    """Bind each named method of instance's class on instance itself, the function itself rather than its sealed
    class's forwarder: a method torch or the interpreter calls at every operation (a mode's handler) then costs no
    frame more, and the instance, which no student code reaches, hands nothing out."""
    cls = type(instance)
    for name in names:
        function = _BOUND.get((cls, name))
        if function is None:
            function = _BOUND[cls, name] = unwrap(getattr(cls, name))
        setattr(instance, name, types.MethodType(function, instance))


def _forwarded(value: object) -> object:
    """value with every function it holds (itself, a static or class method's, a property's accessors) forwarded;
    value itself when it holds none."""
    if isinstance(value, types.FunctionType):
        return forwarder(value)
    if isinstance(value, (staticmethod, classmethod)) and isinstance(value.__func__, types.FunctionType):
        return type(value)(forwarder(value.__func__))
    if isinstance(value, property):
        accessors = [forwarder(f) if isinstance(f, types.FunctionType) else f for f in (value.fget, value.fset,
                                                                                         value.fdel)]
        return property(*accessors, value.__doc__)
    return value


def _flags_offset() -> int | None:
    """Where a class keeps its flags, in bytes from its address: the offset at which setting IMMUTABLE makes a
    throwaway class refuse an attribute; None where none does."""
    try:
        import ctypes  # lazily: a platform without it keeps its classes mutable (seal() says False)
    except ImportError:
        return None
    probe = type("Probe", (), {})
    for offset in range(0, 64 * ctypes.sizeof(ctypes.c_void_p), ctypes.sizeof(ctypes.c_void_p)):
        word = ctypes.c_ulong.from_address(id(probe) + offset)
        if word.value != probe.__flags__ or probe.__flags__ & IMMUTABLE:
            continue
        word.value |= IMMUTABLE
        try:
            probe.attribute = 1
        except TypeError:
            return offset
        word.value &= ~IMMUTABLE
    return None


def _freeze(classes: list[type], offset: int) -> None:
    """Set IMMUTABLE in each class's flags."""
    import ctypes  # lazily, as in _flags_offset: only once an offset was found

    for cls in classes:
        word = ctypes.c_ulong.from_address(id(cls) + offset)
        if word.value == cls.__flags__:  # the flags are where the probe had them
            word.value |= IMMUTABLE


def classes_of(module: object) -> list[type]:
    """The classes module defines (its globals' classes whose __module__ is module's name)."""
    name = getattr(module, "__name__", None)
    return [value for value in list(vars(module).values()) if isinstance(value, type) and value.__module__ == name]


def forward_methods(cls: type) -> None:
    """Replace every function of cls (method, static or class method, property accessor) by a forwarder."""
    for name, value in list(vars(cls).items()):
        replaced = _forwarded(value)
        if replaced is not value:
            setattr(cls, name, replaced)


def seal(modules: list[object]) -> bool:
    """Forward every function of the classes modules define, then make the classes immutable; True when they are
    (False: this interpreter's classes keep no flags where CPython's do)."""
    classes = [cls for module in modules for cls in classes_of(module) if not cls.__flags__ & IMMUTABLE]
    for cls in classes:
        forward_methods(cls)
    offset = _flags_offset() if sys.implementation.name == "cpython" else None
    if offset is None:
        return False
    _freeze(classes, offset)
    return all(cls.__flags__ & IMMUTABLE for cls in classes)
