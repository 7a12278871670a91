"""Students' grading: each entry's files into a package, the hidden suites on it in an open sandbox, the report.

grade_entries is the work of a local `grade DIR` worker process (the entries it receives, one at a time, graded in
one pytest run), grade_entry that of a task on a Dask worker (one entry). Each builds an exercises-like package from
the entry (the modules of a folder or of a repository's HEAD, or the answer cells of a notebook turned into modules
as `grade --nbgrader` does), runs the suites of every question on it (engine/run.py's run_each), and gives `check
--json`'s object for that package plus who, what and when. An entry that cannot be read
gives every question 0 with "problem" saying why; a fault of the student's code costs only its question, as
with `check`. The grader's own failure on an entry (a bug, a full disk) is reported the same way, with
"grader_error": true, so that the next run grades it again.
"""
import dataclasses
import datetime
import functools
import hashlib
import importlib.metadata
import shutil
import tempfile
import traceback
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..course.class_report import EntryReport
from ..course.manifest import Course
from ..course.results import ERROR, QuestionResult, Report
from ..i18n import _
from ..engine.run import Submission, hideable
from ..nbgrader.answers import read_answers
from ..nbgrader.package import write_package
from ..sandbox import Sandbox
from .intake import Contents, Entry, fingerprint_of, read_entry
from .similarity import fingerprints

PACKAGE_INIT = b'"""The exercise modules of one student."""\n'
GRADING_CODE = ("course", "engine", "sandbox", "suites", "nbgrader", "classroom/intake.py", "classroom/work.py",
                "classroom/similarity.py")  # under autograder/


