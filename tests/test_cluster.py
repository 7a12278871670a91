"""Grading a class on a Dask cluster: a LocalCluster of two worker processes (one thread each) on loopback.

The class: alice (every answer right), bob (the stubs), carol (a git repository: questions 1-5 done, with a bug in
question 2), dave (the modules at the folder's top level: questions 1-4, with a bug in question 4) and erin (an empty
folder). Each report that comes back through the cluster is the report run_suites gives for the same package in
this process, every entry is reported exactly once even when a worker is killed in the middle of the run, a worker
that cannot see the files gets a copy, and `batch.main` through the cluster writes the local run's grades.csv and
reports. Most of the time is grading: alice (whose training question alone takes seconds) is graded by the slow test
only, by run_suites and on the cluster; the others also by batch, locally and on the cluster, and run_suites grades a
student when a test first reads the reference.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="dask distributed is not installed: pip install -e '.[cluster]'")
pytest.importorskip("autograder.classroom.work", reason="the class-grading core (classroom/work.py) is not there yet")
from distributed import Client, KilledWorker, LocalCluster

from autograder.classroom import cluster as kit_cluster
from autograder.course.class_report import EntryReport
from autograder.classroom.intake import Entry, discover, fingerprint
from autograder.course.manifest import load_course
from autograder.engine.run import run_suites

KIT = Path(__file__).resolve().parent.parent
# what run_suites gives; the rest (student, source, hashes, times) is grade_entry's
REPORT_KEYS = ("score", "max_score", "questions")


def _package(folder: Path, done: range | tuple, edits: dict | None = None, init: bool = True) -> None:
    """folder holding every question's module: the solution for the questions in done (with edits), the stub for the
    rest."""
    folder.mkdir(parents=True)
    if init:
        shutil.copy(KIT / "exercises" / "__init__.py", folder / "__init__.py")
    for solution in sorted((KIT / "solutions").glob("q[0-9][0-9]_*.py")):
        text = (solution if int(solution.name[1:3]) in done else KIT / "exercises" / solution.name).read_text()
        for old, new in (edits or {}).get(int(solution.name[1:3]), []):
            assert old in text
            text = text.replace(old, new)
        (folder / solution.name).write_text(text)


@pytest.fixture(scope="module")
def klass(tmp_path_factory) -> tuple[Path, dict[str, Path]]:
    """The class folder, and for each gradable student a package folder with the same modules (for run_suites)."""
    root = tmp_path_factory.mktemp("cluster")
    folder, packages = root / "class", {}
    _package(folder / "alice" / "exercises", load_course(KIT).numbers)
    _package(folder / "bob" / "exercises", ())
    _package(folder / "carol" / "exercises", range(1, 6), {2: [("/ math.sqrt(d)", "/ d")]})
    git = ["git", "-C", str(folder / "carol"), "-c", "user.name=carol", "-c", "user.email=carol@example.org"]
    subprocess.run(["git", "init", "-q", str(folder / "carol")], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "my answers"], check=True)
    dave = {4: [("x.reshape(B, T, n_heads, D // n_heads).transpose(1, 2)", "x.reshape(B, n_heads, T, D // n_heads)")]}
    _package(folder / "dave", range(1, 5), dave, init=False)
    (folder / "erin").mkdir()
    for student in ("alice", "bob", "carol"):
        packages[student] = folder / student / "exercises"
    _package(root / "packages" / "dave", range(1, 5), dave)
    packages["dave"] = root / "packages" / "dave"
    return folder, packages


@pytest.fixture(scope="module")
def course():
    return load_course(KIT)


class Reference(dict):
    """run_suites' report of each gradable student's package, in this process, graded when a test first reads it (the
    fast tests read carol's only: alice's training question alone takes seconds)."""

    def __init__(self, packages: dict[str, Path], course: object, sandbox: object) -> None:
        super().__init__()
        self.packages, self.course, self.sandbox = packages, course, sandbox

    def __missing__(self, student: str) -> dict:
        import torch

        torch.set_num_threads(1)
        self[student] = run_suites(self.course, self.sandbox, self.packages[student], self.course.numbers).to_dict()
        return self[student]


@pytest.fixture(scope="module")
def reference(klass, course, session_sandbox) -> Reference:
    """run_suites' report of a gradable student's package (student -> report), in this process and the session's
    sandbox."""
    return Reference(klass[1], course, session_sandbox)


@pytest.fixture(scope="module")
def local_cluster():
    """Two worker processes of one thread; their sandboxes and imports start now."""
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        with Client(cluster.scheduler_address, set_as_default=False) as client:
            # run_on_cluster keeps it (idempotent)
            client.register_plugin(kit_cluster.SandboxPlugin(), name=kit_cluster.PLUGIN)
        yield cluster


def _gone(pid: int, seconds: float) -> bool:
    """True once process pid has exited (or become a zombie) within seconds."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


