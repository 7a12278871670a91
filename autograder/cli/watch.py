"""`python -m autograder watch`: re-grade the current question at every save, and move on once it is at full marks."""
import contextlib
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from ..course.manifest import Course
from ..course.results import PASSED
from ..i18n import _
from ..sandbox import Sandbox, start_sandbox
from .progress import at_full_marks, remember
from ..course.text import wrap
from .report import render

SAVE_POLL_SECONDS = 0.5  # how often the watched files' modification times are read
SETTLE_SECONDS = 0.1  # a save is graded once the files stop changing for this long (editors write in several steps)
BAR_WIDTH = 30
CLEAR = "\033[2J\033[H"  # clear the terminal, cursor to the top left

Stamp = dict[Path, tuple[int, int] | None]  # file -> (modification time in ns, size), None while it is missing


class _Interrupt:
    """SIGINT handler that remembers it fired: pytest swallows the KeyboardInterrupt raised while it runs."""

    def __init__(self) -> None:
        self.seen = self.held = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        """Record the Ctrl-C and stop whatever runs now, unless it is held."""
        self.seen = True
        if not self.held:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def held_back(self) -> Iterator[None]:
        """Let the block finish before a Ctrl-C takes effect (an import of torch cut short cannot be redone)."""
        self.held = True
        try:
            yield
        finally:
            self.held = False
        if self.seen:
            raise KeyboardInterrupt


def imported(course: Course, number: int) -> list[int]:
    """The questions whose code question number runs (its `requires`, and theirs), in course order."""
    found: set[int] = set()
    pending = list(course.question(number).requires)
    while pending:
        other = pending.pop()
        if other not in found:
            found.add(other)
            pending += course.question(other).requires
    return [n for n in course.numbers if n in found]


def watched_files(course: Course, package: Path, number: int) -> dict[Path, int]:
    """The exercise files a save of which re-grades question number: its own and those it imports -> their question."""
    return {package / Path(course.question(n).file).name: n for n in [*imported(course, number), number]}


def stamp(paths: list[Path]) -> Stamp:
    """Each file's modification time and size, None for a missing file."""
    stamps: Stamp = {}
    for path in paths:
        try:
            status = path.stat()
            stamps[path] = (status.st_mtime_ns, status.st_size)
        except OSError:
            stamps[path] = None
    return stamps


def wait_for_save(before: Stamp, interval: float = SAVE_POLL_SECONDS) -> list[Path]:
    """Poll the files of before every interval seconds until one differs from before and settles; the changed files."""
    paths = list(before)
    now = stamp(paths)  # a save made while the last run was graded counts at once
    while now == before:
        time.sleep(interval)
        now = stamp(paths)
    while True:  # wait for the editor to finish writing
        time.sleep(SETTLE_SECONDS)
        settled = stamp(paths)
        if settled == now:
            return [path for path in paths if now[path] != before[path]]
        now = settled


def progress_bar(done: int, total: int) -> str:
    """`[#####-----] 3 / 10 questions at full marks`: done of total as a bar of BAR_WIDTH characters."""
    filled = round(BAR_WIDTH * done / total) if total else BAR_WIDTH
    return f"[{'#' * filled}{'-' * (BAR_WIDTH - filled)}] " + _("{done} / {total} questions at full marks").format(
        done=done, total=total
    )


def _done(course: Course) -> list[int]:
    """Questions at full marks at their last check, with their file unchanged since."""
    return [q.number for q in course.questions if at_full_marks(course, q)]


def _next_question(course: Course, after: int | None) -> int | None:
    """The first question after `after` (then from the start) not at full marks; None when every one is."""
    numbers = course.numbers
    if after is not None:
        index = numbers.index(after) + 1
        numbers = numbers[index:] + numbers[:index]
    done = set(_done(course))
    return next((n for n in numbers if n not in done), None)


