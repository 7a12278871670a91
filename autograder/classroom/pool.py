"""Local worker processes that grade a class: `jobs` of them (forked on Linux after the driver imported torch, pytest
and the engine; spawned elsewhere: portability.py), each with one Sandbox for its whole life, grading one entry at a
time in one pytest run (work.py's grade_entries) and sending each report back as soon as it is decided. A worker that
dies is replaced; an entry whose worker dies ATTEMPTS times is reported as the grader's failure."""
import dataclasses
import gc
import multiprocessing
import os
import shutil
import signal
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator
from multiprocessing.connection import wait
from pathlib import Path

from ..course.class_report import EntryReport
from ..course.manifest import Course
from ..engine.stopping import STOPPING_SIGNALS
from ..i18n import _
from ..sandbox import start_sandbox
from .intake import Entry, read_entry
from .portability import start_method
from .work import grade_entries, unreadable_report

ATTEMPTS = 2  # an entry whose worker process dies this many times is reported (grader_error) instead of retried
PR_SET_PDEATHSIG = 1
ZYGOTE_START = 300  # seconds a worker waits for its sandbox to be ready before grading anyway
STOP_SECONDS = 0.5  # how long a stopped worker has to kill its sandbox's question and remove its folders


def preload(entries: list[Entry]) -> None:
    """Import, once in the driver, what every worker needs: forked workers start with it all imported."""
    import torch

    torch.set_num_threads(1)  # the oracle works on tiny tensors: a thread pool only adds waiting
    import pytest  # noqa: F401

    from ..engine import plugin, run  # noqa: F401

    if any(entry.kind == "notebook" for entry in entries):
        import nbformat  # noqa: F401


def _die_with_parent(parent: int) -> None:
    """This worker is killed when the driver dies (even by SIGKILL, on Linux), and keeps off the terminal's Ctrl-C
    (POSIX)."""
    if hasattr(os, "setpgrp"):
        os.setpgrp()  # Ctrl-C reaches the driver only, which stops the workers itself: no half-graded report is sent
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the driver died before the line above
        os._exit(1)


def _worker(connection: object, course: Course, parent: int, scratch_root: str, hidden: tuple[str, ...]) -> None:
    """A worker's life: one Sandbox and one pytest run; grade each entry received and send back (index, report); stop
    on None."""
    _die_with_parent(parent)
    preload([])  # a spawned worker (macOS, Windows) imports here what a forked one has from the driver
    for signum in STOPPING_SIGNALS:
        # not the driver's handler: until the sandbox exists, a stop just ends this process
        signal.signal(signum, signal.SIG_DFL)
    gc.freeze()  # what the driver imported stays out of the collector's way (and its pages shared)
    # beside the other workers' sandboxes and packages, which no student's code may read
    sandbox = start_sandbox(Path(scratch_root))
    scratch: list[Path] = []

    def stop(_signum: int, _frame: object) -> None:
        """The driver stops this worker (Pool.kill): the question running now is killed with the sandbox, at once."""
        sandbox.close()
        for folder in scratch:
            shutil.rmtree(folder, ignore_errors=True)
        os._exit(1)

    signal.signal(signal.SIGTERM, stop)
    # Wait for the zygote's first word ("ready", left unread for the sandbox): a question's time limit counts from its
    # job being sent, so the first student must not pay for the zygote's import of torch on a busy machine.
    sandbox.wait_ready(ZYGOTE_START)
    scratch.append(Path(tempfile.mkdtemp(prefix="worker-", dir=scratch_root)))
    indices: dict[int, int] = {}  # id(entry) -> its index in the driver's list

    def received() -> Iterator[Entry]:
        """The entries the driver sends, one at a time (it sends the next once this one's report is back), until
        None."""
        try:
            while (job := connection.recv()) is not None:
                indices[id(job[1])] = job[0]
                yield job[1]
        except (EOFError, OSError):
            return

    def send(entry: Entry, report: EntryReport) -> None:
        report.worker = os.getpid()
        connection.send((indices.pop(id(entry)), report))

    try:
        grade_entries(course, received(), sandbox, scratch[0], send, hidden=(Path(scratch_root), *map(Path, hidden)))
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        sandbox.close()
        shutil.rmtree(scratch[0], ignore_errors=True)


