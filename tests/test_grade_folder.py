"""`grade DIR --out OUT`: a mixed class graded as `check` grades each student, written as it goes, resumed after a kill.

The class holds folders (correct, partly wrong, stubs, a crash and a missing module, work wrapped in an extra folder),
a git repository (graded at its commit: an uncommitted fix is not graded), a notebook of the nbgrader assignment, an
unreadable notebook and an empty folder. Every row of grades.csv must equal the scores that `check --json`'s code path
(engine.run.grade_many, which `check` calls) gives the same package, and every report its questions. The test course
is the kit's course.yaml cut to questions 1-4, so that a class costs seconds, not minutes.

The kill test starts the command with --jobs 1, kills it (SIGKILL) once some reports exist, starts it again, and
shows the same grades.csv as an uninterrupted run, with no student graded twice (OUT/grading.log has one "graded"
line per student, and the reports written before the kill are left as they were); the second run removes the
scratch folder the killed one left in the temporary folder.
"""
import argparse
import csv
import dataclasses
import json
import mmap
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import run_cli

from autograder.classroom import batch, storage
from autograder.classroom.intake import Entry, discover, fingerprint, locate, read_entry
from autograder.course.manifest import load_course
from autograder.course.results import number
from autograder.sandbox import STALE_SECONDS, sweep_stale
from autograder.sandbox.base import mapped_removed, over_disk, remove

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = (1, 2, 3, 4)
ENV = {
    **os.environ,
    "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    "PYTHONWARNINGS": "ignore",
}
BUG = ('return scores.masked_fill(~mask, float("-inf"))', 'return scores.masked_fill(mask, float("-inf"))')
UNREADABLE = {"fay": "cannot be read as a notebook", "hal": "an empty folder"}


def git(repo: Path, *args: str) -> str:
    """Stdout of a git command in repo (fails the test on error)."""
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def command() -> list[str]:
    """`python -m autograder grade`."""
    return [sys.executable, "-m", "autograder", "grade"]


