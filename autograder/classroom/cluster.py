"""Grade a class on a Dask distributed cluster: one sandbox per worker for its whole life, results back as they arrive.

The driver (batch.py) calls run_on_cluster with the entries left to grade. Every worker process runs a WorkerPlugin
that starts one Sandbox (one import of torch) when the worker starts and closes it when the worker stops; a task
grades one entry with grade_entry in that sandbox. The driver gets each report as it finishes (as_completed) and
hands it to on_result at once, so a report is written as soon as it is decided, whatever happens to the rest.

Nothing is lost. A worker that dies gives its task back to the scheduler, which runs it on another worker (up to
distributed.scheduler.allowed-failures times); a task that still fails comes back as a report of every question 0
with "problem" saying why and "grader_error": true, which the next run grades again. A worker that cannot see an
entry's files at the driver's path (no shared filesystem), or sees other files there, is sent a copy of them. A
worker whose grading code or course differs from the driver's (grader_version) stops the run (ClusterError).
"""
import contextlib
import dataclasses
import io
import shutil
import tarfile
import tempfile
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

from distributed import (
    Client,
    Future,
    KilledWorker,
    Worker,
    WorkerPlugin,
    as_completed,
    get_worker,
)

from ..course.class_report import EntryReport
from ..course.manifest import Course
from ..i18n import _
from ..sandbox import start_sandbox
from .intake import SKIPPED, Entry, fingerprint
from .work import grade_entry, grader_version, zero_report

PLUGIN = "autograder-sandbox"  # the plugin's name on every worker: get_worker().plugins[PLUGIN]
COPY_LIMIT = 64 << 20  # largest copy of an entry sent to a worker that cannot see it (bytes, gzipped)
NEEDS_FILES = "needs-files"  # a task's answer when its worker does not see the driver's files of the entry
RETRIES = 1  # extra runs of a task that raised, on top of the scheduler's reruns of a task whose worker died
READERS = 8  # threads reading the entries' fingerprints in the driver (git and file reads: mostly waiting)


class ClusterError(RuntimeError):
    """The cluster cannot grade: no scheduler at the address, workers without the kit or with another version of it."""


class KitMismatch(RuntimeError):
    """Raised by a task on a worker whose grader_version is not the driver's."""


class SandboxPlugin(WorkerPlugin):
    """One Sandbox per worker process, started when the worker starts (or the plugin arrives) and kept for its life.

    Registered with idempotent = True: a later run on the same cluster keeps the workers' sandboxes.
    """

    idempotent = True

    def setup(self, worker: Worker) -> None:
        """Start the sandbox and a scratch folder, and import the grader in the background (its pristine process
        imports torch meanwhile)."""
        self.sandbox = start_sandbox()
        self.scratch = Path(
            tempfile.mkdtemp(prefix="autograder-cluster-", dir=getattr(worker, "local_directory", None))
        )
        # one entry at a time per worker, however many threads it has: pytest runs in-process
        self.lock = threading.Lock()
        self.tasks = 0
        # a task waits for it, if need be
        threading.Thread(target=_import_grader, name="autograder-imports", daemon=True).start()

    def teardown(self, worker: Worker) -> None:
        """Stop the sandbox and remove the scratch folder."""
        self.sandbox.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def _import_grader() -> None:
    """Import what grading needs (torch, pytest, the engine), so that the worker's first student does not wait for
    it."""
    with contextlib.suppress(Exception):  # the first task imports them again, and reports what fails
        import pytest  # noqa: F401
        import torch  # noqa: F401

        from ..engine import plugin, run  # noqa: F401


def sandbox_pid(dask_worker: Worker) -> int | None:
    """The pid of this worker's sandbox process that imported torch, kept for the worker's life (the Linux backend's
    pristine process; None before the plugin is set up, or under the portable backend), for
    `client.run(sandbox_pid)`."""
    plugin = dask_worker.plugins.get(PLUGIN)
    pristine = getattr(plugin.sandbox, "pristine", None) if plugin is not None else None
    return pristine.pid if pristine is not None else None


