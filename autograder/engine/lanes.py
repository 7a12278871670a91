"""A second grading lane for one student's `check`: the questions whose suites are marked `beside` (a child that
spends seconds on its own work, as q10's training) graded by a fork of the grader, on a branch of its sandbox (the
same pristine process, zygotes of its own), while the grader grades the other questions on its own core.

Each lane grades its questions exactly as the grader alone would (its own children, time limits and checks), so the
scores are the same; only the wall time changes. The lane hands its questions' results back pickled over a pipe that
only the two processes hold (no student's code runs in either), and the grader grades the lane's questions itself
when the lane ends without them (it crashed, or was killed): a lane's failure never gives or costs a point.

Lanes run only where they cannot change anything but speed: the sandbox can branch (the Linux backend), this
process runs no other Python thread (a fork copies only the calling thread: a notebook's kernel has several; the
idle thread pool of numpy's OpenBLAS, which torch's import starts, is made safe to fork by OpenBLAS itself), it may
use two cores or more, and the machine has the memory for a second child beside the first (sandbox.room_for_a_lane).
A lane that has not ended long after its questions' own bounds (each question's wall bound, summed) is killed and its
questions graded here: a lane never hangs `check`.
"""
import os
import pickle
import select
import signal
import threading
import time
import warnings

import pytest

from ..course.results import QuestionResult
from ..sandbox import room_for_a_lane
from ..sandbox.limits import wall_seconds

MARKER = "beside"


def _cores() -> int:
    """How many cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1


def lane_items(items: list[pytest.Item]) -> list[pytest.Item]:
    """The items of the questions whose suites are marked `beside`."""
    return [item for item in items if item.get_closest_marker(MARKER) is not None]


def run_items(items: list[pytest.Item]) -> None:
    """Every item's protocol, in order, as pytest's own loop runs them."""
    for index, item in enumerate(items):
        following = items[index + 1] if index + 1 < len(items) else None
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=following)


class Lane:
    """A fork of the grader grading some items of one package; results() reads what it graded."""

    def __init__(self, pid: int, reader: int, deadline: float) -> None:
        self.pid, self.reader, self.deadline = pid, reader, deadline

    @classmethod
    def start(cls, kit: object, items: list[pytest.Item], numbers: list[int]) -> "Lane | None":
        """Fork a lane that grades items (the checks of questions numbers) with kit, on a branch of kit's sandbox;
        None where lanes cannot run (module docstring): the caller grades them itself."""
        if _cores() < 2 or threading.active_count() > 1 or not room_for_a_lane(kit.sandbox.backend):
            return None
        sandbox = kit.sandbox.branch()
        if sandbox is None:
            return None
        reader, writer = os.pipe()
        try:
            with warnings.catch_warnings():  # Python 3.12's warning counts OpenBLAS's idle pool (module docstring)
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
        except OSError:
            os.close(reader)
            os.close(writer)
            sandbox.close()
            return None
        if pid == 0:
            os.close(reader)
            _grade(kit, sandbox, items, numbers, writer)  # never returns
        os.close(writer)
        sandbox.forget()
        bound = sum(wall_seconds(kit.course.question(number).time_limit) for number in numbers)
        return cls(pid, reader, time.monotonic() + bound)

    def results(self) -> tuple[list[QuestionResult], list[str]] | None:
        """Wait for the lane to end: its questions' results and the grader errors it met, or None when it ended
        without them, or not by its deadline."""
        chunks = []
        try:
            while select.select([self.reader], [], [], max(0.0, self.deadline - time.monotonic()))[0]:
                chunk = os.read(self.reader, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
            else:
                return None  # past its deadline: stopped below
        finally:
            self.stop()
        try:
            results = pickle.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001 - a lane that died mid-write: its questions are graded again
            return None
        return results if isinstance(results, tuple) else None

    def stop(self) -> None:
        """End the lane (killed if still running) and reap it."""
        if self.reader >= 0:
            os.close(self.reader)
            self.reader = -1
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = 0


def _grade(kit: object, sandbox: object, items: list[pytest.Item], numbers: list[int], writer: int) -> None:
    """The lane's life, in the forked process: let go of the grader's sandbox, grade items on sandbox, write the
    pickled (results, grader errors) to writer, end. Nothing is written when it fails (Ctrl-C, the kit's own error):
    the grader grades them, and says what went wrong if it goes wrong again."""
    payload, code = b"", 1
    try:
        kit.sandbox.forget()
        kit.sandbox = sandbox
        run_items(items)
        payload, code = pickle.dumps((kit.report(numbers).questions, list(kit.grader_errors))), 0
    except BaseException:  # noqa: BLE001, S110 - Ctrl-C or the kit's own failure: the grader grades these questions
        pass
    finally:
        try:
            sandbox.close()
            view = memoryview(payload)
            while view:
                view = view[os.write(writer, view) :]
        finally:
            os._exit(code)
