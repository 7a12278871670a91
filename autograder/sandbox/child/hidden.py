"""Stand-ins that hold what they stand for out of the student's reach: the original lives only in a generator's frame.

A function's closure, globals and a bound method's `__self__` are read without an audit event, so a stand-in that
kept its original there would hand it to any student who looked. A generator's frame is reached only through
`gi_frame` (an audit event the Guard flags), so `keep(original, judge)` returns a plain function that sends each call
into a generator holding the original; `judge(caller, args, result)` sees every call that ran, with the frame it came
from (the nearest Python frame: a call made from C code comes from the Python frame that started that C code).
Sending into the generator directly, with its `send`, reaches the same judge; closing it breaks the stand-in (every
later call raises), which fails closed.

The stand-in itself has no closure and no globals (as seal.py's forwarders): what it sends into, the errors it tells
apart and its wait are constants of its own code, reached only through `__code__`, whose reading the Guard flags. A
closure cell (rewritten with no audit event: `stand_in.__closure__[0].cell_contents = [...]`) or a module dict (its
`_keeper` rebound) would let any code that got the stand-in change what it calls."""
import sys
import time
import types
import warnings
from typing import Callable

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)

# every stand-in's code, its placeholders (strings) replaced by keep(): this file, this name (the watch passes it)
_STAND_IN_SOURCE = """
def stand_in(*args, **kwargs):
    while True:
        for send in '__sends__':
            try:
                ok, value = send((args, kwargs))
            except '__busy__':  # this generator is running: try the next
                continue
            except '__closed__':
                raise '__error__'('this function was closed by the answer\\'s code') from None
            if ok:
                return value
            raise value
        '__wait__'(0)
"""
with warnings.catch_warnings():  # "'str' object is not callable": each placeholder is replaced before any call
    warnings.simplefilter("ignore")
    _TEMPLATE = next(
        const for const in compile(_STAND_IN_SOURCE, __file__, "exec").co_consts if isinstance(const, types.CodeType)
    )


def _keeper(original: Callable, judge: Callable | None, gate_code: list, told: bool) -> object:
    """The generator that holds original: each (args, kwargs) sent in runs it, judged; it answers (True, result) or
    (False, error). It keeps nothing of a call once it answered (a tensor still referenced here would change what
    torch does with it)."""
    slot: list = [(True, None)]
    # locals of this frame: rebinding this module's globals changes nothing here
    getframe, refused = sys._getframe, RuntimeError
    watched, caller = judge is not None or told, None  # the caller's frame is looked for only when someone looks at it
    while True:
        try:
            args, kwargs = yield slot.pop()  # popped: the answer is handed over, not kept in this frame
        except GeneratorExit:
            return
        except BaseException:  # noqa: BLE001 - thrown in, or a malformed request: nothing runs
            slot.append((False, refused("this function was called in a way the grader does not allow")))
            continue
        if watched:
            caller = getframe(1)
            if caller.f_code in gate_code:
                caller = caller.f_back
        try:
            result = original(caller, *args, **kwargs) if told else original(*args, **kwargs)
            if judge is not None:
                judge(caller, args, result)
            slot.append((True, result))
        except BaseException as error:  # noqa: BLE001 - handed back to the caller as it was raised
            slot.append((False, error))
        finally:
            args = kwargs = caller = result = error = None  # noqa: F841 - dropped so that no frame keeps them


def keep(original: Callable, judge: Callable | None = None, told: bool = False, depth: int = 4) -> Callable:
    """A function that calls original (held in a generator's frame) and shows each call to judge(caller, args,
    result); told: original is handed the caller's frame first. depth generators hold it: a call made while one runs
    (in a neighbour thread, or from inside original, as an extension module's start imports another) takes the next,
    or waits for one."""
    gate_code: list = []
    sends = []
    for _ in range(depth):
        send = _keeper(original, judge, gate_code, told).send
        send(None)
        sends.append(send)
    constants = {
        "__sends__": tuple(sends),
        "__busy__": ValueError,
        "__closed__": StopIteration,
        "__error__": RuntimeError,
        "__wait__": time.sleep,
    }
    code = _TEMPLATE.replace(
        co_consts=tuple(constants.get(const, const) if type(const) is str else const for const in _TEMPLATE.co_consts)
    )
    stand_in = types.FunctionType(code, {"__builtins__": {}}, getattr(original, "__name__", "stand_in"))
    gate_code.append(code)
    stand_in.__qualname__ = stand_in.__name__
    stand_in.__doc__ = getattr(original, "__doc__", None)
    return stand_in