def _grade_on_worker(
    course: Course, entry: Entry, expected: dict, version: str, copy: bytes | None = None, hidden: tuple[Path, ...] = ()
) -> tuple[str, object]:
    """The task: ("report", the entry's EntryReport), graded in this worker's sandbox, or (NEEDS_FILES, why). hidden:
    the driver's folders no student's code may read (OUT); the worker's own folders are hidden too."""
    if grader_version(course) != version:
        raise KitMismatch(
            _("the worker at {address} grades with {theirs}, the driver with {version}").format(
                address=get_worker().address, theirs=grader_version(course), version=version
            )
        )
    plugin = get_worker().plugins[PLUGIN]
    hidden = (
        *hidden,
        *(Path(folder) for folder in (getattr(get_worker(), "local_directory", None),) if folder),
        plugin.scratch,
    )
    with plugin.lock:
        import torch

        torch.set_num_threads(1)  # the oracle works on tiny tensors: a thread pool only adds waiting
        plugin.tasks += 1
        scratch = plugin.scratch / f"task{plugin.tasks}"
        scratch.mkdir()
        try:
            if copy is None:
                if fingerprint(entry) != expected:
                    return NEEDS_FILES, _("{path} is missing or different on this worker").format(path=entry.path)
                report = grade_entry(course, entry, plugin.sandbox, scratch, hidden)
            else:
                local = _unpack(copy, scratch / "copy", entry)
                graded = grade_entry(course, local, plugin.sandbox, scratch / "work", hidden).to_dict()
                report = EntryReport.from_dict(_replace_text(graded, str(local.path), str(entry.path)))
            report.worker = get_worker().address
            return "report", report
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def _pack(entry: Entry) -> bytes:
    """What the worker needs of the entry as a gzipped tar: a repository whole, a notebook, a folder's .py and .ipynb
    files."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(entry.path, arcname=entry.path.name, filter=_readable if entry.kind == "folder" else None)
    return buffer.getvalue()


def _readable(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """A folder's member that intake may read: .py and .ipynb files, in folders it searches (no __pycache__, .venv,
    ...)."""
    parts = PurePosixPath(member.name).parts[1:]
    folders = parts if member.isdir() else parts[:-1]
    if any(part in SKIPPED or part.startswith(".") for part in folders):
        return None
    return member if member.isdir() or member.name.endswith((".py", ".ipynb")) else None


def _unpack(copy: bytes, folder: Path, entry: Entry) -> Entry:
    """Unpack a copy made by _pack into folder; the entry with its path there."""
    folder.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(copy), mode="r:gz") as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(folder, filter=_inside)
        # Python before 3.10.12 / 3.11.4: a tar made by _pack from a real folder has no member that goes through a link
        else:
            tar.extractall(folder, members=[m for m in tar.getmembers() if not (m.issym() or m.islnk() or m.isdev())])
    return dataclasses.replace(entry, path=folder / entry.path.name)


def _inside(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
    """tarfile's "data" filter, except that a member it refuses (a link out of the folder, a device) is left out."""
    try:
        return tarfile.data_filter(member, path)
    except tarfile.FilterError:
        return None


