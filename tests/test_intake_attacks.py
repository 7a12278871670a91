"""A hostile submission's layout (not its code) against intake, which reads every entry as the grader's user (root,
often), outside the sandbox: each attack of the red team (tests/attacks/ on their branch, intake_*) is built beside
an honest classmate and graded with `grade DIR`, then with `grade DIR --deadline`. No program of the student's runs
(a marker file never appears), nothing of the course secret or of the classmate reaches the attacker's report, the
classmate keeps full marks and the class is graded to the end: a malformed entry is `unreadable`, with one line.

* config: .git/config sets log.showSignature and gpg.program (a script of the entry), HEAD's commit has a gpgsig;
* lazy: .git/config makes it a partial clone whose core.sshCommand is a script, and a blob is deleted;
* date: HEAD's committer date is 9223372036854775808;
* missing: a blob of exercises/ is deleted;
* gitdir: the entry holds only a .git file, "gitdir: ../ann/.git";
* links: exercises/q01 links to ann's module and q02 to a file only the grader may read (the course secret's stand-in);
  half: q01 is the student's own, q02 that link; alias: the entry itself is a link to ann.
The course is questions 1 and 2, to keep the two runs cheap.
"""
import csv
import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.classroom.intake import Entry, discover, read_entry
from test_attacks import kit  # noqa: F401 - the fixture: a kit folder of questions 1 and 2

ROOT = Path(__file__).resolve().parent.parent
ENV = {
    **os.environ,
    "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    "PYTHONWARNINGS": "ignore",
}
SOLUTIONS = {name: (ROOT / "solutions" / name).read_text() for name in ("q01_causal_mask.py", "q02_scaled_scores.py")}
HUGE_DATE = "9223372036854775808"


def git(repo: Path, *args: str, data: str | None = None) -> str:
    """Stdout of a git command in repo, with no configuration but the test's (fails the test on error)."""
    environment = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=repo,
        input=data,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def repository(path: Path, files: dict[str, str]) -> Path:
    """A repository at path with files committed under exercises/."""
    (path / "exercises").mkdir(parents=True)
    for name, text in files.items():
        (path / "exercises" / name).write_text(text)
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "my answers")
    return path


def hand_made_commit(repo: Path, header: str) -> None:
    """Point HEAD at a commit of repo's index written by hand, with header (author, committer, ...) as given."""
    tree = git(repo, "write-tree")
    sha = git(
        repo, "hash-object", "--literally", "-t", "commit", "-w", "--stdin", data=f"tree {tree}\n{header}\nwork\n"
    )
    git(repo, "update-ref", "HEAD", sha)


def delete_blob(repo: Path, path: str) -> None:
    """Remove the (loose) object of HEAD's file path from repo."""
    sha = git(repo, "rev-parse", f"HEAD:{path}")
    (repo / ".git" / "objects" / sha[:2] / sha[2:]).unlink()


