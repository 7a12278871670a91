"""The files of OUT that a run keeps up to date as each result arrives: each student's report and feedback (written
atomically), grades.csv, grading.log (one JSON line per event, whole or not at all), the students in flight, the lock.
A file that cannot be written (a full disk) raises OutputError: the run failed, nothing partial is left."""
import dataclasses
import errno
import json
import os
import time
from pathlib import Path

from ..course.class_report import EntryReport
from ..course.feedback import markdown
from ..course.manifest import Course
from ..i18n import _
from .exports import EXPORTS, grades_csv
from .intake import Entry

IN_FLIGHT = ".in-flight"  # in OUT: the students being graded now; left there by a run that was killed, read by the next
GRADES, LOG, LOCK = EXPORTS["grades"].file, "grading.log", ".grading.lock"


class OutputError(Exception):
    """A file of OUT could not be written (a full disk, a quota, no permission): the run itself failed, exit status
    3."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(f"{path}: {error}")
        self.path, self.error = path, error

    def advice(self, out: Path) -> str:
        """What went wrong, where, and what to do (out: the run's OUT), in one paragraph."""
        full = {
            errno.ENOSPC: _("the disk is full"),
            getattr(errno, "EDQUOT", errno.ENOSPC): _("your disk quota is used up"),
        }
        cause = full.get(self.error.errno) or {
            errno.EROFS: _("the disk is read-only"),
            errno.EACCES: _("you may not write there"),
            errno.EPERM: _("you may not write there"),
        }.get(self.error.errno, "")
        said = _(
            "{path} could not be written: {cause} ({error}). Nothing partial was written: every report, and "
            "grades.csv, in {out} is whole and as it was."
        ).format(
            path=self.path, cause=cause or type(self.error).__name__, error=self.error.strerror or self.error, out=out
        )
        if self.error.errno in full:
            return (
                said
                + " "
                + _(
                    "Make room on the disk that holds {out} (`df -h {out}` shows it) or give another --out, then run "
                    "the same command again: it grades only what is missing."
                ).format(out=out)
            )
        return (
            said
            + " "
            + _(
                "Give --out a folder you can write to, or fix this one, then run the same command again: it grades "
                "only what is missing."
            )
        )


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
    write_atomically(
        feedback_path(out, student), markdown(course, report.to_dict(), student).encode("utf-8"), sync=False
    )


def load_report(out: Path, student: str) -> EntryReport | None:
    """The student's report in OUT, or None when there is none (or it cannot be read)."""
    try:
        return EntryReport.from_dict(json.loads(report_path(out, student).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def is_current(report: EntryReport | None, found: dict, version: str) -> bool:
    """True when report was made by this grader version from the same files (and was not a failure of the grader)."""
    written = report.to_dict() if report is not None else {}
    return (
        report is not None
        and report.grader_version == version
        and not report.grader_error
        and "sha256" in found
        and all(written.get(key) == value for key, value in found.items())
    )


def open_log(out: Path) -> int:
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
        self.log = open_log(out)
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
        self.event(
            event="graded",
            student=entry.student,
            score=report.score,
            graded_at=report.graded_at or None,
            sha256=report.sha256 or None,
            commit=report.commit or None,
            problem=report.problem or None,
            worker=worker,
        )

    def close(self) -> None:
        """Close the log."""
        os.close(self.log)


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