class Watch:
    """One watch session: a sandbox kept open (torch imported once), the question followed, the Ctrl-C handler."""

    def __init__(self, course: Course, package: Path, sandbox: Sandbox, interrupt: _Interrupt) -> None:
        """Bind the session to an open sandbox, which the caller closes."""
        self.course, self.package, self.sandbox, self.interrupt = course, package, sandbox, interrupt
        self.graded: Stamp = {}  # the followed question's files as they were when it was last graded

    def grade(self, numbers: list[int]) -> int | None:
        """Grade numbers (the last one is followed), and the next ones while each reaches full marks.

        Returns the question to watch next, None once every question is at full marks.
        """
        from ..engine.run import run_suites

        while True:
            print(_("Checking question {number} ...").format(number=numbers[-1]))
            self.graded = stamp(list(watched_files(self.course, self.package, numbers[-1])))
            report = run_suites(self.course, self.sandbox, self.package, numbers, notes=True)
            if self.interrupt.seen:  # pytest caught the KeyboardInterrupt: the report is unfinished
                raise KeyboardInterrupt
            remember(self.course, report)
            print(render(report, self.course, "exercises/", answers=()))
            current = numbers[-1]
            if report.questions[-1].status != PASSED:
                return current
            following = _next_question(self.course, current)
            if following is None:
                return None
            moving_on = _("Question {current} is at full marks: on to question {following}, {title}.").format(
                current=current, following=following, title=self.course.question(following).title
            )
            print(f"\n{moving_on}\n")
            numbers = [following]

    def status(self, number: int) -> None:
        """The progress bar, and what is watched now."""
        files = watched_files(self.course, self.package, number)
        others = [path.name for path, n in files.items() if n != number]
        imports = _(" (and {files}, which it runs)").format(files=", ".join(others)) if others else ""
        print(f"\n{progress_bar(len(_done(self.course)), len(self.course.questions))}")
        print(
            wrap(
                _("Watching question {number}: save exercises/{file}{imports} to check it again; Ctrl-C quits.").format(
                    number=number, file=Path(self.course.question(number).file).name, imports=imports
                ),
                "",
            )
        )

    def follow(self, start: int) -> None:
        """Grade start, then wait for saves and re-grade, moving on at full marks, until every question is done."""
        current = self.grade([start])
        while current is not None:
            self.status(current)
            files = watched_files(self.course, self.package, current)
            changed = wait_for_save(self.graded)
            if sys.stdout.isatty():
                print(CLEAR, end="")  # one run per screen
            else:
                print("\n" + "=" * 2 * BAR_WIDTH)
            print(
                _("Saved {files} at {time}.").format(
                    files=", ".join(path.name for path in changed), time=time.strftime("%H:%M:%S")
                )
            )
            current = self.grade(sorted({files[path] for path in changed} - {current}) + [current])
        print(f"\n{progress_bar(len(self.course.questions), len(self.course.questions))}")
        print(_("Every question is at full marks: well done. `python -m autograder selftest N` opens the self-tests."))


def watch(course: Course, package: Path, start: int | None = None) -> int:
    """Follow the student through package from start (default: the first question not at full marks); exit status 0."""
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(line_buffering=True)  # each line shows at once, also through a pipe
    interrupt = _Interrupt()
    previous = signal.signal(signal.SIGINT, interrupt)
    sandbox = None
    try:
        first = start or _next_question(course, None)
        if first is None:
            print(_("Every question is at full marks already: nothing left to watch."))
            return 0
        with interrupt.held_back():
            sandbox = start_sandbox()  # first: its import of torch overlaps the grader's
            import torch

            torch.set_num_threads(1)  # as grade_many does: the oracle works on tiny tensors
        Watch(course, package, sandbox, interrupt).follow(first)
    except KeyboardInterrupt:
        after_echo = "\n" if sys.stdout.isatty() else ""  # the terminal has just echoed ^C
        print(
            after_echo
            + _("Stopped watching: {done} / {total} questions at full marks.").format(
                done=len(_done(course)), total=len(course.questions)
            )
        )
    finally:
        signal.signal(signal.SIGINT, previous)
        if sandbox is not None:
            sandbox.close()
    return 0