class Pool:
    """`jobs` worker processes (forked on Linux, spawned elsewhere: portability.py), each grading one entry at a time; a
    worker that dies is replaced."""

    def __init__(self, course: Course, jobs: int, scratch: Path, hidden: tuple[Path, ...]) -> None:
        """scratch: a folder for the workers' packages, which this pool's owner removes; hidden: folders no student's
        code may read (OUT, where the classmates' reports are, and what the caller adds)."""
        self.course, self.jobs, self.scratch, self.hidden = course, jobs, scratch, hidden
        self.context = multiprocessing.get_context(start_method())
        self.workers: list[tuple[object, object]] = []  # (process, connection)

    def _start(self) -> tuple[object, object]:
        mine, theirs = self.context.Pipe()
        process = self.context.Process(
            target=_worker,
            args=(theirs, self.course, os.getpid(), str(self.scratch), tuple(map(str, self.hidden))),
            daemon=True,
        )
        process.start()
        theirs.close()
        self.workers.append((process, mine))
        return process, mine

    def run(
        self,
        entries: list[Entry],
        on_result: Callable[[Entry, EntryReport], None],
        on_start: Callable[[Entry], None] = lambda entry: None,
    ) -> None:
        """Grade entries, calling on_start(entry) as each is given to a worker and on_result(entry, report) in this
        process as each one is done."""
        waiting = deque(range(len(entries)))
        deaths: dict[int, int] = {}
        busy: dict[object, int] = {}  # connection -> index of the entry it grades

        def give(process: object, connection: object) -> None:
            if waiting:
                index = waiting.popleft()
                on_start(entries[index])
                connection.send((index, entries[index]))
                busy[connection] = index
            else:
                connection.send(None)

        try:
            for _worker_number in range(min(self.jobs, len(entries))):
                give(*self._start())
            while busy:
                sentinels = {
                    process.sentinel: (process, connection)
                    for process, connection in self.workers
                    if connection in busy
                }
                for ready in wait(list(busy) + list(sentinels)):
                    if ready in busy:
                        process, connection = next(w for w in self.workers if w[1] is ready)
                        try:
                            index, report = connection.recv()
                        except (EOFError, OSError):
                            continue  # the worker died: its sentinel says so
                        del busy[connection]
                        on_result(entries[index], report)
                        give(process, connection)
                    elif ready in sentinels:
                        process, connection = sentinels[ready]
                        if connection not in busy:
                            continue
                        index = busy.pop(connection)
                        self.workers.remove((process, connection))
                        connection.close()
                        process.join(1)
                        deaths[index] = deaths.get(index, 0) + 1
                        if deaths[index] >= ATTEMPTS:
                            entry = entries[index]
                            reason = _(
                                "the grading worker process died {attempts} times while grading this entry "
                                "(exit code {code}); run the command again"
                            ).format(attempts=ATTEMPTS, code=process.exitcode)
                            on_result(
                                entry,
                                dataclasses.replace(
                                    unreadable_report(self.course, entry, read_entry(entry), reason), grader_error=True
                                ),
                            )
                        else:
                            waiting.appendleft(index)
                        if waiting:
                            give(*self._start())
        except BaseException:  # Ctrl-C, or on_result failed: the students being graded now are left for the next run
            self.kill()
            raise
        self.stop()

    def kill(self) -> None:
        """Stop at once, whatever the workers are doing (what they grade is not written): each is asked (SIGTERM) to
        kill the question its sandbox runs and to remove its folders, and is killed if it has not done so within
        STOP_SECONDS."""
        for process, _connection in self.workers:
            if process.is_alive():
                process.terminate()
        deadline = time.monotonic() + STOP_SECONDS
        for process, connection in self.workers:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
            connection.close()
        self.workers = []

    def stop(self) -> None:
        """Stop every worker: a busy one is killed (its entry is not written, so the next run grades it)."""
        for process, connection in self.workers:
            if process.is_alive():
                try:
                    connection.send(None)
                except OSError:
                    pass
        deadline = time.monotonic() + 5
        for process, connection in self.workers:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
            connection.close()
        self.workers = []
