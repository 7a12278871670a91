"""A gradebook an instructor can trust: every entry of the class folder gets its row, the LMS columns keep one name in
every language, a full disk is said as such, and look-alike names are one student.

One small class (questions 1 and 2) is graded once for the module: a folder, a zip wrapping its work in a folder of its
own, a byte-identical copy of that zip's files as a folder, a disguised copy of its question 2 (names changed, comments
dropped), a damaged zip and a file that is no submission. The other
tests need no grading (report dicts, or classes whose entries are all unreadable): milliseconds each.
"""
import argparse
import csv
import errno
import io
import json
import os
import shutil
import subprocess
import sys
import re
import unicodedata
import zipfile
from pathlib import Path

import pytest
import yaml

from autograder.classroom import batch, exports
from autograder.course.class_report import EntryReport
from autograder.cli.main import main as cli_main
from autograder.classroom.intake import discover, read_entry
from autograder.course.manifest import ManifestError, load_course

ROOT = Path(__file__).resolve().parent.parent
ENV = {
    **os.environ,
    "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    "PYTHONWARNINGS": "ignore",
}
SOLUTIONS = {p.name: p.read_text() for p in sorted((ROOT / "solutions").glob("q0[12]_*.py"))}
WRONG_Q2 = (ROOT / "tests" / "corpus" / "wrong" / "q02_scale_by_d.py").read_text()
STUB_Q1 = (ROOT / "exercises" / "q01_causal_mask.py").read_text()


def disguised(source: str) -> str:
    """source as a copier hides it: names changed, comments dropped, blank lines added."""
    source = re.sub(r"\bgenerator\b", "rng", re.sub(r"\bscores\b", "logits", source))
    return "\n\n".join(line.split("  #")[0] for line in source.splitlines()) + "\n"


def csv_rows(path: Path) -> list[list[str]]:
    """A CSV file as rows."""
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))


