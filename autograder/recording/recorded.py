"""The student build's stand-ins for the oracle (`reference`) and the known-mistakes banks, answering from recordings.

`release` leaves the instructor's `reference/` and `autograder/suites/mistakes/` out of the student build and writes
autograder/recordings/ instead: per question, every result the oracle and each known mistake gave on the inputs of the
local checks (public seeds), keyed by a digest of the arguments. install() makes `from reference import dot_product`
and the banks import modules whose functions look their call up there. A call on an input not recorded is never
guessed: it raises NotRecorded, an AssertionError, so the check fails closed with a message saying why; inside a
hypothesis example it is rejected instead (a shrink candidate the recording cannot judge is simply not taken).
"""
import importlib.abc
import importlib.machinery
import json
import sys
import types
from functools import cache
from pathlib import Path
from typing import Callable

from ..engine.mistakes import Bank, Mistake
from ..i18n import _
from .canon import Uncanonical, decode, digest, load

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"
INDEX = "index.json"
BANKS = "autograder.suites.mistakes"


class NotRecorded(AssertionError):
    """The recording holds no result for this input: the check cannot be judged on this machine."""


@cache
def _index() -> dict:
    """recordings/index.json: the oracle's modules and their functions, each with the questions that recorded it."""
    return json.loads((RECORDINGS / INDEX).read_text(encoding="utf-8"))


@cache
def _question(number: int) -> tuple[dict, list[bytes]]:
    """(table, blobs) of question number's recording."""
    return load((RECORDINGS / f"q{number:02d}.rec").read_bytes())


def _unknown() -> NotRecorded:
    """The error of an input the recording lacks; inside a hypothesis example, the example is rejected instead."""
    if "hypothesis" in sys.modules:
        from hypothesis import reject

        try:
            from hypothesis.control import currently_in_test_context
        except ImportError:  # a hypothesis too old to say: the example fails, as a check would
            pass
        else:
            if currently_in_test_context():
                reject()
    return NotRecorded(
        _(
            "this input cannot be checked locally (the student copy records the expected results of the public "
            "inputs only); the class grader checks it"
        )
    )


def _answer(entries: Callable[[], list[dict]], args: tuple, kwargs: dict) -> object:
    """The recorded result of the call (args, kwargs) in the first table of entries() holding it."""
    try:
        key = digest(args, kwargs)
    except Uncanonical:
        raise _unknown() from None
    for table, blobs in entries():
        if key in table:
            return decode(table[key], blobs)
    raise _unknown()


def oracle(name: str) -> Callable[..., object]:
    """The stand-in for the oracle function `reference.dot_product.attention` (name): its recorded results."""

    def entries() -> list:
        return [(_question(n)[0]["oracle"].get(name, {}), _question(n)[1]) for n in _index()["oracle"].get(name, [])]

    def recorded(*args: object, **kwargs: object) -> object:
        return _answer(entries, args, kwargs)

    recorded.__name__ = recorded.__qualname__ = name.rsplit(".", 1)[-1]
    recorded.__doc__ = f"{name}, answered from the recording of the public inputs."
    return recorded


def _variant(number: int, path: tuple[str | int, ...]) -> Callable[..., object]:
    """The stand-in for one function of question number's bank: path leads to its table in the recording."""

    def entries() -> list:
        table, blobs = _question(number)
        node = table["bank"]
        for step in path:
            node = node[step]
        return [(node, blobs)]

    def recorded(*args: object, **kwargs: object) -> object:
        return _answer(entries, args, kwargs)

    recorded.__name__ = recorded.__qualname__ = str(path[-1])
    return recorded


def recorded_bank(number: int) -> Bank:
    """Question number's bank: the mistakes' names, sentences and hints, each function answered from the recording."""
    bank = _question(number)[0]["bank"]
    mistakes = tuple(
        Mistake(
            m["name"],
            m["explanation"],
            m["hint"],
            {f: _variant(number, ("mistakes", i, "variants", f)) for f in m["variants"]},
            m["hint_of"],
        )
        for i, m in enumerate(bank["mistakes"])
    )
    return Bank(number, {f: _variant(number, ("correct", f)) for f in bank["correct"]}, mistakes)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports `reference`, its modules, and the banks as modules built from the recordings."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        """A spec for the names the recordings stand in for, None for any other."""
        if fullname == "reference" or fullname == BANKS:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        parent, _, leaf = fullname.rpartition(".")
        if parent == "reference" and leaf in _index()["modules"]:
            return importlib.machinery.ModuleSpec(fullname, self)
        if parent == BANKS and leaf in _index()["banks"]:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        """The module, filled in from the index (no code of the instructor's runs)."""
        module = types.ModuleType(spec.name, "Answered from the recordings of the student build.")
        parent, _, leaf = spec.name.rpartition(".")
        if spec.name in ("reference", BANKS):
            module.__path__ = []
        elif parent == "reference":
            for function in _index()["modules"][leaf]:
                setattr(module, function, oracle(f"reference.{leaf}.{function}"))
        else:
            module.BANK = recorded_bank(int(leaf[1:]))
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: create_module filled the module."""


def student_build() -> bool:
    """True in the student build: recordings shipped, no `reference/` beside the grader."""
    return (RECORDINGS / INDEX).is_file() and not (RECORDINGS.parent.parent / "reference").is_dir()


def install() -> None:
    """In the student build, make the oracle's and the banks' names import from the recordings (once)."""
    if student_build() and not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
