"""`python -m autograder grade DIR --out OUT`: grade a whole class folder, fast, without losing a result.

DIR holds one entry per student (intake.py: folders, git repositories, notebooks). OUT gets OUT/<student>.json
for each (check --json's object plus student, source, commit or sha256, grader_version, graded_at), written
atomically as soon as it is decided; OUT/grades.csv (student, q1..q10, total, status, committed_at, late_hours),
rewritten atomically after each result; OUT/grading.log, one JSON line per run and per student graded; and at the end
the class summary (summary.py, with summary-public.html for the class), similarity.csv (similarity.py) and the LMS
gradebooks (exports.py's EXPORTS), whose column is the course's lms_name in every language. A file of OUT that cannot be
written (a full disk) stops the run with OutputError: exit status RUN_FAILED, nothing partial left, the reason said. --student NAME grades only those
entries, keeping the others' reports; --deadline DATE grades each repository's last commit before DATE. A student whose report exists with
the same fingerprint (commit and hash of the graded files) and grader version is not graded again, unless
--force: an interrupted run started again with the same command grades only what is missing or changed.

Locally the entries are graded by --jobs worker processes (default: the core count). On Linux the driver imports
torch, pytest and the grading engine once, then forks the workers, which therefore start with all of it imported (on
macOS and Windows, where a fork after torch is unsafe or impossible, each worker is spawned: portability.py);
each starts one Sandbox (whose pristine process imports torch once, then forks a zygote for each entry, in
milliseconds) and keeps it for its whole life, grading one entry at a time in one pytest run (the suites collected once) and sending each report back as soon as it is done. With
--scheduler the same work goes to a Dask cluster (cluster.py), and the results come back to the same on_result.
"""
import argparse
import dataclasses
import datetime
import errno
import functools
import gc
import json
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
import unicodedata
from collections import Counter, deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import wait
from pathlib import Path

from ..course.manifest import Course, find_root, load_course
from ..course.results import FLAGGED, number
from ..i18n import _
from ..engine.stopping import STOPPING_SIGNALS, Stopped, exit_status, stop_on_signals
from ..sandbox import missing_walls, process_state, sweep_stale
from . import similarity, summary
from .portability import Locked, exclusive, start_method
from .exports import EXPORTS, grades_csv, safe_cell
from .intake import Contents, Entry, discover, fingerprint_of, read_entry, student_key
from .entry import EntryReport
from .summary import Summary
from .work import failed_report, grader_version, unreadable_report

USAGE_ERROR, SOME_UNREADABLE, RUN_FAILED, INTERRUPTED = 2, 1, 3, 130
IN_FLIGHT = ".in-flight"  # in OUT: the students being graded now; left there by a run that was killed, read by the next
GRADES, LOG, LOCK = EXPORTS["grades"].file, "grading.log", ".grading.lock"
ATTEMPTS = 2  # an entry whose worker process dies this many times is reported (grader_error) instead of retried
PR_SET_PDEATHSIG = 1
ZYGOTE_START = 300  # seconds a worker waits for its sandbox to be ready before grading anyway
STOP_SECONDS = 0.5  # how long a stopped worker has to kill its sandbox's question and remove its folders


class UsageError(Exception):
    """A bad command line or class folder: one line, exit status 2."""