@functools.cache
def _code_digest() -> str:
    """Digest of the code that decides a grade: the engine, sandbox, suites, package building, and reference/."""
    import reference

    kit = Path(__file__).resolve().parent.parent
    roots = [kit / part for part in GRADING_CODE] + [Path(reference.__file__).resolve().parent]
    digest = hashlib.sha256()
    for root in roots:
        paths = (
            [root]
            if root.is_file()
            else sorted(p for p in root.rglob("*") if p.suffix in (".py", ".yaml") and "__pycache__" not in p.parts)
        )
        for path in paths:
            digest.update(path.relative_to(kit.parent).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def grader_version(course: Course) -> str:
    """The kit's version and a digest of the grading code and of the course (points, limits, questions)."""
    try:
        version = importlib.metadata.version("attention-kit")
    except importlib.metadata.PackageNotFoundError:
        version = "0"
    from ..engine.secret import class_secret

    questions = repr(
        [(q.number, q.slug, q.file, q.functions, q.points, q.requires, q.time_limit) for q in course.questions]
    )
    # two kits with different secrets draw different inputs
    secret = hashlib.sha256(class_secret(create=False).encode()).hexdigest()
    return f"{version}+{hashlib.sha256((_code_digest() + questions + secret).encode()).hexdigest()[:12]}"


def zero_report(course: Course, reason: str, **about: object) -> EntryReport:
    """The report of an entry that could not be graded: every question 0, with the reason, and about (student,
    source, ...)."""
    return EntryReport.from_check(
        Report([QuestionResult(q.number, q.title, q.points, ERROR, reason=reason) for q in course.questions]), **about
    )


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def build_package(course: Course, contents: Contents, folder: Path) -> tuple[Path | None, str]:
    """Write contents as an exercises-like package in folder/exercises; (package, "") or (None, why it cannot be)."""
    package = folder / "exercises"
    if contents.notebook is not None:
        sources, problem = read_answers(course, contents.notebook, contents.where)
        return (write_package(course, sources, package), "") if sources else (None, problem)
    package.mkdir(parents=True)
    for name, data in contents.modules.items():
        (package / name).write_bytes(data)
    if "__init__.py" not in contents.modules:
        (package / "__init__.py").write_bytes(PACKAGE_INIT)
    return package, ""


def classmates(entry: Entry, package: Path) -> tuple[Path, ...]:
    """The class folder, which the student's code may not read (everyone else's work is there); () where it holds the
    kit, Python, the temporary folder or the package graded, which the grading needs."""
    import reference

    folder = entry.path.parent.resolve()
    needed = [package.resolve(), Path(reference.__file__).resolve().parent]
    return () if any(folder == path or folder in path.parents for path in needed) else hideable([folder])


def _about(course: Course, entry: Entry, contents: Contents) -> dict:
    """What a report says besides the scores: who, which files, which grader, when (EntryReport's fields)."""
    source = {"kind": entry.kind, "path": str(entry.path), "graded": contents.where} | (
        {"left_out": list(contents.left_out.values())} if contents.left_out else {}
    )
    return (
        {"student": entry.student, "source": source}
        | fingerprint_of(contents)
        | {"grader_version": grader_version(course), "graded_at": _now()}
    )


def unreadable_report(course: Course, entry: Entry, contents: Contents, problem: str = "") -> EntryReport:
    """The report of an entry that cannot be graded: every question 0, "problem" saying why."""
    problem = problem or contents.problem
    return zero_report(course, problem, **_about(course, entry, contents), problem=problem)


def grade_entries(
    course: Course,
    entries: Iterable[Entry],
    sandbox: Sandbox,
    scratch: Path,
    on_result: Callable[[Entry, EntryReport], None],
    hidden: tuple[Path, ...] = (),
) -> None:
    """Grade entries in turn, in one pytest run while the grader does not break: on_result(entry, report) once for each
    entry, as soon as its report is decided (check --json's object plus student, source, commit or sha256,
    grader_version, graded_at).

    An unreadable entry gives every question 0 with "problem" saying why; a fault of the student's code costs only
    its question. The grader's own failure on an entry (a bug, a full disk) is reported the same way, with
    "grader_error": true, so that the next run grades it again; the entries after it are graded in a new pytest run.
    entries may be drawn lazily (a worker receives them one at a time). scratch: a folder these calls fill and empty.
    hidden: folders no student's code may read (where the other students' packages and sandboxes are), beside the
    class folder."""
    from ..engine.run import run_each
    from ..engine.secret import for_class_grading

    # the driver made it (batch.py); a Dask worker's kit carries the same (grader_version says so)
    for_class_grading(create=False)
    scratch = Path(scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    # entries are graded one after the other: only the last one can lack its report
    remaining, last_reported = iter(entries), [None]

    def report(entry: Entry, result: EntryReport) -> None:
        last_reported[0] = entry
        on_result(entry, result)

    while True:
        drawn: list[Entry | None] = []
        stream = _submissions(course, remaining, scratch, report, drawn, hidden)
        trace = ""
        try:
            run_each(course, sandbox, course.numbers, stream)
        except Exception:  # noqa: BLE001 - the grader's own failure: the entry in hand is reported below, the rest graded on
            trace = traceback.format_exc()
        finally:
            stream.close()  # the entry in hand when a run stopped before its report is reported as the grader's failure
        if drawn and drawn[-1] is not None and drawn[-1] is not last_reported[0]:
            report(drawn[-1], failed_report(course, drawn[-1], Contents(), trace))
        if drawn and drawn[-1] is None:
            return
        if not drawn:
            raise RuntimeError(f"the grading run stopped before it graded anything\n{trace}")


def _submissions(
    course: Course,
    entries: Iterator[Entry],
    scratch: Path,
    report: Callable[[Entry, EntryReport], None],
    drawn: list,
    hidden: tuple[Path, ...],
) -> Iterator[Submission]:
    """The Submission of each readable entry, built in a fresh folder; once the engine graded it (or broke while it
    did), its report goes to report() and the folder is removed. drawn: each entry taken, then None when there are
    no more."""
    for entry in entries:
        drawn.append(entry)
        contents, folder, submission = Contents(), None, None
        try:
            contents = read_entry(entry)
            if contents.problem:
                result = unreadable_report(course, entry, contents)
            else:
                # new for every entry: no module cache can mix two students
                folder = Path(tempfile.mkdtemp(prefix="entry-", dir=scratch))
                package, problem = build_package(course, contents, folder)
                if package is None:
                    result = unreadable_report(course, entry, contents, problem)
                else:
                    submission = Submission(package, classmates(entry, package) + hideable(hidden))
        except Exception:  # noqa: BLE001 - the grader's own fault (a student's is a Contents.problem): graded again next run
            result, submission = failed_report(course, entry, contents, traceback.format_exc()), None
        try:
            if submission is not None:
                yield submission
        finally:  # also when the run stops while this submission is in hand (the generator is closed)
            if submission is not None:
                result = _graded_report(course, entry, contents, submission)
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            report(entry, result)
    drawn.append(None)


def _graded_report(course: Course, entry: Entry, contents: Contents, submission: Submission) -> EntryReport:
    """The report of a graded submission, or the grader's failure when it has no whole report."""
    if submission.report is not None and not submission.failed:
        try:
            report = EntryReport.from_check(submission.report, **_about(course, entry, contents))
            for question in report.questions:  # a module left out (a link) is missing for the engine: say why instead
                why = contents.left_out.get(Path(course.question(question["number"]).file).name)
                if why and question["status"] == ERROR:
                    question["reason"] = why
                    for check in question.get("tests", []):
                        check["message"] = why
            report.similarity = fingerprints(course, submission.package, report.questions)
            return report
        except Exception:  # noqa: BLE001 - the grader's own fault
            submission.failed = traceback.format_exc()
    return failed_report(course, entry, contents, submission.failed)


def failed_report(course: Course, entry: Entry, contents: Contents, trace: str) -> EntryReport:
    """The report of an entry the grader itself failed on: every question 0, the reason, "grader_error" and the
    traceback."""
    last = (trace.strip().splitlines() or ["RuntimeError: the grading run stopped before this entry's report"])[-1]
    error, _colon, message = last.partition(": ")
    reason = _("the grader failed on this entry ({error}: {message}); run the command again").format(
        error=error[:100], message=message[:300]
    )
    return dataclasses.replace(
        unreadable_report(course, entry, contents, reason), grader_error=True, traceback=trace[-4000:]
    )


def grade_entry(
    course: Course, entry: Entry, sandbox: Sandbox, scratch: Path, hidden: tuple[Path, ...] = ()
) -> EntryReport:
    """The student's report, as grade_entries gives it, for one entry. scratch: a folder this call may fill and empty;
    hidden: folders the student's code may not read."""
    found: list[EntryReport] = []
    grade_entries(course, [entry], sandbox, scratch, lambda _entry, report: found.append(report), hidden)
    return found[0]
