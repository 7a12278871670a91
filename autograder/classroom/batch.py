"""`python -m autograder grade DIR --out OUT`: grade a whole class folder, fast, without losing a result.

DIR holds one entry per student (intake.py: folders, git repositories, notebooks). OUT gets OUT/<student>.json for
each (check --json's object plus student, source, commit or sha256, grader_version, graded_at), written atomically as
soon as it is decided; OUT/grades.csv (student, q1..q10, total, status, committed_at, late_hours), rewritten
atomically after each result; OUT/grading.log, one JSON line per run and per student graded; and at the end the class
summary (summary.py, with summary-public.html for the class), similarity.csv (similarity.py) and the LMS gradebooks
(exports.py's EXPORTS), whose column is the course's lms_name in every language. A file of OUT that cannot be written
(a full disk) stops the run with OutputError: exit status RUN_FAILED, nothing partial left, the reason said.
--student NAME grades only those entries, keeping the others' reports; --deadline DATE grades each repository's last
commit before DATE. A student whose report exists with the same fingerprint (commit and hash of the graded files) and
grader version is not graded again, unless --force: an interrupted run started again with the same command grades
only what is missing or changed.

Locally the entries are graded by --jobs worker processes (default: the core count). On Linux the driver imports
torch, pytest and the grading engine once, then forks the workers, which therefore start with all of it imported (on
macOS and Windows, where a fork after torch is unsafe or impossible, each worker is spawned: portability.py); each
starts one Sandbox (whose pristine process imports torch once, then forks a zygote for each entry, in milliseconds)
and keeps it for its whole life, grading one entry at a time in one pytest run (the suites collected once) and
sending each report back as soon as it is done. With --scheduler the same work goes to a Dask cluster (cluster.py),
and the results come back to the same on_result.

This module is the driver: it reads the class, decides who is graded and handles a stop. The rest is one module per
concern: arguments.py (the command line), pool.py (the local workers), storage.py (OUT's files kept up to date as
results arrive), outputs.py (the gradebook files, the summary and what is printed at the end)."""
import argparse
import dataclasses
import functools
import os
import shutil
import signal
import sys
import tempfile
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..course.class_report import EntryReport
from ..course.manifest import Course, find_root, load_course
from ..engine.stopping import Stopped, exit_status, stop_on_signals
from ..i18n import _
from ..sandbox import missing_walls, process_state, sweep_stale
from . import summary
from ..usage import UsageError
from .arguments import check_args, chosen, parse_deadline
from .intake import Contents, Entry, discover, fingerprint_of, read_entry, student_key
from .outputs import print_table, progress, write_class_files
from .pool import Pool, preload
from .portability import Locked, exclusive
from .storage import (
    GRADES,
    LOCK,
    LOG,
    OutputError,
    Results,
    is_current,
    load_report,
    log_line,
    open_log,
    read_in_flight,
    write_in_flight,
)
from .work import failed_report, grader_version, unreadable_report

USAGE_ERROR, SOME_UNREADABLE, RUN_FAILED, INTERRUPTED = 2, 1, 3, 130


def _fingerprint_and_problem(course: Course, entry: Entry) -> tuple[dict, EntryReport | None]:
    """The entry's fingerprint, and its report when it cannot be graded (else None: only the worker reads it again); the
    grader's own failure to read it costs only this entry, reported with grader_error (read again by the next run)."""
    try:
        contents = read_entry(entry)
    except Exception:  # noqa: BLE001 - the grader's own fault (a student's is a Contents.problem): this entry only
        return {}, failed_report(course, entry, Contents(), traceback.format_exc())
    return fingerprint_of(contents), (unreadable_report(course, entry, contents) if contents.problem else None)


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
        folder, out, jobs = check_args(args)
        entries = [
            entry
            for entry in discover(folder, getattr(args, "linked", False))
            if entry.path != out and out not in entry.path.parents
        ]
        if not entries:
            raise UsageError(
                _("nothing to grade in {folder}: it holds no folder, repository or notebook (.ipynb)").format(
                    folder=folder
                )
            )
        keys = Counter(student_key(e.student) for e in entries)
        clashes = sorted(e.path.name for e in entries if keys[student_key(e.student)] > 1)
        if clashes:
            raise UsageError(
                _(
                    "two entries for the same student in {folder}: {students} (a folder and a notebook or zip of the "
                    "same name, or names that differ only in case or accents' encoding?): keep one"
                ).format(folder=folder, students=", ".join(clashes[:6]))
            )
        if getattr(args, "deadline", None):
            deadline = parse_deadline(args.deadline)
            entries = [dataclasses.replace(e, deadline=deadline) if e.kind == "repository" else e for e in entries]
        chosen(entries, getattr(args, "student", None), folder)
        # a cluster's workers are the machines that matter
        weak = [] if getattr(args, "scheduler", None) else missing_walls()
        if weak and not getattr(args, "allow_weak_isolation", False):
            raise UsageError(
                _(
                    "this machine cannot put up {walls} around each student's code, so a hostile submission could "
                    "reach the grader or its classmates: grade on Linux with both, or pass --allow-weak-isolation to "
                    "grade anyway (the reports and grades.csv then say so)"
                ).format(walls=", ".join(weak))
            )
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
    """Say that the run itself failed (OUT could not be written), where and what to do; log it in OUT when there is
    room."""
    try:
        log = open_log(out)
        try:
            log_line(
                out,
                log,
                {
                    "event": "failed",
                    "path": str(error.path),
                    "errno": error.error.errno,
                    "error": str(error.error),
                    "pid": os.getpid(),
                },
            )
        finally:
            os.close(log)
        logged = _("the run's failure is the last line of {log}").format(log=out / LOG)
    except OutputError:
        logged = _("{log} could not record it either").format(log=out / LOG)
    print(
        _("autograder: the run failed: {advice} ({logged})").format(advice=error.advice(out), logged=logged),
        file=sys.stderr,
    )
    return RUN_FAILED


