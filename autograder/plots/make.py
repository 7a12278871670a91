"""Gather a question's picture from the sandboxed child and reference/, draw it, write the PNG: `plot N`."""
import argparse
import sys
from pathlib import Path
from typing import Callable

from ..course.manifest import Course
from ..engine.plugin import KitPlugin
from ..engine.proxy import CheckFailure, Student
from ..i18n import _
from ..recording.recorded import NotRecorded, install
from ..sandbox import Sandbox, start_sandbox

install()  # in the student build, before the plots import `reference`: the expected side comes from the recordings
from . import attention, copy_task, tanh, timing  # noqa: E402 - after install()
from .grid import Heatmaps
from .timing import Timings

GATHER: dict[int, Callable[[Student, str], Heatmaps | Timings]] = {
    3: attention.single_head,
    5: attention.heads,
    7: tanh.tanh_removal,
    9: timing.real_timings,
    10: copy_task.trained_heads,
}


def gather(course: Course, package: Path, number: int, sandbox: Sandbox) -> Heatmaps | Timings:
    """Question number's picture data: the student's code run in a child of sandbox; CheckFailure when it cannot be
    drawn."""
    question = course.question(number)
    plugin = KitPlugin(course, package, sandbox)
    student = plugin.start(question)
    try:
        return GATHER[number](student, f"{package.name}/")
    finally:
        plugin.finish(question)


def write(picture: Heatmaps | Timings, out: Path) -> Path:
    """Draw picture and save it as a PNG in out (made when missing); its path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / picture.name
    picture.figure().savefig(path, dpi=110, bbox_inches="tight")
    return path


def main(args: argparse.Namespace, course: Course, package: Path) -> int:
    """`plot N`: print the path of each PNG written (exit 0), or one line saying why question N could not be drawn
    (exit 1)."""
    number = int(args.number)
    sandbox = start_sandbox()
    try:
        picture = gather(course, package, number, sandbox)
    except CheckFailure as failure:
        print(
            _("autograder: cannot draw question {number}: {message} (`check {number}` says more)").format(
                number=number, message=failure.message
            ),
            file=sys.stderr,
        )
        return 1
    # the student build: the expected side of this picture was not recorded (question 9's fit)
    except NotRecorded as missing:
        print(
            _("autograder: cannot draw question {number}: {message}").format(number=number, message=missing),
            file=sys.stderr,
        )
        return 1
    finally:
        sandbox.close()
    print(write(picture, args.out or course.root / "plots"))
    return 0
