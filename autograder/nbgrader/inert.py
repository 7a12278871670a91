"""A notebook cell kept as data: the form in which `nbgrader autograde` hands a student's code cell to its kernel.

Under nbgrader's own autograde, the kit's preprocessors (autograde.py) replace every code cell the instructor did not
write by `wrap(source)`: a marker comment, the cell's source in base64 (no text the student writes can end that literal
early), and a stand-in bound to each name the cell binds at top level (so that a test cell's visible check still
says the name is defined). The kernel runs that, never the student's code; the grading process (cell.py) reads the
source back with `unwrap` and grades it in the sandbox.
"""
import base64
import binascii
import keyword
import re

from ..i18n import _
from .package import top_level_names

MARK = "# autograder: a student's cell kept as data by `nbgrader autograde`, graded in the kit's sandbox, not run here"
STAND_IN = "_kit_not_run"
_DATA = re.compile(r"_kit_cell = '([A-Za-z0-9+/]*={0,2})'")


def defined_names(source: str) -> list[str]:
    """The names source binds at top level (functions, classes, imports, assignments; none when it does not parse),
    sorted, but those of the inert cell's own."""
    return sorted(
        name
        for name in top_level_names(source)[0]
        if name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_kit")
    )


def wrap(source: str) -> str:
    """The inert cell that stands for source in the kernel: it runs none of source's code."""
    data = base64.b64encode(source.encode("utf-8", "surrogatepass")).decode("ascii")
    why = _("this name is defined by a cell that the kit grades in its sandbox; it is not run in this kernel")
    lines = [MARK, f"_kit_cell = '{data}'"]
    names = defined_names(source)
    if names:
        lines += [
            f"def {STAND_IN}(*args, **kwargs):",
            f"    raise RuntimeError({why!r})",
            " = ".join([*names, STAND_IN]),
        ]
    return "\n".join(lines) + "\n"


def _kept(text: str) -> str | None:
    """The source an inert cell holds, or None when text is not one."""
    lines = text.split("\n", 2)
    found = _DATA.fullmatch(lines[1]) if len(lines) > 1 and lines[0] == MARK else None
    if found is None:
        return None
    try:
        return base64.b64decode(found[1], validate=True).decode("utf-8", "surrogatepass")
    except (binascii.Error, UnicodeDecodeError):
        return None


def is_inert(text: str) -> bool:
    """True when text is a cell made by wrap."""
    return _kept(text) is not None


def unwrap(text: str) -> str:
    """The source a cell made by wrap stands for; any other text as it is."""
    kept = _kept(text)
    return text if kept is None else kept