def script(path: Path, marker: Path) -> str:
    """An executable script at path that writes marker when it runs; its path."""
    path.write_text(f"#!/bin/sh\nid > '{marker}'\nexit 1\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The class folder: ann (honest, a repository) and one entry per attack; the marker, the secret, ann's commit."""
    base = tmp_path_factory.mktemp("layout")
    folder, marker = base / "class", base / "pwned"
    secret = base / "grader-only" / "course-secret"  # stands in for autograder/suites/.course-secret: root's file
    secret.parent.mkdir()
    token = secrets.token_hex(16)
    secret.write_text(token + "\n")
    ann = repository(folder / "ann", SOLUTIONS)

    config = repository(folder / "config", SOLUTIONS)
    hand_made_commit(
        config,
        "author t <t@x> 1700000000 +0000\ncommitter t <t@x> 1700000000 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n",
    )
    git(config, "config", "log.showSignature", "true")
    git(config, "config", "gpg.program", script(config / ".git" / "hook.sh", marker))

    lazy = repository(folder / "lazy", SOLUTIONS)
    delete_blob(lazy, "exercises/q02_scaled_scores.py")
    for key, value in {
        "core.repositoryformatversion": "1",
        "extensions.partialClone": "origin",
        "remote.origin.url": "ssh://example.invalid/repo",
        "remote.origin.promisor": "true",
        "core.sshCommand": script(lazy / ".git" / "hook.sh", marker),
    }.items():
        git(lazy, "config", key, value)

    date = repository(folder / "date", SOLUTIONS)
    hand_made_commit(date, f"author e <e@x> {HUGE_DATE} +0000\ncommitter e <e@x> {HUGE_DATE} +0000\n")
    delete_blob(repository(folder / "missing", SOLUTIONS), "exercises/q02_scaled_scores.py")
    (folder / "gitdir").mkdir()
    (folder / "gitdir" / ".git").write_text("gitdir: ../ann/.git\n")

    (folder / "links" / "exercises").mkdir(parents=True)
    (folder / "links" / "exercises" / "q01_causal_mask.py").symlink_to("../../ann/exercises/q01_causal_mask.py")
    (folder / "links" / "exercises" / "q02_scaled_scores.py").symlink_to(secret)
    (folder / "half" / "exercises").mkdir(parents=True)
    (folder / "half" / "exercises" / "q01_causal_mask.py").write_text(SOLUTIONS["q01_causal_mask.py"])
    (folder / "half" / "exercises" / "q02_scaled_scores.py").symlink_to(secret)
    (folder / "alias").symlink_to("ann")
    return {"folder": folder, "marker": marker, "token": token, "ann": git(ann, "rev-parse", "HEAD")}


def grade(
    kit: Path, klass: dict, out: Path, *options: str  # noqa: F811 - kit: the fixture's name
) -> tuple[subprocess.CompletedProcess, dict[str, dict], dict[str, list[str]]]:
    """Run `grade DIR --out OUT` with options: (the process, student -> report, student -> grades.csv row)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            str(klass["folder"]),
            "--out",
            str(out),
            "--jobs",
            "2",
            "--quiet",
            *options,
        ],
        cwd=kit,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    # some unreadable, all graded
    assert done.returncode == 1 and "internal error" not in done.stderr, done.stdout + done.stderr
    with open(out / "grades.csv", newline="") as handle:
        table = {row[0]: row for row in list(csv.reader(handle))[1:]}
    return done, {path.stem: json.loads(path.read_text()) for path in out.glob("*.json")}, table


@pytest.mark.parametrize("options", [(), ("--deadline", "2030-01-01")], ids=["plain", "deadline"])
def test_a_hostile_layout_costs_only_its_owner(kit, klass, tmp_path, options):  # noqa: F811 - the fixture
    out = tmp_path / "out"
    klass["marker"].unlink(missing_ok=True)
    done, reports, table = grade(kit, klass, out, *options)
    assert not klass["marker"].exists(), "a program of the student's ran in the grader"
    for path in out.rglob("*"):
        assert not path.is_file() or klass["token"] not in path.read_text(errors="replace"), path
    assert set(table) == {"ann", "config", "lazy", "date", "missing", "gitdir", "links", "half", "alias"}
    assert table["ann"][3:5] == ["16", "graded"] and reports["ann"]["commit"] == klass["ann"]
    assert table["config"][3:5] == ["16", "graded"]  # its own work, graded; its gpg.program never ran
    for student in ("lazy", "missing"):
        assert table[student][4] == "unreadable" and "is missing" in reports[student]["problem"], reports[student][
            "problem"
        ]
    if options:
        assert table["date"][4] == "unreadable" and "no calendar holds" in reports["date"]["problem"]
    else:
        assert table["date"][3:5] == ["16", "graded"]
    for student in ("gitdir", "links", "alias"):  # never graded on ann's work
        report = reports[student]
        assert table[student][3:5] == ["0", "unreadable"] and klass["ann"] not in json.dumps(report), report
        assert "\n" not in report["problem"] and len(report["problem"]) < 300
    assert ".git is a file or a link" in reports["gitdir"]["problem"]
    assert (
        "is a symbolic link: not graded" in reports["links"]["problem"]
        and reports["alias"]["problem"] == "alias is a symbolic link: not graded"
    )
    half = {q["number"]: q for q in reports["half"]["questions"]}
    assert half[1]["score"] == 8 and half[2]["score"] == 0
    assert half[2]["reason"] == "exercises/q02_scaled_scores.py is a symbolic link: not graded", half[2]
    assert {check["message"] for check in half[2]["tests"]} == {half[2]["reason"]}
    assert "exercises/q02_scaled_scores.py is a symbolic link: not graded" in done.stdout + json.dumps(
        reports["half"]["source"]
    )


def test_only_regular_files_are_read_and_packed_or_shallow_repositories_still_are(tmp_path):
    """A pipe named as a module is left out (reading it would hang the grader); a .git that links elsewhere is no
    repository; a repository whose objects are packed, or a shallow clone, is read as before."""
    (tmp_path / "pipe" / "exercises").mkdir(parents=True)
    (tmp_path / "pipe" / "exercises" / "q01_causal_mask.py").write_text(SOLUTIONS["q01_causal_mask.py"])
    os.mkfifo(tmp_path / "pipe" / "exercises" / "q02_scaled_scores.py")
    contents = read_entry(Entry("pipe", tmp_path / "pipe", "folder"))
    assert list(contents.modules) == ["q01_causal_mask.py"]
    assert contents.left_out == {
        "q02_scaled_scores.py": "exercises/q02_scaled_scores.py is not a regular file: not graded"
    }
    packed = repository(tmp_path / "packed", SOLUTIONS)
    git(packed, "gc", "-q", "--aggressive")
    assert not list((packed / ".git" / "objects").glob("??/*"))
    contents = read_entry(Entry("packed", packed, "repository"))
    assert contents.commit == git(packed, "rev-parse", "HEAD") and sorted(contents.modules) == sorted(SOLUTIONS), (
        contents.problem
    )
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{packed}", str(shallow))
    assert read_entry(Entry("shallow", shallow, "repository")).commit == contents.commit
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / ".git").symlink_to(packed / ".git")
    assert [(e.student, e.kind) for e in discover(tmp_path) if e.student == "linked"] == [("linked", "repository")]
    assert ".git is a file or a link" in read_entry(Entry("linked", tmp_path / "linked", "repository")).problem
    view = tmp_path / "view"  # grade --nbgrader's: a link per submission, followed once
    view.mkdir()
    (view / "pipe").symlink_to(tmp_path / "pipe")
    (view / "alias").symlink_to(view / "pipe")
    (view / "notes.ipynb").symlink_to(tmp_path / "pipe" / "exercises" / "q01_causal_mask.py")
    found = {e.student: e for e in discover(view, linked=True)}
    assert found["pipe"].path == tmp_path / "pipe" and read_entry(found["pipe"]).modules
    assert read_entry(found["alias"]).problem == "pipe is a symbolic link: not graded"
    assert [(e.student, e.kind) for e in discover(view)] == [
        ("alias", "folder"),
        ("notes", "notebook"),
        ("pipe", "folder"),
    ]
    assert {read_entry(e).problem for e in discover(view)} == {
        f"{name} is a symbolic link: not graded" for name in ("alias", "notes.ipynb", "pipe")
    }
    shutil.rmtree(packed / ".git" / "objects" / "pack")
    assert "not a readable git repository" in read_entry(Entry("packed", packed, "repository")).problem