def kit_folder(root: Path, **extra: object) -> Path:
    """A kit folder whose course is questions 1 and 2 of the real one, with extra top-level keys."""
    manifest = yaml.safe_load((ROOT / "course.yaml").read_text())
    manifest["questions"] = [q for q in manifest["questions"] if q["number"] in (1, 2)]
    manifest.update(extra)
    root.mkdir(parents=True, exist_ok=True)
    (root / "course.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True))
    return root


def zipped(path: Path, files: dict[str, str]) -> Path:
    """A zip at path holding files (name inside -> text)."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def modules(folder: Path, files: dict[str, str]) -> None:
    """An exercises/ folder in folder with these modules."""
    (folder / "exercises").mkdir(parents=True)
    for name, text in files.items():
        (folder / "exercises" / name).write_text(text)


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kit folder whose course is questions 1 and 2."""
    return kit_folder(tmp_path_factory.mktemp("kit"))


@pytest.fixture(scope="module")
def graded(kit: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    """(OUT, the finished `grade` process) for a class of folders, zips and a stray file (two workers)."""
    folder = tmp_path_factory.mktemp("class")
    bob = SOLUTIONS | {"q02_scaled_scores.py": WRONG_Q2}
    modules(folder / "ann", SOLUTIONS)
    zipped(
        folder / "bob.zip",
        {f"bob-attention-main/exercises/{name}": text for name, text in bob.items()}
        | {"__MACOSX/bob-attention-main/exercises/._q01_causal_mask.py": "\x00\x05"},
    )  # what macOS's Compress adds
    modules(folder / "eve", bob)
    modules(folder / "fay", {"q01_causal_mask.py": STUB_Q1, "q02_scaled_scores.py": disguised(WRONG_Q2)})
    (folder / "cy.zip").write_bytes(b"PK\x03\x04 cut short by the upload")
    (folder / "dee.tar.gz").write_bytes(b"\x1f\x8b not a submission the kit reads")
    out = tmp_path_factory.mktemp("graded") / "out"
    return out, grade(kit, folder, out)


def grade(kit: Path, folder: Path, out: Path, *options: str) -> subprocess.CompletedProcess:
    """`python -m autograder grade folder --out out --jobs 2 --quiet options...`, run from the kit's folder."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            str(folder),
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


def test_every_entry_of_the_class_folder_gets_a_row(graded):
    """A zip is graded as the folder it unpacks to; a damaged zip and a stray file are rows with status unreadable."""
    out, done = graded
    assert done.returncode == batch.SOME_UNREADABLE, done.stdout + done.stderr
    everyone = ["ann", "bob", "cy", "dee.tar", "eve", "fay"]
    grades = {row[0]: row for row in csv_rows(out / "grades.csv")[1:]}
    assert sorted(grades) == everyone
    assert sorted(row[3] for row in csv_rows(out / "canvas.csv")[2:]) == everyone
    assert sorted(row[0] for row in csv_rows(out / "moodle.csv")[1:]) == everyone
    logged = [json.loads(line) for line in (out / "grading.log").read_text().splitlines()]
    assert sorted(line["student"] for line in logged if line["event"] == "graded") == everyone
    bob, eve = (json.loads((out / f"{name}.json").read_text()) for name in ("bob", "eve"))
    assert bob["source"]["kind"] == "zip" and bob["source"]["graded"] == "bob-attention-main/exercises/"
    assert bob["questions"] == eve["questions"] and bob["sha256"] == eve["sha256"]  # the same files, the same grade
    assert grades["bob"][1] == grades["ann"][1] == "8" and 0 < float(grades["bob"][2]) < float(grades["ann"][2])
    assert grades["cy"][-3:] == ["unreadable", "", ""] and grades["dee.tar"][-3:] == ["unreadable", "", ""]
    assert "cy.zip cannot be read as a zip" in json.loads((out / "cy.json").read_text())["problem"]
    assert (
        "dee.tar.gz is not a folder, a git repository, a notebook (.ipynb) or a zip"
        in json.loads((out / "dee.tar.json").read_text())["problem"]
    )
    assert "dee.tar: scored 0" in done.stdout and "2 could not be graded" in done.stdout
    feedback = (out / "cy.feedback.md").read_text()
    # its one reason, no empty question headings
    assert "cy.zip cannot be read as a zip" in feedback and "## " not in feedback


def test_a_zip_is_read_as_the_folder_it_unpacks_to(tmp_path):
    """Members are read, never written: a link member is left out, a `../` name is never a path, a notebook is found."""
    zipped(tmp_path / "nb.zip", {"work/attention.ipynb": "{}", "work/notes.txt": "x"})
    with zipfile.ZipFile(tmp_path / "link.zip", "w") as archive:
        link = zipfile.ZipInfo("exercises/q01_causal_mask.py")
        link.external_attr = 0o120777 << 16
        archive.writestr(link, "/etc/passwd")
        archive.writestr("exercises/q02_scaled_scores.py", "x = 2\n")
        archive.writestr("../../q01_causal_mask.py", "x = 3\n")
    # Moodle's folder around the upload
    (tmp_path / "moodle" / "Carol Smith_123_assignsubmission_file_").mkdir(parents=True)
    zipped(
        tmp_path / "moodle" / "Carol Smith_123_assignsubmission_file_" / "attention.ZIP",
        {"exercises/q01_causal_mask.py": "x = 1\n"},
    )
    found = {entry.student: read_entry(entry) for entry in discover(tmp_path) + discover(tmp_path / "moodle")}
    assert found["Carol Smith_123_assignsubmission_file_"].modules == {"q01_causal_mask.py": b"x = 1\n"}
    assert found["Carol Smith_123_assignsubmission_file_"].where == "attention.ZIP/exercises/"
    assert found["nb"].notebook == b"{}" and found["nb"].where == "work/attention.ipynb"
    assert found["link"].modules == {"q02_scaled_scores.py": b"x = 2\n"}
    assert found["link"].left_out == {
        "q01_causal_mask.py": "exercises/q01_causal_mask.py is a symbolic link: not graded"
    }
    assert not (tmp_path.parent / "q01_causal_mask.py").exists()


# -- the LMS columns ---------------------------------------------------------------------------------------------


def _lms_files(kit: Path, language: str, out: Path) -> dict[str, list[list[str]]]:
    from autograder.i18n import set_language

    reports = {"ann": EntryReport(20, 20, [])}
    out.mkdir()
    set_language(language)
    try:
        course = load_course(kit)
        batch.write_class_files(course, out, reports)
        title = course.title
    finally:
        set_language("en")
    return {"title": title, **{name: csv_rows(out / name) for name in ("canvas.csv", "moodle.csv")}}


def test_a_french_run_writes_the_gradebook_files_of_the_english_one(kit, graded, tmp_path):
    """`grade --lang fr` on the same class: the summary speaks French, canvas.csv and moodle.csv are the English run's,
    byte for byte (the reports are current: only the class files are written again)."""
    out, _done = graded
    french = tmp_path / "out"
    shutil.copytree(out, french)
    done = grade(kit, Path(json.loads((out / "ann.json").read_text())["source"]["path"]).parent, french, "--lang", "fr")
    assert done.returncode == batch.SOME_UNREADABLE, done.stdout + done.stderr
    assert (
        "Bilan de la classe" in (french / "summary.md").read_text()
        and "Class summary" in (out / "summary.md").read_text()
    )
    for name in ("canvas.csv", "moodle.csv"):
        assert (french / name).read_bytes() == (out / name).read_bytes(), name


def test_a_french_language_names_the_gradebook_columns_as_the_english_one(kit, tmp_path):
    """The column an import matches is the course's lms_name (the English title by default), whatever the language."""
    english, french = (_lms_files(kit, language, tmp_path / language) for language in ("en", "fr"))
    assert french["title"] != english["title"]  # the French title is translated: the summary speaks French ...
    # ... the gradebook does not
    assert french["canvas.csv"] == english["canvas.csv"] and french["moodle.csv"] == english["moodle.csv"]
    assert english["canvas.csv"][0][5] == english["moodle.csv"][0][1] == english["title"] == load_course(ROOT).title


def test_lms_name_in_course_yaml_names_the_column(tmp_path):
    named = kit_folder(tmp_path / "named", lms_name="Homework 3: attention")
    assert load_course(named).lms_name == "Homework 3: attention"
    files = _lms_files(named, "fr", tmp_path / "out")
    assert files["canvas.csv"][0][5] == files["moodle.csv"][0][1] == "Homework 3: attention"
    with pytest.raises(ManifestError, match="lms_name"):
        load_course(kit_folder(tmp_path / "empty", lms_name=" "))


# -- identities --------------------------------------------------------------------------------------------------


def _main(kit: Path, folder: Path, out: Path, **extra: object) -> int:
    """`grade folder --out out` in this process, with the kit's course."""
    return batch.main(
        argparse.Namespace(dir=folder, out=out, jobs=1, force=False, scheduler=None, quiet=True, **extra),
        load_course(kit),
    )


def test_a_gradebook_format_is_one_function_and_one_registry_line(kit, tmp_path, monkeypatch, capsys):
    """A toy format registered in exports.EXPORTS is written by `grade` beside the others, from the typed reports, and
    listed by `grade --help`, where the docs send the reader for the list: no page of the docs has to name it."""

    def toy(course, reports):
        return "".join(
            f"{student};{report.status};{report.score}\n" for student, report in sorted(reports.items())
        ).encode()

    monkeypatch.setitem(exports.EXPORTS, "toy", exports.Export("toy.txt", "a toy gradebook", toy))
    for student in ("ann", "bob"):
        (tmp_path / "class" / student).mkdir(parents=True)  # unreadable: decided without a worker
    # nothing gradable, the files written all the same
    assert _main(kit, tmp_path / "class", tmp_path / "out") == batch.USAGE_ERROR
    assert (tmp_path / "out" / "toy.txt").read_text() == "ann;unreadable;0\nbob;unreadable;0\n"
    capsys.readouterr()
    with pytest.raises(SystemExit):
        cli_main(["grade", "--help"])
    assert "OUT/toy.txt: a toy gradebook" in " ".join(capsys.readouterr().out.split())
    guide = " ".join((ROOT / "docs" / "instructors.md").read_text(encoding="utf-8").split())
    assert "toy.txt" not in guide and "`grade --help` lists every gradebook file `grade` writes" in guide


@pytest.mark.parametrize(
    "names",
    [
        (unicodedata.normalize("NFC", "Zoë Ångström"), unicodedata.normalize("NFD", "Zoë Ångström")),
        ("alice", "Alice"),
        ("bob", "BOB.zip"),
    ],
)
def test_look_alike_names_are_one_student_and_refused(kit, tmp_path, capsys, names):
    """Two entries whose names differ only in case or in Unicode's encoding of an accent are refused, as a folder and a
    notebook of the same name are: the command names them and grades nothing."""
    (tmp_path / "class").mkdir()
    for name in names:
        if name.endswith(".zip"):
            zipped(tmp_path / "class" / name, {"exercises/q01_causal_mask.py": "x = 1\n"})
        else:
            (tmp_path / "class" / name).mkdir()
    if len(set(os.listdir(tmp_path / "class"))) < 2:
        pytest.skip("this file system folds the two names into one")
    assert _main(kit, tmp_path / "class", tmp_path / "out") == batch.USAGE_ERROR
    error = capsys.readouterr().err
    assert "two entries for the same student" in error and all(name in error for name in names)
    assert not (tmp_path / "out" / "grades.csv").exists()


def test_names_are_written_in_nfc_and_student_matches_any_spelling(kit, tmp_path):
    decomposed = unicodedata.normalize("NFD", "Zoë")
    (tmp_path / "class" / decomposed).mkdir(parents=True)
    (tmp_path / "class" / "ann").mkdir()
    # NFC, whatever the file system holds
    assert [entry.student for entry in discover(tmp_path / "class")] == ["Zoë", "ann"]
    # chosen, and unreadable
    assert _main(kit, tmp_path / "class", tmp_path / "out", student=["zoë"]) == batch.SOME_UNREADABLE
    assert (tmp_path / "out" / "Zoë.json").exists() and not (tmp_path / "out" / f"{decomposed}.json").exists()


# -- a full disk -------------------------------------------------------------------------------------------------


def _unreadable_class(folder: Path, count: int) -> Path:
    """A class whose entries are all stray files: each gets a report, and no worker is started."""
    folder.mkdir(parents=True)
    for index in range(count):
        (folder / f"student-{index:02d}-with-a-long-name.txt").write_text("not a submission")
    return folder


def _nothing_partial(out: Path) -> None:
    """OUT holds no temporary file, every report and the log parse whole, grades.csv lists only reports that exist."""
    assert not [path.name for path in out.iterdir() if path.name.endswith(".tmp")]
    written = {path.stem: json.loads(path.read_text()) for path in out.glob("*.json")}
    assert all(report["problem"] for report in written.values())
    if (out / "grades.csv").exists():
        assert {row[0] for row in csv_rows(out / "grades.csv")[1:]} <= set(written)
    lines = (
        [json.loads(line) for line in (out / "grading.log").read_text().splitlines()]
        if (out / "grading.log").exists()
        else []
    )
    assert all("event" in line for line in lines)


@pytest.mark.parametrize(
    ("code", "said", "todo"),
    [
        (errno.ENOSPC, "the disk is full", "df -h"),
        (errno.EROFS, "the disk is read-only", "Give --out a folder you can write to"),
    ],
)
def test_a_full_disk_is_said_and_leaves_nothing_partial(kit, tmp_path, monkeypatch, capsys, code, said, todo):
    """The disk fills up after a few files of OUT (simulated: a rename raises ENOSPC; or the disk turns read-only): exit
    status 3, the message names the cause, the file and what to do, the temporary file is removed, and grading.log's
    last line is the failure."""
    folder = _unreadable_class(tmp_path / "class", 12)
    replace, renames = os.replace, []

    def filling(source: object, target: object) -> None:
        renames.append(target)
        if len(renames) > 6:
            raise OSError(code, os.strerror(code), str(source))
        replace(source, target)

    monkeypatch.setattr(os, "replace", filling)
    status = _main(kit, folder, tmp_path / "out")
    monkeypatch.undo()
    error = capsys.readouterr().err
    assert status == batch.RUN_FAILED == 3
    assert said in error and str(renames[-1]) in error and todo in error and "run the same command again" in error
    assert "internal error" not in error and "report it" not in error
    _nothing_partial(tmp_path / "out")
    last = json.loads((tmp_path / "out" / "grading.log").read_text().splitlines()[-1])
    assert last["event"] == "failed" and last["errno"] == code and last["path"] == str(renames[-1])


def _can_mount_tmpfs(where: Path) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            [
                "unshare",
                "--user",
                "--map-root-user",
                "--mount",
                "sh",
                "-c",
                f"mount -t tmpfs -o size=16k tmpfs '{where}'",
            ],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def test_a_full_disk_on_a_small_tmpfs(kit, tmp_path):
    """The same on a real full disk: OUT on a 48 KiB tmpfs mounted for the test (Linux, where user namespaces allow
    it)."""
    if not sys.platform.startswith("linux") or not shutil.which("unshare") or not _can_mount_tmpfs(tmp_path / "probe"):
        pytest.skip("no tmpfs can be mounted here (needs Linux user namespaces)")
    folder = _unreadable_class(tmp_path / "class", 40)
    disk, out = tmp_path / "disk", tmp_path / "disk" / "out"
    disk.mkdir()
    script = (
        f"mount -t tmpfs -o size=48k tmpfs '{disk}' && {sys.executable} -m autograder grade '{folder}' --out '{out}' "
        f"--quiet; status=$?; cp -r '{out}' '{tmp_path}/copy' 2>/dev/null; exit $status"
    )
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        cwd=kit,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == batch.RUN_FAILED, done.stdout + done.stderr
    assert "the disk is full" in done.stderr and str(out) in done.stderr and "internal error" not in done.stderr
    _nothing_partial(tmp_path / "copy")


# -- answers that look alike -------------------------------------------------------------------------------------


def test_identical_and_near_identical_answers_are_listed_as_leads(graded):
    """Byte-identical modules are grouped per question; a copy with its names changed and comments dropped is a
    near-identical pair; a stub (not attempted) and an unreadable entry are in no pair; similarity.csv and the summary
    list the same pairs, and say that they are a lead, not a verdict."""
    out, done = graded
    found = [tuple(row) for row in csv_rows(out / "similarity.csv")]
    assert found[0] == ("question", "student", "other_student", "kind", "similarity")
    pairs = {(int(q), one, other): (kind, float(score)) for q, one, other, kind, score in found[1:]}
    # the same q01
    assert pairs[(1, "ann", "bob")] == pairs[(1, "ann", "eve")] == pairs[(1, "bob", "eve")] == ("identical", 1.0)
    assert pairs[(2, "bob", "eve")] == ("identical", 1.0)
    assert (
        pairs[(2, "bob", "fay")][0] == pairs[(2, "eve", "fay")][0] == "near-identical"
        and pairs[(2, "bob", "fay")][1] >= 0.8
    )
    assert not [key for key in pairs if key[0] == 1 and "fay" in key]  # her question 1 is the stub
    assert not [key for key in pairs if {"cy", "dee.tar"} & set(key)]
    text = (out / "summary.md").read_text()
    assert "## Answers that look alike: a lead for a human to read, never a verdict" in text
    assert "| 1 | ann, bob, eve | identical files | 1 |" in text and "| 2 | bob, eve | identical files | 1 |" in text
    assert "| 2 | bob, fay | near-identical" in text
    assert "answers that look alike:" in done.stdout


def test_a_rename_and_a_reflow_leave_the_marks_and_another_answer_differs():
    from autograder.classroom import similarity

    course = load_course(ROOT)
    stub = similarity._stub_marks(course, 2)
    wrong, hidden, right = (
        similarity.marks(text) - stub for text in (WRONG_Q2, disguised(WRONG_Q2), SOLUTIONS["q02_scaled_scores.py"])
    )
    assert wrong == hidden and len(wrong) >= similarity.MIN_MARKS
    others = [
        similarity.marks(path.read_text()) - stub
        for path in sorted((ROOT / "tests" / "corpus" / "right").glob("q02_*.py"))
    ]
    # written apart
    assert len(others) >= 2 and all(len(a & b) / len(a | b) < similarity.NEAR for a, b in zip(others, others[1:]))
    assert similarity.marks(STUB_Q1) - similarity._stub_marks(course, 1) == set()  # the stub is nobody's answer


# -- root causes -------------------------------------------------------------------------------------------------


def _question(number: int, status: str, failed: tuple[str, ...] = ()) -> dict:
    tests = [{"name": f"check {name}", "passed": name not in failed, "message": ""} for name in ("a", "b")]
    return {
        "number": number,
        "title": f"Q{number}",
        "score": 0 if failed else 4,
        "max_score": 4,
        "status": status,
        "tests": tests,
    }


def test_a_failure_is_counted_where_it_starts_and_its_echoes_listed_once():
    """Question 3 runs question 2's code (requires), question 5 runs 3's: for the students whose question 2 failed,
    their failed checks of 3 and 5 are echoes, counted under question 2; a student whose 2 passed keeps 3's
    failure in 3."""
    from autograder.classroom import summary

    def student(two: str, three: str, five: str) -> dict:
        questions = [
            _question(2, two, ("a",) if two == "failed" else ()),
            _question(3, three, ("a", "b") if three == "failed" else ()),
            _question(5, five, ("b",) if five == "failed" else ()),
        ]
        return {"score": 0, "max_score": 12, "questions": questions}

    reports = {f"echo{index}": student("failed", "failed", "failed") for index in range(4)}
    reports |= {"own": student("passed", "failed", "passed"), "stub": student("not attempted", "failed", "passed")}
    found = summary.summarise(reports, {2: (), 3: (1, 2), 5: (3, 4)})
    assert found.failed == [
        (2, "check a", sorted(f"echo{i}" for i in range(4))),
        (3, "check a", ["own"]),
        (3, "check b", ["own"]),
    ]
    echoes = [f"echo{i}" for i in range(4)]
    # a stub of question 2 is where 3 goes wrong too
    assert found.downstream == {(2, 3): [*echoes, "stub"], (2, 5): echoes}
    before = summary.summarise(reports)  # without the course's requires: every failure counted where it shows
    assert [(number, name) for number, name, _who in before.failed][:2] == [(3, "check a"), (3, "check b")]
    text = summary.markdown(found, {}, "Attention")
    assert (
        "## Failures that start in an earlier question" in text and "| 2 | 5 | 4 | echo0, echo1, echo2, echo3 |" in text
    )


# -- privacy and the smaller items of the summary ----------------------------------------------------------------


def test_the_public_summary_names_no_student_and_the_private_one_names_the_late(tmp_path):
    """summary-public.html has the class's figures and mistakes but no student's name (no "who", no entries not graded,
    no look-alikes, no lateness); summary.md names who was late and by how much, and says which file is for whom."""
    from autograder.classroom import summary

    def report(number_failed: int, **extra: object) -> dict:
        questions = [
            _question(2, "failed" if number_failed else "passed", ("a",) if number_failed else ()),
            _question(3, "passed"),
        ]
        return {"score": 4, "max_score": 8, "questions": questions} | extra

    names = [f"Zoë-Ångström-{index:02d}" for index in range(6)]
    reports = {
        names[0]: report(1),
        names[1]: report(1),
        names[2]: report(0, late_hours=26.5, committed_at="2026-12-02T20:30:00+00:00"),
        names[3]: report(0, problem="an empty folder"),
        names[4]: report(0, problem="boom", grader_error=True),
        names[5]: report(0),
    }
    for student in names[:2]:
        reports[student]["questions"][0]["tests"][0]["mistake"] = "q02.scale_by_d"
    written = {}
    summary.write(
        tmp_path,
        reports,
        "Attention",
        [2, 3],
        lambda path, data: written.__setitem__(path.name, data.decode("utf-8", "replace")),
    )
    public, private = written["summary-public.html"], written["summary.md"]
    assert "q02.scale_by_d" in public and "Checks failed most often" in public and "6 student(s), 4 graded" in public
    assert not [name for name in names if name in public] and "Zoë" not in public
    assert "names no student" in public and "summary-public.html" in private
    assert f"| {names[2]} | 26.5 |" in private and "## Late" in private
    assert f"| {names[3]} | unreadable | an empty folder |" in private


def test_the_french_summary_translates_the_status_of_an_entry_not_graded():
    from autograder.classroom import summary
    from autograder.i18n import set_language

    reports = {
        "ann": {"score": 0, "max_score": 4, "questions": [_question(2, "failed", ("a",))], "problem": "an empty folder"}
    }
    set_language("fr")
    try:
        text = summary.markdown(summary.summarise(reports), {}, "Attention")
    finally:
        set_language("en")
    assert "| ann | unreadable |" not in text and "| ann | illisible |" in text


def test_the_terminal_table_lines_up_wide_and_combining_characters(kit):
    from autograder.classroom.outputs import display_width, score_table

    names = ["王小明", unicodedata.normalize("NFD", "Zoë Ångström"), "ann"]
    assert [display_width(name) for name in names] == [6, 12, 3]
    lines = score_table(load_course(kit), [(name, {1: "8", 2: "4"}, "12") for name in names])
    assert len({display_width(line) for line in lines[1:]}) == 1  # every row as wide: the columns line up
    assert all(line.endswith("8      4      12") for line in lines[1:])


def test_jobs_zero_is_a_usage_error(kit, tmp_path, capsys):
    (tmp_path / "class" / "ann").mkdir(parents=True)
    arguments = argparse.Namespace(
        dir=tmp_path / "class", out=tmp_path / "out", jobs=0, force=False, scheduler=None, quiet=True
    )
    assert batch.main(arguments, load_course(kit)) == batch.USAGE_ERROR
    assert "--jobs 0: give at least 1 worker process" in capsys.readouterr().err and not (tmp_path / "out").exists()


# -- what the docs quote -----------------------------------------------------------------------------------------


def test_every_mistake_id_and_number_the_docs_quote_is_the_codes():
    """A mistake id quoted in README.md or docs/ exists in the bank of its question (a question the course does not
    have, such as authoring.md's worked question 99, aside); the figures the instructors' guide gives are the
    code's (the sandbox's limits: tests/test_limits_docs.py)."""
    from autograder.classroom import intake, summary

    course = load_course(ROOT)
    known = summary.mistake_labels(course.numbers)
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        quoted = set(re.findall(r"\bq(\d\d)\.([a-z][a-z0-9_]*)\b", path.read_text(encoding="utf-8")))
        missing = sorted(
            f"q{n}.{name}"
            for n, name in quoted
            if int(n) in course.numbers and name != "py" and f"q{n}.{name}" not in known
        )
        assert not missing, f"{path.name} quotes mistake ids that do not exist: {missing}"
    guide = " ".join((ROOT / "docs" / "instructors.md").read_text(encoding="utf-8").split())

    def quoted(pattern: str) -> tuple[int, ...]:
        found = re.search(pattern, guide)
        assert found, pattern
        return tuple(int(group) for group in found.groups())

    # the limits: test_limits_docs.py
    assert quoted(r"the same search inside it, down to (\d+) levels") == (intake.SEARCH_DEPTH,)
    assert quoted(r"objects over (\d+) GiB") == (intake.GIT_BYTES >> 30,)
    points = {number: int(top) for number, top in re.findall(r"q(\d+) \(mean [\d.]+ / (\d+),", guide)}
    assert points and all(
        course.question(number).points == top for number, top in ((int(n), t) for n, t in points.items())
    )
    assert quoted(r"total: mean [\d.]+ / (\d+), median") == (course.max_score,)
    assert quoted(r"a second one stops with exit status (\d+)") == (batch.USAGE_ERROR,)
    assert quoted(r"(\d+): every entry was graded\. (\d+): some entries could not be read") == (
        0,
        batch.SOME_UNREADABLE,
    )
    assert quoted(r"(\d+): the run itself failed") == (batch.RUN_FAILED,)
    assert quoted(r"(\d+): interrupted by Ctrl-C") == (batch.INTERRUPTED,)
    from autograder.classroom import similarity

    assert quoted(r"with their similarity from 0\.(\d+) to 1") == (round(similarity.NEAR * 10),)
    assert quoted(r"cut into runs of (\d+) tokens") == (similarity.GRAM,)
    assert quoted(r"fewer than (\d+) sampled runs of its own") == (similarity.MIN_MARKS,)