def run_grade(kit: Path, *args: object, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the grade command from the test kit's folder (its course.yaml is the course), in a process of its own."""
    return subprocess.run(
        [*command(), *map(str, args)], cwd=kit, env=ENV, capture_output=True, text=True, timeout=timeout, check=False
    )


def grade_here(kit: Path, *args: object) -> subprocess.CompletedProcess:
    """The grade command run in this process from the test kit's folder, for tests of what it grades and writes, not
    of its process (the uninterrupted and the killed runs start one): its exit status and what it printed. Its
    workers are processes of their own all the same, each with its sandbox."""
    return run_cli(kit, "grade", *map(str, args))


def rows(out: Path) -> list[list[str]]:
    """grades.csv as rows."""
    with open(out / "grades.csv", newline="") as handle:
        return list(csv.reader(handle))


def events(out: Path, kind: str = "graded") -> list[dict]:
    """The lines of OUT/grading.log of one kind."""
    lines = (out / "grading.log").read_text().splitlines() if (out / "grading.log").exists() else []
    return [event for event in map(json.loads, lines) if event["event"] == kind]


def reports(out: Path) -> dict[str, dict]:
    """student -> report, for the reports written so far."""
    return {path.stem: json.loads(path.read_text()) for path in out.glob("*.json")}


def package(folder: Path, modules: dict[str, str]) -> Path:
    """An exercises-like package in folder with these modules."""
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text('"""Answers."""\n')
    for name, text in modules.items():
        (folder / name).write_text(text)
    return folder


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kit folder whose course is questions 1-4 of the real one (with solutions/, for the notebook builder)."""
    root = tmp_path_factory.mktemp("kit")
    manifest = yaml.safe_load((ROOT / "course.yaml").read_text())
    manifest["questions"] = [q for q in manifest["questions"] if q["number"] in QUESTIONS]
    (root / "course.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True))
    shutil.copytree(ROOT / "solutions", root / "solutions", ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture(scope="module")
def klass(kit: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    """(class folder, student -> the package `check` grades for them); the unreadable students have none."""
    import nbformat

    from autograder.nbgrader.course import build_notebook
    from autograder.nbgrader.answers import answers
    from autograder.nbgrader.package import write_package

    course = load_course(kit)
    base = tmp_path_factory.mktemp("class")
    folder, checked = base / "class", base / "check"
    solutions = {p.name: p.read_text() for p in sorted((ROOT / "solutions").glob("q*.py"))}
    stubs = {p.name: p.read_text() for p in sorted((ROOT / "exercises").glob("q*.py"))}
    wrong = ROOT / "tests" / "corpus" / "wrong"
    modules = {
        "ann": ("exercises", solutions),
        "ben": (".", solutions | {"q02_scaled_scores.py": (wrong / "q02_scale_by_d.py").read_text()}),
        "cat": ("exercises", stubs),
        "gus": (
            "exercises",
            {name: text for name, text in solutions.items() if name != "q04_heads.py"}
            | {"q01_causal_mask.py": (ROOT / "tests" / "hostile" / "segfault.py").read_text()},
        ),
        "ivy": ("ivy-attention-main/exercises", solutions | {"q02_scaled_scores.py": stubs["q02_scaled_scores.py"]}),
    }
    packages = {}
    for student, (inside, files) in modules.items():
        package(folder / student / inside, files)
        packages[student] = package(checked / student / "exercises", files)
    # dan: a clone of the release; the commit has a question-3 answer that calls F.scaled_dot_product_attention, the
    # working tree an uncommitted fix and a deleted module: graded at the commit, so neither counts
    committed = solutions | {"q03_attention.py": (wrong / "q03_calls_sdpa.py").read_text()}
    repo = folder / "dan"
    package(repo / "exercises", committed)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "my answers")
    (repo / "exercises" / "q03_attention.py").write_text(solutions["q03_attention.py"])
    (repo / "exercises" / "q04_heads.py").unlink()
    packages["dan"] = package(checked / "dan" / "exercises", committed)
    # eve: the assignment's notebook, answered with the solutions and one bug in question 1
    notebook = build_notebook(course)
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "q01_answer":
            assert BUG[0] in cell.source
            cell.source = cell.source.replace(*BUG)
    nbformat.write(notebook, str(folder / "eve.ipynb"))
    packages["eve"] = write_package(course, answers(course, notebook), checked / "eve" / "exercises")
    (folder / "fay.ipynb").write_text('{"cells": [')  # cut short: not JSON
    (folder / "hal").mkdir()
    return folder, packages


@pytest.fixture(scope="module")
def graded(
    kit: Path, klass: tuple[Path, dict[str, Path]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess]:
    """One uninterrupted run over the class, two workers: (OUT, the finished process)."""
    out = tmp_path_factory.mktemp("graded") / "out"
    done = run_grade(kit, klass[0], "--out", out, "--jobs", 2)
    return out, done


@pytest.mark.usefixtures("shared_sandbox")  # check's grading in the session's sandbox
def test_every_row_of_grades_csv_equals_check(kit, klass, graded):
    from autograder.engine.run import grade_many

    folder, packages = klass
    out, done = graded
    assert done.returncode == 1, done.stdout + done.stderr  # 1: some entries unreadable, the rest graded
    course = load_course(kit)
    students = sorted(packages)
    expected = dict(zip(students, grade_many(course, [(packages[s], course.numbers) for s in students])))
    table = rows(out)
    assert table[0] == ["student", "q1", "q2", "q3", "q4", "total", "status", "committed_at", "late_hours"]
    assert [row[0] for row in table[1:]] == sorted(students + list(UNREADABLE))
    written = reports(out)
    for row in table[1:]:
        student = row[0]
        if student in UNREADABLE:
            assert row[1:] == ["0"] * 5 + ["unreadable", "", ""]
            assert UNREADABLE[student] in written[student]["problem"]
            assert all(q["score"] == 0 for q in written[student]["questions"])
            continue
        report = expected[student]
        assert row == [
            student,
            *(str(number(q.score)) for q in report.questions),
            str(number(report.score)),
            "graded",
            "",
            "",
        ], student
        assert written[student]["questions"] == report.to_dict()["questions"], student
        assert written[student]["score"] == report.to_dict()["score"]
    by_student = {row[0]: row for row in table[1:]}
    assert by_student["ann"][1:6] == ["8", "8", "12", "8", "36"]
    assert by_student["ben"][2] != "8" and by_student["cat"][5] == "0"  # partly wrong; stubs
    # the commit's question 3 and 4, not the working tree's
    assert by_student["dan"][3] == "0" and by_student["dan"][4] == "8"
    assert by_student["eve"][1] != "8" and by_student["eve"][2] == "8"
    gus = {q["number"]: q for q in written["gus"]["questions"]}
    assert gus[1]["status"] == "crashed" and gus[4]["status"] == "error" and "missing" in gus[4]["reason"]
    assert written["dan"]["commit"] == git(folder / "dan", "rev-parse", "HEAD")
    assert written["dan"]["source"]["kind"] == "repository" and written["eve"]["source"]["kind"] == "notebook"
    assert written["ivy"]["source"]["graded"] == "ivy-attention-main/exercises/"
    assert all(
        written[s]["grader_version"] == written["ann"]["grader_version"] and written[s]["graded_at"] for s in written
    )
    assert "fay: scored 0" in done.stdout and "2 could not be graded" in done.stdout
    # two workers, each for the whole run
    assert len({event["worker"] for event in events(out) if event["worker"]}) <= 2


def test_a_rerun_grades_only_what_is_missing_or_changed(kit, klass, graded, tmp_path):
    folder, out = tmp_path / "class", tmp_path / "out"
    shutil.copytree(klass[0], folder, symlinks=True)
    shutil.copytree(graded[0], out)
    before = len(events(out))
    again = grade_here(kit, folder, "--out", out)
    assert again.returncode == 1 and "0 graded now, 9 unchanged" in again.stdout, again.stdout + again.stderr
    assert len(events(out)) == before and rows(out) == rows(graded[0])
    # ben fixes question 2
    shutil.copy(ROOT / "solutions" / "q02_scaled_scores.py", folder / "ben" / "q02_scaled_scores.py")
    (folder / "zed").mkdir()
    shutil.copytree(ROOT / "solutions", folder / "zed" / "exercises")  # a late student
    again = grade_here(kit, folder, "--out", out, "--quiet")
    assert again.returncode == 1, again.stdout + again.stderr
    assert sorted(event["student"] for event in events(out)[before:]) == ["ben", "zed"]
    table = {row[0]: row for row in rows(out)[1:]}
    assert table["ben"][2] == "8" and table["zed"][1:6] == ["8", "8", "12", "8", "36"]
    only = tmp_path / "only"
    only.mkdir()
    shutil.copytree(folder / "hal", only / "hal")
    shutil.copytree(folder / "cat", only / "cat")
    forced = grade_here(kit, only, "--out", out, "--force")
    assert forced.returncode == 1 and "2 graded now" in forced.stdout, forced.stdout + forced.stderr
    assert [row[0] for row in rows(out)[1:]] == ["cat", "hal"]  # grades.csv lists the class folder's students


def test_a_killed_run_resumes_without_grading_anyone_twice(kit, klass, graded, tmp_path):
    out = tmp_path / "out"
    process = subprocess.Popen(
        [*command(), str(klass[0]), "--out", str(out), "--jobs", "1"],
        cwd=kit,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while len(reports(out) if out.exists() else {}) < 4 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.poll() is None, "the run ended before it could be killed: " + process.stderr.read().decode()
    process.send_signal(signal.SIGKILL)
    process.wait()
    process.stderr.close()
    # the killed run's scratch folder
    left = list(Path(tempfile.gettempdir()).glob(f"autograder-class-{process.pid}-*"))
    assert left, "the killed run left no scratch folder behind"
    for folder in left:  # as if the run had been killed long ago: the next run sweeps it
        os.utime(folder, (time.time() - 2 * STALE_SECONDS,) * 2)
    before = {student: report["graded_at"] for student, report in reports(out).items()}
    killed = events(out)
    assert 4 <= len(before) < 9 and len(killed) <= len(before)
    worker = next(event["worker"] for event in killed if event["worker"])
    for _ in range(100):  # the worker dies with the driver (and its sandbox with it)
        if not Path(f"/proc/{worker}").exists():
            break
        time.sleep(0.05)
    assert not Path(f"/proc/{worker}").exists(), "the worker outlived the killed driver"
    resumed = run_grade(kit, klass[0], "--out", out, "--jobs", "1")
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    assert not any(folder.exists() for folder in left), "the resumed run left the killed run's scratch folder"
    assert rows(out) == rows(graded[0])
    after = reports(out)
    assert {student: after[student]["graded_at"] for student in before} == before  # written once, never again
    regraded = [event["student"] for event in events(out)[len(killed) :]]
    assert not set(regraded) & set(before)
    counts = Counter(event["student"] for event in events(out))
    assert max(counts.values()) == 1 and sorted(after) == [row[0] for row in rows(out)[1:]]


def test_only_folders_of_dead_graders_untouched_for_long_are_swept(tmp_path):
    finished = subprocess.Popen(["true"])
    finished.wait()
    dead, old = finished.pid, time.time() - 2 * STALE_SECONDS
    names = {
        f"autograder-{dead}-a": True,
        f"autograder-class-{dead}-b": True,
        f"autograder-{dead}-fresh": False,
        f"autograder-{os.getpid()}-alive": False,
        "autograder-from-an-older-kit": False,
        f"elsewhere-{dead}-c": False,
    }
    for name in names:
        (tmp_path / name / "job1").mkdir(parents=True)
        if not name.endswith("fresh"):
            os.utime(tmp_path / name, (old, old))
    (tmp_path / f"autograder-{dead}-file").write_text("not a folder")
    os.utime(tmp_path / f"autograder-{dead}-file", (old, old))
    assert sweep_stale(tmp_path) == 2
    assert {name: not (tmp_path / name).exists() for name in names} == names
    assert (tmp_path / f"autograder-{dead}-file").exists()


def test_files_nested_past_the_longest_path_are_counted_and_removed(tmp_path):
    """A child's folder holding 20 folders of 250-character names (a path past PATH_MAX, which the kernel refuses) and,
    at the bottom, an unlistable folder (mode 0300) of 70 MiB is over the disk limit, and is removed whole: the
    grader walks it through descriptors, as the child made it (tests/attacks/kernel_disk_beyond_path_max.py)."""
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(20):
        os.mkdir("x" * 250, dir_fd=fd)
        below = os.open("x" * 250, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = below
    os.mkdir("hoard", 0o300, dir_fd=fd)
    hoard = os.open("hoard", os.O_PATH | os.O_DIRECTORY, dir_fd=fd)
    for name in "0123456789":
        handle = os.open(name, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=hoard)
        os.write(handle, b"x" * (7 << 20))
        os.close(handle)
    os.close(hoard)
    os.close(fd)
    with pytest.raises(OSError, match="File name too long"):
        os.scandir(str(tmp_path) + ("/" + "x" * 250) * 20)
    assert "wrote more than" in over_disk(tmp_path)
    remove(tmp_path)
    assert not tmp_path.exists()


def test_a_removed_file_that_stays_mapped_counts(tmp_path):
    """A file of a child's folder mapped, its descriptors closed and removed: no listing and no descriptor shows it, but
    its blocks stay on the disk while the mapping lives; /proc/<pid>/maps names it, and it counts (its blocks where
    the grader may read them, more than the whole limit where it may not)."""
    path = tmp_path / "hoard"
    path.write_bytes(b"x" * (2 << 20))
    with path.open("r+b") as handle:
        mapping = mmap.mmap(handle.fileno(), mmap.PAGESIZE, mmap.MAP_SHARED)
    try:
        assert mapped_removed(os.getpid(), tmp_path) == 0
        path.unlink()
        assert mapped_removed(os.getpid(), tmp_path) >= 2 << 20
        assert mapped_removed(os.getpid(), tmp_path / "elsewhere") == 0
    finally:
        mapping.close()
    assert mapped_removed(os.getpid(), tmp_path) == 0


# -- the class folder, without grading ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "files, found",
    [
        (["exercises/__init__.py", "exercises/q01_causal_mask.py", "q01_causal_mask.py"], ("exercises", None, "")),
        (["q01_causal_mask.py", "helpers.py", "notes/a.py"], (".", None, "")),
        (
            ["attention-main/exercises/q01_causal_mask.py", "attention-main/README.py"],
            ("attention-main/exercises", None, ""),
        ),
        (["wrap/inner/q02_scaled_scores.py"], ("wrap/inner", None, "")),
        (["work/attention.ipynb"], (None, "work/attention.ipynb", "")),
        (["a.ipynb", "attention.ipynb"], (None, "attention.ipynb", "")),
        (["one/q01_causal_mask.py", "two/q01_causal_mask.py"], (None, None, "no exercise modules")),
        ([], (None, None, "no .py file")),
    ],
)
def test_where_the_modules_are_found(files, found):
    package, notebook, problem = locate(files)
    assert (package, notebook) == found[:2] and problem.startswith(found[2])


def test_entries_fingerprints_and_unreadable_repositories(tmp_path):
    (tmp_path / "ann" / "exercises").mkdir(parents=True)
    (tmp_path / "ann" / "exercises" / "q01_causal_mask.py").write_text("x = 1\n")
    (tmp_path / "bob.ipynb").write_text("{}")
    (tmp_path / "notes.txt").write_text("a stray file: an entry that cannot be graded")
    (tmp_path / ".hidden").mkdir()
    repo = tmp_path / "cy"
    (repo / "exercises").mkdir(parents=True)
    (repo / "exercises" / "q01_causal_mask.py").write_text("x = 1\n")
    git(repo, "init", "-q")
    assert "no commit" in read_entry(Entry("cy", repo, "repository")).problem
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    entries = discover(tmp_path)
    assert [(e.student, e.kind) for e in entries] == [
        ("ann", "folder"),
        ("bob", "notebook"),
        ("cy", "repository"),
        ("notes", "file"),
    ]
    assert (
        "notes.txt is not a folder, a git repository, a notebook (.ipynb) or a zip: not graded"
        in read_entry(entries[3]).problem
    )
    first = fingerprint(entries[2])
    assert first["commit"] == git(repo, "rev-parse", "HEAD") and first["sha256"] == fingerprint(entries[0])["sha256"]
    (repo / "exercises" / "q01_causal_mask.py").write_text("x = 2\n")  # not committed: not graded, same fingerprint
    assert fingerprint(entries[2]) == first
    git(repo, "commit", "-qam", "two")
    assert fingerprint(entries[2])["commit"] != first["commit"] and fingerprint(entries[2])["sha256"] != first["sha256"]
    shutil.rmtree(repo / ".git" / "objects")
    assert "not a readable git repository" in read_entry(entries[2]).problem


def test_usage_errors_and_a_class_with_nothing_gradable(tmp_path, capsys):
    course = load_course(ROOT)

    def main(folder: Path, out: Path) -> int:
        return batch.main(
            argparse.Namespace(dir=folder, out=out, jobs=1, force=False, scheduler=None, quiet=True), course
        )

    assert main(tmp_path / "nowhere", tmp_path / "out") == 2
    (tmp_path / "empty").mkdir()
    assert main(tmp_path / "empty", tmp_path / "out") == 2
    klass = tmp_path / "klass"
    (klass / "hal").mkdir(parents=True)
    (klass / "ida" / "exercises").mkdir(parents=True)
    (klass / "ida" / "exercises" / "notes.py").write_text("")
    assert main(klass, tmp_path / "out") == 2  # nothing gradable: both listed, scored 0
    assert "nothing in" in capsys.readouterr().err
    assert [row[0] for row in rows(tmp_path / "out")[1:]] == ["hal", "ida"]
    assert "no exercise modules" in reports(tmp_path / "out")["ida"]["problem"]
    with open(tmp_path / "out" / batch.LOCK) as held:
        import fcntl

        fcntl.flock(held, fcntl.LOCK_EX)
        assert main(klass, tmp_path / "out") == 2  # another run holds OUT
    assert "another `grade` run" in capsys.readouterr().err


def test_a_run_whose_own_limits_change_stops_and_grades_that_student_last(tmp_path, capsys, monkeypatch):
    """The run reads its own limits, priority and CPUs after each student: changed (here by the test, while bob is
    graded), it stops with a line that names bob, writes no report for him, and the next run grades him last and
    marks his report."""
    import resource

    course = load_course(ROOT)
    course = dataclasses.replace(course, questions=tuple(q for q in course.questions if q.number == 1))
    klass, out = tmp_path / "klass", tmp_path / "out"
    for student in ("ann", "bob", "cat"):
        package(
            klass / student / "exercises",
            {"q01_causal_mask.py": (ROOT / "solutions" / "q01_causal_mask.py").read_text()},
        )
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    add = batch.Results.add

    def add_then_change(self, entry, report):
        add(self, entry, report)
        if entry.student == "ann":  # bob is graded next: the change is seen when his report comes back
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft - 1, hard))

    def main() -> int:
        return batch.main(
            argparse.Namespace(dir=klass, out=out, jobs=1, force=False, scheduler=None, quiet=True), course
        )

    monkeypatch.setattr(batch.Results, "add", add_then_change)
    try:
        assert main() == batch.RUN_FAILED
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert "changed while bob was graded" in capsys.readouterr().err
    assert sorted(reports(out)) == ["ann"] and json.loads((out / storage.IN_FLIGHT).read_text()) == ["bob"]
    monkeypatch.setattr(batch.Results, "add", add)
    assert main() == 0
    assert [event["student"] for event in events(out)] == ["ann", "cat", "bob"]
    graded = reports(out)
    assert (
        graded["bob"]["in_a_killed_run"]
        and "in_a_killed_run" not in graded["cat"]
        and graded["bob"]["score"] == graded["bob"]["max_score"]
    )
    assert not (out / storage.IN_FLIGHT).exists()


def test_grading_without_the_kernel_walls_is_refused_unless_allowed(tmp_path, capsys, monkeypatch):
    """Where seccomp and Landlock cannot be put up (macOS, Windows, a container that refuses them), grade refuses and
    says why; with --allow-weak-isolation it grades, says so in its first line, in each report and in grades.csv's
    status."""
    course = load_course(ROOT)
    course = dataclasses.replace(course, questions=tuple(q for q in course.questions if q.number == 1))
    klass, out = tmp_path / "klass", tmp_path / "out"
    package(
        klass / "ann" / "exercises", {"q01_causal_mask.py": (ROOT / "solutions" / "q01_causal_mask.py").read_text()}
    )
    monkeypatch.setattr(batch, "missing_walls", lambda: ["seccomp", "Landlock"])

    def main(*allow: bool) -> int:
        return batch.main(
            argparse.Namespace(
                dir=klass, out=out, jobs=1, force=False, scheduler=None, quiet=True, allow_weak_isolation=bool(allow)
            ),
            course,
        )

    assert main() == 2
    assert "cannot put up seccomp, Landlock" in capsys.readouterr().err and not (out / "grades.csv").exists()
    assert main(True) == 0
    assert capsys.readouterr().err.splitlines()[0].startswith("autograder: weak isolation: no seccomp, Landlock")
    assert reports(out)["ann"]["weak_isolation"] == ["seccomp", "Landlock"]
    assert rows(out)[1][3] == "graded (weak isolation)" and rows(out)[1][1] == "8"


def test_a_student_cannot_read_the_class_folder(tmp_path, session_sandbox):
    """The other students' work is in the class folder: a module that reads a classmate's file costs its question
    (graded in the session's sandbox)."""
    import dataclasses

    from autograder.classroom.work import grade_entry

    course = load_course(ROOT)
    course = dataclasses.replace(course, questions=course.questions[:1])
    folder = tmp_path / "class"
    for student in ("ann", "kim"):
        (folder / student).mkdir(parents=True)
        shutil.copy(ROOT / "solutions" / "q01_causal_mask.py", folder / student)
    theirs = folder / "ann" / "q01_causal_mask.py"
    mine = folder / "kim" / "q01_causal_mask.py"
    mine.write_text(f"ANSWERS = open({str(theirs)!r}).read()\n" + mine.read_text())
    entry = Entry("kim", folder / "kim", "folder")
    report = grade_entry(course, entry, session_sandbox, tmp_path / "scratch").to_dict()
    question = report["questions"][0]
    assert question["status"] == "error" and question["reason"].startswith(f"reads {theirs}"), question


# -- the class summary, the LMS files, --student and --deadline ---------------------------------------------------


def _table(markdown: str, caption: str) -> list[list[str]]:
    """The rows of the summary.md table under `## caption` (header and rule left out)."""
    block = markdown.split(f"## {caption}\n\n", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in block]


def test_the_summary_and_the_lms_files_agree_with_the_reports(graded):
    from autograder.classroom.summary import outcome

    out, done = graded
    written = reports(out)
    graded_ones = {s: r for s, r in written.items() if not r.get("problem")}
    text = (out / "summary.md").read_text()
    for row in _table(text, "Questions"):
        number_ = int(row[0].split()[0])
        entries = [next(q for q in r["questions"] if q["number"] == number_) for r in graded_ones.values()]
        counts = [
            sum(outcome(q) == kind for q in entries)
            for kind in ("full", "partial", "zero", "not attempted", "error", "flagged")
        ]
        assert [int(cell) for cell in row[5:]] == counts, row
        assert float(row[2]) == pytest.approx(
            sorted(q["score"] for q in entries)[len(entries) // 2]
            if len(entries) % 2
            else sum(sorted(q["score"] for q in entries)[len(entries) // 2 - 1 :][:2]) / 2,
            abs=0.01,
        )
    made: dict[str, set[str]] = {}
    for student, r in graded_ones.items():
        for q in r["questions"]:
            for test in q["tests"]:
                if test.get("mistake"):
                    made.setdefault(test["mistake"], set()).add(student)
    assert "ben" in made.get("q02.scale_by_d", set())
    assert {row[0]: set(row[3].split(", ")) for row in _table(text, "Known mistakes met")} == made
    assert {row[0] for row in _table(text, "Entries not graded")} == set(UNREADABLE)
    assert 'src="data:image/png;base64,' in (out / "summary.html").read_text()
    assert (out / "summary.png").read_bytes().startswith(b"\x89PNG")
    assert "9 student(s), 7 graded, 2 not graded" in done.stdout and "q02.scale_by_d" in done.stdout
    totals = {row[0]: row[5] for row in rows(out)[1:]}
    with open(out / "canvas.csv", newline="") as handle:
        canvas = list(csv.reader(handle))
    assert canvas[1][0] == "Points Possible" and {row[3]: row[5] for row in canvas[2:]} == totals
    with open(out / "moodle.csv", newline="") as handle:
        assert dict(list(csv.reader(handle))[1:]) == totals
    assert {row[0]: row[6] for row in rows(out)[1:]} == {
        s: "unreadable" if s in UNREADABLE else "graded" for s in written
    }


def test_student_regrades_only_those_named(kit, klass, graded, tmp_path):
    folder, out = tmp_path / "class", tmp_path / "out"
    shutil.copytree(klass[0], folder, symlinks=True)
    shutil.copytree(graded[0], out)
    before = len(events(out))
    # ben fixes question 2
    shutil.copy(ROOT / "solutions" / "q02_scaled_scores.py", folder / "ben" / "q02_scaled_scores.py")
    # and cat everything: not named
    shutil.copytree(ROOT / "solutions", folder / "cat" / "exercises", dirs_exist_ok=True)
    again = grade_here(kit, folder, "--out", out, "--student", "ben", "--student", "hal", "--quiet")
    assert again.returncode == 1, again.stdout + again.stderr
    assert sorted(event["student"] for event in events(out)[before:]) == ["ben", "hal"]
    table = {row[0]: row for row in rows(out)[1:]}
    assert sorted(table) == sorted(reports(graded[0])) and table["ben"][2] == "8" and table["cat"][5] == "0"
    assert "q02.scale_by_d" not in (out / "summary.md").read_text()  # ben was the only one to make it
    unknown = grade_here(kit, folder, "--out", out, "--student", "nobody")
    assert unknown.returncode == 2 and "--student nobody" in unknown.stderr


def test_deadline_grades_the_last_commit_before_it(kit, tmp_path):
    solutions = {
        p.name: p.read_text() for p in sorted((ROOT / "solutions").glob("q*.py")) if p.name[:3] in ("q01", "q02")
    }
    folder, out = tmp_path / "class", tmp_path / "out"

    def commit(repo: Path, files: dict[str, str], when: str) -> None:
        for name, text in files.items():
            (repo / "exercises" / name).write_text(text)
        git(repo, "add", "-A")
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", when],
            cwd=repo,
            check=True,
            env={**os.environ, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when},
        )

    stub = (ROOT / "exercises" / "q01_causal_mask.py").read_text()
    for student in ("kim", "lou"):
        (folder / student / "exercises").mkdir(parents=True)
        git(folder / student, "init", "-q")
    commit(folder / "kim", {"q01_causal_mask.py": stub}, "2026-11-01T10:00:00+00:00")  # on time: the stub
    commit(folder / "kim", solutions, "2026-11-03T10:00:00+00:00")  # after the deadline: not graded
    commit(folder / "lou", solutions, "2026-11-02T12:00:00+00:00")  # lou's only commit is 12 hours late
    done = grade_here(kit, folder, "--out", out, "--deadline", "2026-11-02T00:00:00+00:00", "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    table = {row[0]: row for row in rows(out)[1:]}
    assert table["kim"][1] == "0" and table["kim"][6:] == ["graded", "2026-11-01T10:00:00+00:00", "0"]
    assert table["lou"][1] == "8" and table["lou"][6:] == ["late", "2026-11-02T12:00:00+00:00", "12"]
    kim = reports(out)["kim"]
    assert kim["commit"] == git(folder / "kim", "rev-parse", "HEAD~1") and kim["commits_after_deadline"] == 1
    assert "1 late" in done.stdout
    wrong = grade_here(kit, folder, "--out", out, "--deadline", "next friday")
    assert wrong.returncode == 2 and "--deadline next friday is not a date" in wrong.stderr