def test_reports_equal_run_suites_and_none_is_lost_when_a_worker_dies(local_cluster, klass, course, reference):
    entries = discover(klass[0])
    assert [(entry.student, entry.kind) for entry in entries] == [
        ("alice", "folder"),
        ("bob", "folder"),
        ("carol", "repository"),
        ("dave", "folder"),
        ("erin", "folder"),
    ]
    with Client(local_cluster.scheduler_address, set_as_default=False) as spy:
        pids = spy.run(os.getpid)
        got: list[tuple[Entry, dict]] = []
        killed = []

        def on_result(entry: Entry, report: EntryReport) -> None:
            got.append((entry, report.to_dict()))
            if not killed:  # the first result: kill a worker that is grading someone now
                busy = []
                for _ in range(100):  # four students are left: one is being graded, or is about to be
                    busy = [worker for worker, keys in spy.processing().items() if keys]
                    if busy:
                        break
                    time.sleep(0.05)
                zygote = spy.run(kit_cluster.sandbox_pid, workers=busy[:1])[busy[0]]
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(zygote)

        kit_cluster.run_on_cluster(course, entries, local_cluster.scheduler_address, on_result)
        assert killed and _gone(killed[0], 30), "the killed worker's sandbox outlived it"
        zygotes = spy.run(kit_cluster.sandbox_pid)

    assert sorted(entry.student for entry, _ in got) == ["alice", "bob", "carol", "dave", "erin"]  # each exactly once
    reports = {entry.student: report for entry, report in got}
    for student in klass[1]:
        assert {key: reports[student][key] for key in REPORT_KEYS} == reference[student], student
    assert [reference[s]["score"] for s in ("alice", "bob")] == [100, 0]
    assert 0 < reference["carol"]["score"] < 100 and 0 < reference["dave"]["score"] < 100
    assert reports["erin"]["score"] == 0 and reports["erin"]["problem"]
    assert len(reports["carol"]["commit"]) == 40
    assert all(report["student"] == entry.student for entry, report in got)

    # a second run on the same workers keeps their sandboxes (one torch import per worker for its whole life)
    again = []
    kit_cluster.run_on_cluster(
        course, entries[1:2], local_cluster.scheduler_address, lambda entry, report: again.append(report.to_dict())
    )
    with Client(local_cluster.scheduler_address, set_as_default=False) as spy:
        assert spy.run(kit_cluster.sandbox_pid) == zygotes
    assert [report["score"] for report in again] == [0]


def test_a_worker_that_cannot_see_the_files_gets_a_copy(klass, course, reference, local_cluster, monkeypatch):
    carol = next(entry for entry in discover(klass[0]) if entry.student == "carol")
    # in this process only
    monkeypatch.setattr(kit_cluster, "fingerprint", lambda entry: {"sha256": "what the driver saw"})
    got = []
    kit_cluster.run_on_cluster(
        course, [carol], local_cluster.scheduler_address, lambda entry, report: got.append(report.to_dict())
    )
    [report] = got
    assert {key: report[key] for key in REPORT_KEYS} == reference["carol"]
    assert len(report["commit"]) == 40  # the copy carries the repository
    assert str(carol.path) in json.dumps(report["source"]) and "autograder-cluster-" not in json.dumps(report)


def test_the_copy_of_an_entry_has_its_fingerprint_and_no_link_out(klass, tmp_path):
    notebook = tmp_path / "frank.ipynb"
    notebook.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    entries = [entry for entry in discover(klass[0]) if entry.student in ("carol", "dave")] + [
        Entry("frank", notebook, "notebook")
    ]
    linked = tmp_path / "gina"
    shutil.copytree(klass[0] / "dave", linked)
    (linked / "q11_outside.py").symlink_to("/etc/hostname")
    (linked / "data.bin").write_bytes(bytes(1 << 20))
    (linked / ".venv" / "lib").mkdir(parents=True)
    (linked / ".venv" / "lib" / "big.py").write_text("x = 1\n")
    entries.append(Entry("gina", linked, "folder"))
    for number, entry in enumerate(entries):
        copy = kit_cluster._unpack(kit_cluster._pack(entry), tmp_path / f"copy{number}", entry)
        assert copy.path.name == entry.path.name and copy.path != entry.path
        if entry.student != "gina":
            assert fingerprint(copy) == fingerprint(entry), entry.student
    assert (copy.path / "q01_causal_mask.py").is_file()  # the copy of gina: what intake reads, and no link out
    assert not any((copy.path / name).exists() for name in ("q11_outside.py", "data.bin", ".venv"))


