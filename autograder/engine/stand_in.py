"""A package in which an earlier question's module that does not import is replaced by a stand-in.

When a question's module fails to import only because a module it imports from an earlier question does (a syntax
error in question 3 seen from question 9), the checks that never call that earlier code can still be graded: the
question's child imports a copy of the package where the broken module gives, for every name asked of it, a function
that raises ImportError with the reason. The copy keeps the package folder's name, so that messages name the same files,
and is made in the sandbox's own folder, hidden from every other child as the package it stands in for is.
"""
import shutil
import tempfile
from pathlib import Path

from ..course.manifest import Course, Question

# the stand-in's ImportError: the grader shows its reason alone, once, without this file's line
BROKEN = "EarlierModuleBroken"
STAND_IN = '''"""Stands in for {file}, which does not import: every name taken from it raises ImportError when called."""


class {broken}(ImportError):
    """{file} does not import."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def unavailable(*args, **kwargs):
        raise {broken}({reason!r})

    unavailable.__name__ = name
    return unavailable
'''  # noqa: E501 - a program's text, written out as it is


def broken_earlier(course: Course, question: Question, error: dict) -> Question | None:
    """The other question whose module raised error (its innermost frame is in that module's file) while question's
    module was imported; None when the error is the question's own."""
    frames = error.get("where") or []
    if not frames or not isinstance(frames[-1].get("file"), str):
        return None
    innermost = Path(frames[-1]["file"]).name
    return next(
        (other for other in course.questions if other is not question and Path(other.file).name == innermost), None
    )


def stand_in_package(package: Path, broken: Question, reason: str, private: Path) -> Path:
    """A copy of package, in a new folder inside private (the sandbox's own folder, which no other child may read), with
    broken's module replaced by a stand-in raising reason."""
    copy = Path(tempfile.mkdtemp(prefix="stand-in-", dir=private)) / package.name
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__", ".git"))
    name = Path(broken.file).name
    (copy / name).write_text(STAND_IN.format(file=broken.file, reason=reason, broken=BROKEN), encoding="utf-8")
    return copy


def remove(copy: Path) -> None:
    """Remove a copy made by stand_in_package, with its temporary folder."""
    shutil.rmtree(copy.parent, ignore_errors=True)