class OutputError(Exception):
    """A file of OUT could not be written (a full disk, a quota, no permission): the run itself failed, exit status 3."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(f"{path}: {error}")
        self.path, self.error = path, error

    def advice(self, out: Path) -> str:
        """What went wrong, where, and what to do (out: the run's OUT), in one paragraph."""
        full = {errno.ENOSPC: _("the disk is full"), getattr(errno, "EDQUOT", errno.ENOSPC): _("your disk quota is used up")}
        cause = full.get(self.error.errno) or {errno.EROFS: _("the disk is read-only"), errno.EACCES: _("you may not write there"),
                                               errno.EPERM: _("you may not write there")}.get(self.error.errno, "")
        said = _("{path} could not be written: {cause} ({error}). Nothing partial was written: every report, and grades.csv, in {out} "
                 "is whole and as it was.").format(path=self.path, cause=cause or type(self.error).__name__, error=self.error.strerror or self.error,
                                                   out=out)
        if self.error.errno in full:
            return said + " " + _("Make room on the disk that holds {out} (`df -h {out}` shows it) or give another --out, then run the same "
                                  "command again: it grades only what is missing.").format(out=out)
        return said + " " + _("Give --out a folder you can write to, or fix this one, then run the same command again: it grades only "
                              "what is missing.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments main() reads, for the command line's `grade` subcommand."""
    parser.add_argument("dir", type=Path, metavar="DIR", help="the class folder: one folder, repository or notebook per student")
    parser.add_argument("--out", type=Path, required=True, metavar="OUT", help="where the reports and grades.csv go")
    parser.add_argument("--jobs", type=int, default=None, metavar="N", help="worker processes (default: the number of cores)")
    parser.add_argument("--force", action="store_true", help="grade every student again, even those whose files have not changed")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS", help="grade on the Dask cluster whose scheduler is at ADDRESS")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--student", action="append", default=None, metavar="NAME", help="grade only this student again (repeatable)")
    parser.add_argument("--deadline", default=None, metavar="DATE", help="grade each repository's last commit before DATE")
    parser.add_argument("--allow-weak-isolation", action="store_true",
                        help="grade even where the kernel walls around each student's code (seccomp, Landlock) cannot be put up")


# -- files in OUT ------------------------------------------------------------------------------------------------


def write_atomically(path: Path, data: bytes, sync: bool = True) -> None:
    """Replace path with data in one step: a reader (or a crash) sees the old file or the new one, never a part;
    OutputError when it cannot be written (a full disk), with the temporary file removed."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise OutputError(path, error) from error


def report_path(out: Path, student: str) -> Path:
    """OUT/<student>.json."""
    return out / f"{student}.json"


def feedback_path(out: Path, student: str) -> Path:
    """OUT/<student>.feedback.md: what to hand back to the student (course.yaml's `feedback:` decides what it shows)."""
    return out / f"{student}.feedback.md"


def write_feedback(course: Course, out: Path, student: str, report: EntryReport) -> None:
    """Write the student's feedback file beside their report."""
    from ..course.feedback import markdown

    write_atomically(feedback_path(out, student), markdown(course, report.to_dict(), student).encode("utf-8"), sync=False)


def load_report(out: Path, student: str) -> EntryReport | None:
    """The student's report in OUT, or None when there is none (or it cannot be read)."""
    try:
        return EntryReport.from_dict(json.loads(report_path(out, student).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def is_current(report: EntryReport | None, found: dict, version: str) -> bool:
    """True when report was made by this grader version from the same files (and was not a failure of the grader)."""
    written = report.to_dict() if report is not None else {}
    return (report is not None and report.grader_version == version and not report.grader_error
            and "sha256" in found and all(written.get(key) == value for key, value in found.items()))


def write_class_files(course: Course, out: Path, reports: dict[str, EntryReport]) -> Summary:
    """The gradebook files (exports.py's EXPORTS), the class summary (summary.md, .html, .png) and similarity.csv."""
    write = functools.partial(write_atomically, sync=False)
    for export in EXPORTS.values():
        write(out / export.file, export.write(course, reports))
    written = {student: report.to_dict() for student, report in reports.items()}
    found = summary.write(out, written, course.title, course.numbers, write, {q.number: q.requires for q in course.questions})
    write(out / similarity.FILE, similarity.csv_file(found.similar, safe_cell))
    return found


def _open_log(out: Path) -> int:
    """OUT/grading.log opened for appending (a file descriptor); OutputError when it cannot be."""
    try:
        return os.open(out / LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o644)
    except OSError as error:
        raise OutputError(out / LOG, error) from error


def log_line(out: Path, log: int, fields: dict) -> None:
    """Append one JSON line to the log whole, or nothing of it (a full disk): OutputError then, the log as it was."""
    line = (json.dumps({"at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **fields}) + "\n").encode()
    end = os.lseek(log, 0, os.SEEK_END)
    try:
        if os.write(log, line) != len(line):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    except OSError as error:
        try:
            os.ftruncate(log, end)  # no half line
        except OSError:
            pass
        raise OutputError(out / LOG, error) from error


class Results:
    """The class's reports as they arrive: each written to OUT at once, grades.csv rewritten, the log appended."""

    def __init__(self, course: Course, out: Path, kept: dict[str, EntryReport]) -> None:
        self.course, self.out = course, out
        self.reports = dict(kept)
        self.graded: list[str] = []
        self.log = _open_log(out)
        write_atomically(out / GRADES, grades_csv(course, self.reports), sync=False)
        for student, report in kept.items():  # written again: the course's feedback setting may have changed since
            write_feedback(course, out, student, report)

    def event(self, **fields: object) -> None:
        """One line of OUT/grading.log (OutputError when it cannot be written)."""
        log_line(self.out, self.log, fields)

    def add(self, entry: Entry, report: EntryReport) -> None:
        """Record one student's report: its file, grades.csv, and a line in the log."""
        worker = report.worker  # what the driver learns, not the student's report
        report = dataclasses.replace(report, student=entry.student, worker=None)
        write_atomically(report_path(self.out, entry.student), (json.dumps(report.to_dict(), indent=1) + "\n").encode())
        write_feedback(self.course, self.out, entry.student, report)
        self.reports[entry.student] = report
        self.graded.append(entry.student)
        write_atomically(self.out / GRADES, grades_csv(self.course, self.reports), sync=False)
        self.event(event="graded", student=entry.student, score=report.score, graded_at=report.graded_at or None,
                   sha256=report.sha256 or None, commit=report.commit or None, problem=report.problem or None, worker=worker)

    def close(self) -> None:
        """Close the log."""
        os.close(self.log)


# -- local workers ---------------------------------------------------------------------------------------------


def _preload(entries: list[Entry]) -> None:
    """Import, once in the driver, what every worker needs: forked workers start with it all imported."""
    import torch

    torch.set_num_threads(1)  # the oracle works on tiny tensors: a thread pool only adds waiting
    import pytest  # noqa: F401

    from ..engine import plugin, run  # noqa: F401

    if any(entry.kind == "notebook" for entry in entries):
        import nbformat  # noqa: F401


def _die_with_parent(parent: int) -> None:
    """This worker is killed when the driver dies (even by SIGKILL, on Linux), and keeps off the terminal's Ctrl-C (POSIX)."""
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
    """A worker's life: one Sandbox and one pytest run; grade each entry received and send back (index, report); stop on None."""
    _die_with_parent(parent)
    _preload([])  # a spawned worker (macOS, Windows) imports here what a forked one has from the driver
    for signum in STOPPING_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)  # not the driver's handler: until the sandbox exists, a stop just ends this process
    from ..sandbox import Sandbox
    from .work import grade_entries

    gc.freeze()  # what the driver imported stays out of the collector's way (and its pages shared)
    sandbox = Sandbox(Path(scratch_root))  # beside the other workers' sandboxes and packages, which no student's code may read
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
        """The entries the driver sends, one at a time (it sends the next once this one's report is back), until None."""
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
        """scratch: a folder for the workers' packages, which this pool's owner removes; hidden: folders no student's code may
        read (OUT, where the classmates' reports are, and what the caller adds)."""
        self.course, self.jobs, self.scratch, self.hidden = course, jobs, scratch, hidden
        self.context = multiprocessing.get_context(start_method())
        self.workers: list[tuple[object, object]] = []  # (process, connection)

    def _start(self) -> tuple[object, object]:
        mine, theirs = self.context.Pipe()
        process = self.context.Process(target=_worker, args=(theirs, self.course, os.getpid(), str(self.scratch), tuple(map(str, self.hidden))),
                                       daemon=True)
        process.start()
        theirs.close()
        self.workers.append((process, mine))
        return process, mine

    def run(self, entries: list[Entry], on_result: Callable[[Entry, EntryReport], None],
            on_start: Callable[[Entry], None] = lambda entry: None) -> None:
        """Grade entries, calling on_start(entry) as each is given to a worker and on_result(entry, report) in this process as
        each one is done."""
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
                sentinels = {process.sentinel: (process, connection) for process, connection in self.workers if connection in busy}
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
                            reason = _("the grading worker process died {attempts} times while grading this entry "
                                       "(exit code {code}); run the command again").format(attempts=ATTEMPTS, code=process.exitcode)
                            on_result(entry, dataclasses.replace(unreadable_report(self.course, entry, read_entry(entry), reason),
                                                                 grader_error=True))
                        else:
                            waiting.appendleft(index)
                        if waiting:
                            give(*self._start())
        except BaseException:  # Ctrl-C, or on_result failed: the students being graded now are left for the next run
            self.kill()
            raise
        self.stop()

    def kill(self) -> None:
        """Stop at once, whatever the workers are doing (what they grade is not written): each is asked (SIGTERM) to kill
        the question its sandbox runs and to remove its folders, and is killed if it has not done so within STOP_SECONDS."""
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


# -- the command ---------------------------------------------------------------------------------------------


def _progress(total: int, quiet: bool) -> object:
    """A tqdm bar on stderr (counts, rate, time left), disabled when stderr is not a terminal or with --quiet."""
    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread: the workers are forked after the bar is made
    return tqdm(total=total, unit="student", file=sys.stderr, disable=quiet or not sys.stderr.isatty(), dynamic_ncols=True,
                smoothing=0.05, bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]{postfix}")


def display_width(text: str) -> int:
    """The columns text takes in a terminal: a wide (CJK) character two, a combining accent or a zero-width one none."""
    return sum(0 if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf") else
               2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def score_table(course: Course, rows: list[tuple[str, dict[int, str], str]]) -> list[str]:
    """The lines of a table of scores: a header, then one row per (student, question number -> score text, total text)."""
    student, total = _("student"), _("total")
    width = max([display_width(student)] + [display_width(name) for name, _scores, _total in rows])

    def left(name: str) -> str:
        return name + " " * (width - display_width(name))

    lines = [f"{left(student)}  " + "  ".join(f"q{n:02d}".rjust(5) for n in course.numbers) + f"  {total:>6} / {course.max_score:g}"]
    for name, scores, row_total in rows:
        lines.append(f"{left(name)}  " + "  ".join(scores.get(n, "0").rjust(5) for n in course.numbers) + f"  {row_total:>6}")
    return lines


def _print_table(course: Course, entries: list[Entry], reports: dict[str, EntryReport], scores: bool = True) -> None:
    """Every student's scores and total (unless not scores: the caller prints its own), then the entries that could not
    be graded, with why."""
    rows = [(entry.student, {n: f"{score:g}" for n, score in report.scores().items()}, f"{report.score:g}")
            for entry in entries if (report := reports.get(entry.student)) is not None]
    if scores:
        print("\n".join(score_table(course, rows)))
    for entry in entries:
        report = reports.get(entry.student)
        if report is not None and report.problem:
            print(_("{student}: scored 0, {problem}").format(student=entry.student, problem=report.problem))
    for entry in entries:  # for the instructor to review: the code reached into the grader
        for question in report.questions if (report := reports.get(entry.student)) is not None else []:
            if question.get("status") == FLAGGED:
                print(_("{student}: question {number} scored 0, {reason}").format(student=entry.student, number=question.get("number"),
                                                                                  reason=question.get("reason", "")))


def _fingerprint_and_problem(course: Course, entry: Entry) -> tuple[dict, EntryReport | None]:
    """The entry's fingerprint, and its report when it cannot be graded (else None: only the worker reads it again); the
    grader's own failure to read it costs only this entry, reported with grader_error (read again by the next run)."""
    try:
        contents = read_entry(entry)
    except Exception:  # noqa: BLE001 - the grader's own fault (a student's is a Contents.problem): this entry only
        return {}, failed_report(course, entry, Contents(), traceback.format_exc())
    return fingerprint_of(contents), (unreadable_report(course, entry, contents) if contents.problem else None)


def _check_args(args: argparse.Namespace) -> tuple[Path, Path, int]:
    folder = Path(args.dir)
    if not folder.is_dir():
        raise UsageError(_("{folder} is not a folder: give the class folder, with one folder, repository or notebook per student").format(folder=folder))
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(_("--out {out} is a file: give a folder for the reports").format(out=out))
    jobs = getattr(args, "jobs", None)
    jobs = (os.cpu_count() or 1) if jobs is None else jobs
    if jobs < 1:
        raise UsageError(_("--jobs {jobs}: give at least 1 worker process (or leave --jobs out: one per core)").format(jobs=jobs))
    return folder.resolve(), out.resolve(), jobs


def parse_deadline(text: str) -> str:
    """--deadline's DATE as ISO 8601 with its offset: 2026-12-01T18:00+01:00, or local time without an offset; a date
    alone is the end of that day."""
    try:
        moment = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(_("--deadline {date} is not a date: write it as 2026-12-01 or 2026-12-01T18:00 (local time) or "
                           "2026-12-01T18:00+01:00").format(date=text)) from None
    if len(text.strip()) == len("2026-12-01"):
        moment = moment.replace(hour=23, minute=59, second=59)
    return (moment if moment.tzinfo else moment.astimezone()).isoformat()


def chosen(entries: list[Entry], students: list[str] | None, folder: Path) -> list[Entry]:
    """The entries --student names (all when it is not given); a name with no entry is a usage error."""
    if not students:
        return entries
    wanted = {student_key(name): name for name in students}
    unknown = sorted(set(wanted) - {student_key(entry.student) for entry in entries})
    if unknown:
        raise UsageError(_("--student {names}: no such entry in {folder}").format(names=", ".join(wanted[key] for key in unknown), folder=folder))
    return [entry for entry in entries if student_key(entry.student) in wanted]


def _lock(out: Path) -> object:
    """An exclusive lock on OUT for this run: two runs writing the same reports would undo each other."""
    try:
        return exclusive(out / LOCK)  # held for the whole run, closed by main()
    except Locked:
        raise UsageError(_("another `grade` run is writing to {out}: wait for it to finish").format(out=out)) from None
    except OSError as error:  # the lock file cannot be made (a full or read-only disk)
        raise OutputError(out / LOCK, error) from error


def main(args: argparse.Namespace, course: Course | None = None) -> int:
    """`grade DIR --out OUT [--jobs N] [--force] [--scheduler ADDRESS] [--quiet]`; returns the exit status.

    0: every entry graded; 1: some entries could not be read (listed, scored 0); 2: nothing gradable, or a usage error;
    3: the run itself failed (OUT could not be written: a full disk), nothing partial written.
    """
    try:
        course = course or load_course(find_root(Path.cwd()))
        folder, out, jobs = _check_args(args)
        entries = [entry for entry in discover(folder, getattr(args, "linked", False)) if entry.path != out and out not in entry.path.parents]
        if not entries:
            raise UsageError(_("nothing to grade in {folder}: it holds no folder, repository or notebook (.ipynb)").format(folder=folder))
        keys = Counter(student_key(e.student) for e in entries)
        clashes = sorted(e.path.name for e in entries if keys[student_key(e.student)] > 1)
        if clashes:
            raise UsageError(_("two entries for the same student in {folder}: {students} (a folder and a notebook or zip of the same name, or "
                               "names that differ only in case or accents' encoding?): keep one").format(folder=folder, students=", ".join(clashes[:6])))
        if getattr(args, "deadline", None):
            deadline = parse_deadline(args.deadline)
            entries = [dataclasses.replace(e, deadline=deadline) if e.kind == "repository" else e for e in entries]
        chosen(entries, getattr(args, "student", None), folder)
        weak = [] if getattr(args, "scheduler", None) else missing_walls()  # a cluster's workers are the machines that matter
        if weak and not getattr(args, "allow_weak_isolation", False):
            raise UsageError(_("this machine cannot put up {walls} around each student's code, so a hostile submission could reach "
                               "the grader or its classmates: grade on Linux with both, or pass --allow-weak-isolation to grade anyway "
                               "(the reports and grades.csv then say so)").format(walls=", ".join(weak)))
        args.weak_isolation = weak
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise OutputError(out, error) from error
        lock = _lock(out)
    except UsageError as error:
        print(_("autograder: {error}").format(error=error), file=sys.stderr)
        return USAGE_ERROR
    except OutputError as error:
        return _run_failed(out, error)
    try:
        with stop_on_signals():  # kill, timeout, Slurm, a closed terminal: stopped as by Ctrl-C
            return _grade(course, args, folder, out, jobs, entries)
    except OutputError as error:
        return _run_failed(out, error)
    finally:
        lock.close()


def _run_failed(out: Path, error: OutputError) -> int:
    """Say that the run itself failed (OUT could not be written), where and what to do; log it in OUT when there is room."""
    try:
        log = _open_log(out)
        try:
            log_line(out, log, {"event": "failed", "path": str(error.path), "errno": error.error.errno, "error": str(error.error),
                                "pid": os.getpid()})
        finally:
            os.close(log)
        logged = _("the run's failure is the last line of {log}").format(log=out / LOG)
    except OutputError:
        logged = _("{log} could not record it either").format(log=out / LOG)
    print(_("autograder: the run failed: {advice} ({logged})").format(advice=error.advice(out), logged=logged), file=sys.stderr)
    return RUN_FAILED


def _grade(course: Course, args: argparse.Namespace, folder: Path, out: Path, jobs: int, entries: list[Entry]) -> int:
    """main() once the arguments are checked and OUT is locked."""
    from ..engine.secret import for_class_grading

    quiet = getattr(args, "quiet", False)
    weak = getattr(args, "weak_isolation", [])
    if weak:
        print(_("autograder: weak isolation: no {walls} on this machine around each student's code (--allow-weak-isolation)").format(
            walls=", ".join(weak)), file=sys.stderr)
    for_class_grading()  # class grading draws its inputs from the course secret, made on the first run (forked workers inherit it)
    version = grader_version(course)
    for left in out.glob(".*.tmp"):  # what a killed run was writing: never a report (those are renamed into place whole)
        left.unlink(missing_ok=True)
    only = {entry.student for entry in chosen(entries, getattr(args, "student", None), folder)}
    kept = {} if only == {e.student for e in entries} else {  # --student: the others' reports stay as they are
        e.student: report for e in entries if e.student not in only and (report := load_report(out, e.student)) is not None}
    regrade = [entry for entry in entries if entry.student in only]
    with ThreadPoolExecutor(8) as threads:  # git and file reads: mostly waiting
        read = dict(zip((e.student for e in regrade), threads.map(functools.partial(_fingerprint_and_problem, course), regrade)))
    todo, unreadable_now = [], []
    for entry in regrade:
        report = None if getattr(args, "force", False) or getattr(args, "student", None) else load_report(out, entry.student)
        found, unreadable = read[entry.student]
        if is_current(report, found, version):
            kept[entry.student] = report
        elif unreadable is not None:  # decided here: no worker needed to say that it cannot be read
            unreadable_now.append((entry, unreadable))
        else:
            todo.append(entry)
    del read
    suspects = read_in_flight(out)  # being graded when an earlier run was killed: graded last, their reports marked
    todo.sort(key=lambda entry: entry.student in suspects)
    results = Results(course, out, kept)
    results.event(event="run", entries=len(entries), to_grade=len(todo), kept=len(kept), jobs=jobs, scheduler=getattr(args, "scheduler", None),
                  grader_version=version, pid=os.getpid())
    bar = _progress(len(todo) + len(unreadable_now), quiet)
    problems = 0
    own = process_state(os.getpid())  # this run's limits, priority and CPUs, read again after each student
    in_flight: set[str] = set()

    def on_start(entry: Entry) -> None:
        in_flight.add(entry.student)
        write_in_flight(out, in_flight | (suspects - set(results.graded)))

    def on_result(entry: Entry, report: EntryReport) -> None:
        nonlocal problems
        if own is not None and process_state(os.getpid()) != own:  # its report is not written: it is graded again, last
            raise GraderChanged(sorted(in_flight | {entry.student}))
        if weak:
            report = dataclasses.replace(report, weak_isolation=weak)
        if entry.student in suspects:
            report = dataclasses.replace(report, in_a_killed_run=True)
            results.event(event="in_a_killed_run", student=entry.student)
        results.add(entry, report)
        in_flight.discard(entry.student)
        write_in_flight(out, in_flight | (suspects - set(results.graded)))
        problems += bool(report.problem)
        bar.update(1)
        if problems:
            bar.set_postfix_str(_("{count} unreadable").format(count=problems), refresh=False)

    pool = None
    hidden = (out, *getattr(args, "hidden", ()))  # OUT (classmates' reports) and what the caller adds: no student reads them
    try:
        for entry, report in unreadable_now:
            on_result(entry, report)
        scheduler = getattr(args, "scheduler", None)
        if todo and scheduler:
            try:
                from .cluster import ClusterError, run_on_cluster
            except ImportError as error:
                print(_("autograder: --scheduler needs Dask's distributed package ({error}): pip install distributed").format(error=error),
                      file=sys.stderr)
                return USAGE_ERROR
            try:
                run_on_cluster(course, todo, scheduler, on_result, hidden=hidden)
            except ClusterError as error:
                bar.close()
                print(_("autograder: {error}").format(error=error), file=sys.stderr)
                return USAGE_ERROR
        elif todo:
            _preload(todo)
            sweep_stale(Path(tempfile.gettempdir()))  # what runs killed before this one left behind
            scratch = Path(tempfile.mkdtemp(prefix=f"autograder-class-{os.getpid()}-"))  # the packages being graded, one per worker
            pool = Pool(course, min(jobs, len(todo)), scratch, hidden)
            pool.run(todo, on_result, on_start)
    except GraderChanged as changed:
        if pool is not None:
            pool.kill()
        bar.close()
        write_in_flight(out, set(changed.students))
        results.event(event="grader_changed", students=changed.students)
        write_class_files(course, out, results.reports)
        names = ", ".join(changed.students)
        print(_("autograder: stopped: this run's own resource limits, priority or CPUs changed while {names} was graded, "
                "so no classmate is graded under them; the {graded} reports written before are in {out}. Look at the submission "
                "of {names}, then run the same command again: it grades {names} last").format(
            names=names, graded=len(results.graded), out=out), file=sys.stderr)
        return RUN_FAILED
    except KeyboardInterrupt as interrupt:
        if pool is not None:
            pool.kill()
        bar.close()
        write_in_flight(out, suspects - set(results.graded))  # stopped by the user: those being graded are not suspects
        results.event(event="interrupted", graded=len(results.graded), signal=signal.Signals(interrupt.signum).name if isinstance(
            interrupt, Stopped) else "SIGINT")
        write_class_files(course, out, results.reports)
        print(_("autograder: interrupted; {graded} graded in this run and written to {out}; "
                "run the same command again to grade the {left} left").format(
            graded=len(results.graded), out=out, left=len(todo) + len(unreadable_now) - len(results.graded)), file=sys.stderr)
        return exit_status(interrupt, INTERRUPTED)
    finally:
        bar.close()
        results.close()
        if pool is not None:
            shutil.rmtree(pool.scratch, ignore_errors=True)
    write_in_flight(out, set())
    reports = results.reports
    class_summary = write_class_files(course, out, reports)
    _print_table(course, entries, reports, scores=getattr(args, "table", True))  # --nbgrader prints the gradebook's
    unreadable = [e for e in entries if (report := reports.get(e.student)) is not None and report.problem]
    print(_("{count} student(s): {graded} graded now, {kept} unchanged since their last report").format(
        count=len(entries), graded=len(results.graded), kept=len(kept))
          + (_(", {count} could not be graded").format(count=len(unreadable)) if unreadable else "")
          + _("; reports and {grades} in {out}").format(grades=GRADES, out=out))
    print("\n".join(summary.lines(class_summary, out)))
    if unreadable and len(unreadable) == len(entries):
        print(_("autograder: nothing in {folder} could be graded: is it the class folder?").format(folder=folder), file=sys.stderr)
        return USAGE_ERROR
    return SOME_UNREADABLE if unreadable else 0


class GraderChanged(Exception):
    """The grading process's own limits, priority or CPUs changed during the run; students: who was being graded."""

    def __init__(self, students: list[str]) -> None:
        super().__init__(", ".join(students))
        self.students = students


def read_in_flight(out: Path) -> set[str]:
    """The students an earlier run was grading when it was killed (OUT/.in-flight); empty when it ended."""
    try:
        return set(json.loads((out / IN_FLIGHT).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return set()


def write_in_flight(out: Path, students: set[str]) -> None:
    """OUT/.in-flight: the students being graded now (removed when none is)."""
    if students:
        write_atomically(out / IN_FLIGHT, json.dumps(sorted(students)).encode(), sync=False)
    else:
        (out / IN_FLIGHT).unlink(missing_ok=True)


def cli(argv: list[str] | None = None) -> int:
    """`python -m autograder.classroom.batch DIR --out OUT ...`: the same command before the CLI wires it."""
    parser = argparse.ArgumentParser(prog="python -m autograder grade", description=_("Grade a class folder."))
    add_arguments(parser)
    return main(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(cli())