def _grade(course: Course, args: argparse.Namespace, folder: Path, out: Path, jobs: int, entries: list[Entry]) -> int:
    """main() once the arguments are checked and OUT is locked."""
    from ..engine.secret import for_class_grading

    quiet = getattr(args, "quiet", False)
    weak = getattr(args, "weak_isolation", [])
    if weak:
        print(
            _(
                "autograder: weak isolation: no {walls} on this machine around each student's code "
                "(--allow-weak-isolation)"
            ).format(walls=", ".join(weak)),
            file=sys.stderr,
        )
    # class grading draws its inputs from the course secret, made on the first run (forked workers inherit it)
    for_class_grading()
    version = grader_version(course)
    # what a killed run was writing: never a report (those are renamed into place whole)
    for left in out.glob(".*.tmp"):
        left.unlink(missing_ok=True)
    only = {entry.student for entry in chosen(entries, getattr(args, "student", None), folder)}
    kept = (
        {}
        if only == {e.student for e in entries}
        else {  # --student: the others' reports stay as they are
            e.student: report
            for e in entries
            if e.student not in only and (report := load_report(out, e.student)) is not None
        }
    )
    regrade = [entry for entry in entries if entry.student in only]
    with ThreadPoolExecutor(8) as threads:  # git and file reads: mostly waiting
        read = dict(
            zip((e.student for e in regrade), threads.map(functools.partial(_fingerprint_and_problem, course), regrade))
        )
    todo, unreadable_now = [], []
    for entry in regrade:
        report = (
            None if getattr(args, "force", False) or getattr(args, "student", None) else load_report(out, entry.student)
        )
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
    results.event(
        event="run",
        entries=len(entries),
        to_grade=len(todo),
        kept=len(kept),
        jobs=jobs,
        scheduler=getattr(args, "scheduler", None),
        grader_version=version,
        pid=os.getpid(),
    )
    bar = progress(len(todo) + len(unreadable_now), quiet)
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
    # OUT (classmates' reports) and what the caller adds: no student reads them
    hidden = (out, *getattr(args, "hidden", ()))
    try:
        for entry, report in unreadable_now:
            on_result(entry, report)
        scheduler = getattr(args, "scheduler", None)
        if todo and scheduler:
            try:
                from .cluster import ClusterError, run_on_cluster
            except ImportError as error:
                print(
                    _(
                        "autograder: --scheduler needs Dask's distributed package ({error}): pip install distributed"
                    ).format(error=error),
                    file=sys.stderr,
                )
                return USAGE_ERROR
            try:
                run_on_cluster(course, todo, scheduler, on_result, hidden=hidden)
            except ClusterError as error:
                bar.close()
                print(_("autograder: {error}").format(error=error), file=sys.stderr)
                return USAGE_ERROR
        elif todo:
            preload(todo)
            sweep_stale(Path(tempfile.gettempdir()))  # what runs killed before this one left behind
            # the packages being graded, one per worker
            scratch = Path(tempfile.mkdtemp(prefix=f"autograder-class-{os.getpid()}-"))
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
        print(
            _(
                "autograder: stopped: this run's own resource limits, priority or CPUs changed while {names} was "
                "graded, so no classmate is graded under them; the {graded} reports written before are in {out}. Look "
                "at the submission of {names}, then run the same command again: it grades {names} last"
            ).format(names=names, graded=len(results.graded), out=out),
            file=sys.stderr,
        )
        return RUN_FAILED
    except KeyboardInterrupt as interrupt:
        if pool is not None:
            pool.kill()
        bar.close()
        write_in_flight(out, suspects - set(results.graded))  # stopped by the user: those being graded are not suspects
        results.event(
            event="interrupted",
            graded=len(results.graded),
            signal=signal.Signals(interrupt.signum).name if isinstance(interrupt, Stopped) else "SIGINT",
        )
        write_class_files(course, out, results.reports)
        print(
            _(
                "autograder: interrupted; {graded} graded in this run and written to {out}; "
                "run the same command again to grade the {left} left"
            ).format(graded=len(results.graded), out=out, left=len(todo) + len(unreadable_now) - len(results.graded)),
            file=sys.stderr,
        )
        return exit_status(interrupt, INTERRUPTED)
    finally:
        bar.close()
        results.close()
        if pool is not None:
            shutil.rmtree(pool.scratch, ignore_errors=True)
    write_in_flight(out, set())
    reports = results.reports
    class_summary = write_class_files(course, out, reports)
    print_table(course, entries, reports, scores=getattr(args, "table", True))  # --nbgrader prints the gradebook's
    unreadable = [e for e in entries if (report := reports.get(e.student)) is not None and report.problem]
    print(
        _("{count} student(s): {graded} graded now, {kept} unchanged since their last report").format(
            count=len(entries), graded=len(results.graded), kept=len(kept)
        )
        + (_(", {count} could not be graded").format(count=len(unreadable)) if unreadable else "")
        + _("; reports and {grades} in {out}").format(grades=GRADES, out=out)
    )
    print("\n".join(summary.lines(class_summary, out)))
    if unreadable and len(unreadable) == len(entries):
        print(
            _("autograder: nothing in {folder} could be graded: is it the class folder?").format(folder=folder),
            file=sys.stderr,
        )
        return USAGE_ERROR
    return SOME_UNREADABLE if unreadable else 0


class GraderChanged(Exception):
    """The grading process's own limits, priority or CPUs changed during the run; students: who was being graded."""

    def __init__(self, students: list[str]) -> None:
        super().__init__(", ".join(students))
        self.students = students