def _replace_text(value: object, old: str, new: str) -> object:
    """value with old replaced by new in every string (the report of a copy names the driver's path)."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {key: _replace_text(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace_text(item, old, new) for item in value]
    return value


def error_report(course: Course, entry: Entry, reason: str) -> EntryReport:
    """The report of an entry the cluster could not grade: every question 0, the reason, graded again by the next
    run."""
    return zero_report(
        course,
        reason,
        student=entry.student,
        source={"kind": entry.kind, "path": str(entry.path)},
        problem=reason,
        grader_error=True,
        grader_version=grader_version(course),
    )


def _connect(address: str) -> Client:
    """A client of the scheduler at address, or ClusterError naming it."""
    try:
        return Client(address, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterError(
            _("cannot reach the Dask scheduler at {address}: {error}").format(address=address, error=error)
        ) from error


def _check_workers(client: Client, course: Course, version: str) -> None:
    """ClusterError when a worker connected now lacks the kit or grades with another version of it (or of the
    course)."""
    try:
        seen = client.run(grader_version, course)
    except Exception as error:
        raise ClusterError(
            _("a worker cannot run the grader (is the kit installed there?): {error}: {message}").format(
                error=type(error).__name__, message=error
            )
        ) from error
    other = sorted(worker for worker, theirs in seen.items() if theirs != version)
    if other:
        listed = ", ".join(_("{worker} has {version}").format(worker=w, version=seen[w]) for w in other[:3]) + (
            " ..." if len(other) > 3 else ""
        )
        raise ClusterError(
            _(
                "{count} worker(s) grade with another version of the kit than this one ({version}): {listed}; "
                "install the same kit, with the same course.yaml, on every worker"
            ).format(count=len(other), version=version, listed=listed)
        )


def run_on_cluster(
    course: Course,
    entries: list[Entry],
    address: str,
    on_result: Callable[[Entry, EntryReport], None],
    hidden: tuple[Path, ...] = (),
) -> None:
    """Grade entries on the Dask scheduler at address, calling on_result(entry, report) in this process as each one
    finishes.

    hidden: the driver's folders that no student's code may read where a worker sees them (OUT).

    Every entry gets exactly one on_result call: its report, or an error_report when the cluster could not grade it.
    Raises ClusterError before grading (no scheduler, a worker with another kit) or when a worker with another kit
    joins; stopping the run (Ctrl-C, an exception in on_result) cancels what is left on the cluster.
    """
    client = _connect(address)
    try:
        version = grader_version(course)
        _check_workers(client, course, version)
        client.register_plugin(SandboxPlugin(), name=PLUGIN)
        running = as_completed(loop=client.loop)  # the client is not the default one: its loop says which
        pending: dict = {}

        def submit(entry: Entry, expected: dict | None, copy: bytes | None = None) -> None:
            future = client.submit(
                _grade_on_worker,
                course,
                entry,
                expected,
                version,
                copy,
                tuple(hidden),
                pure=False,
                retries=RETRIES,
                key=f"grade-{entry.student}-{uuid.uuid4().hex[:12]}",
            )
            pending[future] = entry
            running.add(future)

        with ThreadPoolExecutor(READERS) as readers:  # each entry goes out as soon as its fingerprint is read
            for entry, found in zip(entries, readers.map(fingerprint, entries)):
                submit(entry, found)
        for future in running:
            entry = pending.pop(future)
            report = _outcome(course, entry, future)
            if report is None:  # the worker does not see the driver's files of this entry: send it a copy
                report = _send_copy(course, entry, submit)
            if report is not None:
                on_result(entry, report)
    finally:
        client.close()


def _outcome(course: Course, entry: Entry, future: Future) -> EntryReport | None:
    """The report a finished task gives, an error_report, or None when its worker needs a copy of the entry."""
    if future.status == "finished":
        kind, value = future.result()
        return value if kind == "report" else None
    if future.status == "cancelled":
        raise ClusterError(
            _("the scheduler dropped the grading of {student} (did it restart?): run the command again").format(
                student=entry.student
            )
        )
    error = future.exception()
    if isinstance(error, KitMismatch):
        raise ClusterError(_("a worker grades with another version of the kit: {error}").format(error=error))
    if isinstance(error, KilledWorker):
        return error_report(
            course, entry, _("the grading worker died each time it graded this entry; run the command again")
        )
    return error_report(
        course,
        entry,
        _("the grader failed on this entry ({error}: {message}); run the command again").format(
            error=type(error).__name__, message=error
        ),
    )


def _send_copy(course: Course, entry: Entry, submit: Callable) -> EntryReport | None:
    """Submit the entry again with a copy of its files; an error_report when that cannot be done."""
    try:
        copy = _pack(entry)
    except OSError as error:
        return error_report(
            course, entry, _("cannot read the entry to send it to a worker ({error})").format(error=error)
        )
    if len(copy) > COPY_LIMIT:
        return error_report(
            course,
            entry,
            _(
                "the entry is {size} MiB gzipped, too large to send to a worker: "
                "put the class folder where every worker sees it, at the same path"
            ).format(size=len(copy) >> 20),
        )
    submit(entry, None, copy)
    return None