def test_workers_running_another_kit_stop_the_run_before_it_grades(local_cluster):
    with (
        Client(local_cluster.scheduler_address, set_as_default=False) as client,
        pytest.raises(kit_cluster.ClusterError, match="another version of the kit"),
    ):
        kit_cluster._check_workers(client, load_course(KIT), "not-this-kit")


def test_no_scheduler_is_one_clear_error():
    import dask

    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(kit_cluster.ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"),
    ):
        kit_cluster.run_on_cluster(load_course(KIT), [], "tcp://127.0.0.1:9", lambda entry, report: None)


class _Done:
    """A finished future's stand-in for _outcome."""

    def __init__(self, status: str, error: BaseException | None = None) -> None:
        self.status, self.error = status, error

    def exception(self) -> BaseException | None:
        return self.error


@pytest.mark.parametrize(
    "error, needle", [(KilledWorker("grade-x", None, 3), "worker died"), (ValueError("boom"), "ValueError: boom")]
)
def test_a_task_that_keeps_failing_is_a_grader_error_graded_again_next_run(course, error, needle):
    entry = Entry("zoe", Path("/nowhere/zoe"), "folder")
    report = kit_cluster._outcome(course, entry, _Done("error", error)).to_dict()
    assert report["student"] == "zoe" and needle in report["problem"]
    assert report["score"] == 0 and [q["number"] for q in report["questions"]] == course.numbers
    assert all(q["score"] == 0 and q["status"] == "error" and needle in q["reason"] for q in report["questions"])
    assert report["grader_error"] is True  # batch.is_current is then false: the next run grades it again


@pytest.mark.parametrize(
    "future, needle",
    [(_Done("cancelled"), "dropped"), (_Done("error", kit_cluster.KitMismatch("other kit")), "another version")],
)
def test_a_lost_task_or_another_kit_stops_the_run(course, future, needle):
    with pytest.raises(kit_cluster.ClusterError, match=needle):
        kit_cluster._outcome(course, Entry("zoe", Path("/nowhere/zoe"), "folder"), future)


def test_batch_through_the_cluster_writes_the_local_grades_csv(klass, course, local_cluster, tmp_path):
    batch = pytest.importorskip("autograder.classroom.batch", reason="classroom/batch.py is not there yet")
    folder = tmp_path / "class"  # the class but alice, to save time
    for student in ("bob", "carol", "dave", "erin"):
        shutil.copytree(klass[0] / student, folder / student, symlinks=True)
    outputs, reports = {}, {}
    for name, scheduler in (("local", None), ("cluster", local_cluster.scheduler_address)):
        out = tmp_path / name
        # one local worker: the pool's several are test_grade_folder's
        args = argparse.Namespace(dir=folder, out=out, scheduler=scheduler, jobs=1, force=False, quiet=True)
        assert batch.main(args, course) == 1  # erin's entry is unreadable
        outputs[name] = (out / "grades.csv").read_text()
        reports[name] = {path.name: json.loads(path.read_text()) for path in sorted(out.glob("*.json"))}
        for report in reports[name].values():
            report.pop("graded_at")
    assert outputs["cluster"] == outputs["local"]
    assert outputs["local"].count("\n") == 5  # the header and the four students
    assert reports["cluster"] == reports["local"] and len(reports["local"]) == 4


def test_attacks_on_the_cluster_cost_only_the_attacker(local_cluster, tmp_path):
    """The attacks of tests/attacks/ whose path is `cluster` (the scheduler listens on loopback), each between two
    honest classmates graded on the cluster's workers: each fails with its one-line reason, the classmates keep full
    marks, and the cluster grades on afterwards."""
    import dataclasses

    from test_attacks import ATTACKS_BY_PATH, assert_fails_alone, package_with

    course = load_course(KIT)
    course = dataclasses.replace(course, questions=tuple(q for q in course.questions if q.number in (1, 2)))
    attacks = {f"m-{attack.name}": attack for attack in ATTACKS_BY_PATH["cluster"]}
    assert attacks, "no attack names the cluster path"
    for student, attack in {"ann": None, **attacks, "zoe": None}.items():
        package_with(tmp_path / "class" / student / "exercises", attack)
    got: dict[str, dict] = {}
    for _ in range(2):  # twice: the first run's attacks changed nothing that the second run meets
        got.clear()
        kit_cluster.run_on_cluster(
            course,
            discover(tmp_path / "class"),
            local_cluster.scheduler_address,
            lambda entry, report: got.__setitem__(entry.student, report.to_dict()),
        )
        assert sorted(got) == sorted(["ann", *attacks, "zoe"])
        for student, report in got.items():
            if student in attacks:
                assert_fails_alone(attacks[student], report["questions"])
            else:
                assert report["score"] == report["max_score"], (student, report["questions"])
