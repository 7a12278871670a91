"""docs/instructors.md runs as written: its command blocks, in order, in a temporary home folder.

~/kit is the instructor's copy of the kit (course.yaml cut to questions 1 to 4, to keep the test cheap, and
solutions/), ~/course the nbgrader course folder, ~/class a class folder; two students, one correct and one who
divides the scores by d instead of sqrt(d) (a known mistake). Each `sh` block runs in bash, as written, with the
kit's environment first on PATH, except those after a `doc-test: skip` comment; after `doc-test: options`, each
`dask` command's options are checked against its --help (a server that runs until stopped). The submissions are put
in submitted/ (and the class folder made) just before the first block that grades them, as the page says to.
`nbgrader autograde` runs with CPU burners beside it, on every core: it must still give `check --json`'s scores.
"""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("nbgrader", reason="nbgrader is not installed: pip install nbgrader (the `test` extra has it)")
import nbformat

from autograder.course.manifest import load_course
from autograder.nbgrader.course import drop_relative_imports
from autograder.nbgrader.package import answer_id, graded_id, marker

KIT = Path(__file__).resolve().parent.parent
DOC = KIT / "docs" / "instructors.md"
QUESTIONS = 4  # the test course: questions 1 to 4 of the kit's
BLOCK = re.compile(
    r"^(?:[ ]*<!-- doc-test: (?P<mode>[a-z]+)[^\n]*-->\n)?(?P<indent>[ "
    r"]*)```(?P<lang>\w*)\n(?P<body>.*?)^(?P=indent)```",
    re.MULTILINE | re.DOTALL,
)
WRONG = ("k.transpose(-2, -1) / math.sqrt(d)", "k.transpose(-2, -1) / d")  # a known mistake of question 2
BURNER = "while True:\n    pass\n"


def doc_blocks() -> list[tuple[str, str]]:
    """(mode, body) of every sh block of the page, in order: mode is run, skip or options."""
    found = []
    for match in BLOCK.finditer(DOC.read_text(encoding="utf-8")):
        if match["lang"] == "sh":
            body = "\n".join(line[len(match["indent"]) :] for line in match["body"].splitlines())
            found.append((match["mode"] or "run", body))
    return found


def _students() -> dict[str, dict[str, str]]:
    solutions = {path.name: path.read_text() for path in sorted((KIT / "solutions").glob("q0[1-4]_*.py"))}
    markers = re.compile(r"^\s*### (BEGIN|END) SOLUTION.*\n", re.MULTILINE)  # a student's file has no solution markers
    solutions = {name: markers.sub("", text) for name, text in solutions.items()}
    wrong = dict(solutions)
    assert WRONG[0] in wrong["q02_scaled_scores.py"]
    wrong["q02_scaled_scores.py"] = wrong["q02_scaled_scores.py"].replace(*WRONG)
    return {"ada": solutions, "ben": wrong}


def _submit(course_dir: Path, course: object, students: dict[str, dict[str, str]]) -> None:
    """Each student's notebook in submitted/<student>/attention/, made from the released one with their answers."""
    release = nbformat.read(str(course_dir / "release" / "attention" / "attention.ipynb"), as_version=4)
    for student, modules in students.items():
        notebook = nbformat.from_dict(json.loads(json.dumps(release)))
        for cell in notebook.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            for question in course.questions:
                if grade_id == answer_id(question.number):
                    cell.source = marker(question) + "\n" + drop_relative_imports(modules[Path(question.file).name])
        folder = course_dir / "submitted" / student / "attention"
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, str(folder / "attention.ipynb"))
        (folder / "timestamp.txt").write_text("2026-11-20 10:00:00.000000 UTC")


def _class_folder(home: Path, students: dict[str, dict[str, str]]) -> None:
    for student, modules in students.items():
        folder = home / "class" / student / "exercises"
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text('"""Answers."""\n')
        for name, text in modules.items():
            (folder / name).write_text(text)


def _gradebook(course_dir: Path, students: list[str]) -> dict[str, dict[int, float]]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        return {
            s: {n: gb.find_grade(graded_id(n), "attention", "attention", s).score for n in range(1, QUESTIONS + 1)}
            for s in students
        }


def _files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*")] if folder.exists() else []


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every block of the page run (or checked), with what each gave and the gradebook after each grading block."""
    home = tmp_path_factory.mktemp("docs") / "home"
    kit = home / "kit"
    kit.mkdir(parents=True)
    manifest = (KIT / "course.yaml").read_text()
    cut = manifest.index(f"  # {'-' * 66} {QUESTIONS + 1}\n")
    (kit / "course.yaml").write_text(manifest[:cut])
    shutil.copytree(KIT / "solutions", kit / "solutions")
    course = load_course(kit)
    assert course.numbers == list(range(1, QUESTIONS + 1))
    students = _students()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env.update(
        HOME=str(home),
        PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        PYTHONWARNINGS="ignore",
    )

    checked = {}
    for student, modules in students.items():  # what `check --json` gives each student, from an exercises/ folder
        folder = home.parent / "check" / student
        (folder / "exercises").mkdir(parents=True)
        shutil.copy(kit / "course.yaml", folder)
        (folder / "exercises" / "__init__.py").write_text('"""Answers."""\n')
        for name, text in modules.items():
            (folder / "exercises" / name).write_text(text)
        done = subprocess.run(
            [sys.executable, "-m", "autograder", "check", "--json"],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        checked[student] = {q["number"]: q["score"] for q in json.loads(done.stdout)["questions"]}

    results, gradebooks, helps = [], {}, {}
    for index, (mode, body) in enumerate(doc_blocks()):
        if mode == "skip":
            continue
        if mode == "options":
            for line in body.splitlines():
                if line.startswith("dask "):
                    command = line.split()[:2]
                    if tuple(command) not in helps:
                        helps[tuple(command)] = subprocess.run(
                            [*command, "--help"], env=env, capture_output=True, text=True, timeout=120, check=False
                        ).stdout
                    results.append((body, line, helps[tuple(command)]))
            continue
        if "grade --nbgrader" in body and not (home / "course" / "submitted").exists():
            _submit(home / "course", course, students)
        if "grade ~/class" in body and not (home / "class").exists():
            _class_folder(home, students)
        burners = (
            [subprocess.Popen([sys.executable, "-c", BURNER]) for _core in os.sched_getaffinity(0)]
            if "nbgrader autograde" in body
            else []
        )
        try:
            done = subprocess.run(
                ["bash", "-e", "-c", body], cwd=home, env=env, capture_output=True, text=True, timeout=900, check=False
            )
        finally:
            for burner in burners:
                burner.kill()
                burner.wait()
        results.append((body, done.returncode, done.stdout + done.stderr))
        if ("grade --nbgrader" in body or "nbgrader autograde" in body) and done.returncode == 0:
            gradebooks[index] = _gradebook(home / "course", list(students))
    return {"home": home, "course": course, "checked": checked, "results": results, "gradebooks": gradebooks}


def test_the_page_marks_what_cannot_run() -> None:
    """Every block that starts a server, installs, pushes or needs other accounts is marked; the rest run."""
    for mode, body in doc_blocks():
        if mode == "run":
            assert not re.search(
                r"^(dask (scheduler|worker)|jupyter (lab|notebook)|pip install|git push)", body, re.MULTILINE
            ), body
    assert sum(mode == "run" for mode, _body in doc_blocks()) >= 6


def test_every_block_runs_as_written(ran: dict) -> None:
    """Each runnable block exits with status 0 (bash -e: every command in it)."""
    for body, status, output in (r for r in ran["results"] if isinstance(r[1], int)):
        assert status == 0, f"{body}\n---\n{output[-3000:]}"


def test_both_nbgrader_paths_give_checks_scores_under_load(ran: dict) -> None:
    """grade --nbgrader, then nbgrader autograde --force with every core busy: the gradebook holds check --json's
    scores."""
    assert ran["gradebooks"], "no block of the page grades with nbgrader"
    assert sum(ran["checked"]["ada"].values()) == ran["course"].max_score
    assert ran["checked"]["ben"][2] < ran["course"].question(2).points
    for index, gradebook in ran["gradebooks"].items():
        assert gradebook == ran["checked"], index
    autograde = [output for body, _status, output in ran["results"] if "nbgrader autograde" in body]
    assert autograde and "Skipping" not in autograde[0] and "skipping" not in autograde[0].lower()


def test_feedback_carries_the_reasons_and_nothing_of_the_grader(ran: dict) -> None:
    """nbgrader's feedback and grade DIR's feedback file name the known mistake; nothing handed back holds grader
    files."""
    home = ran["home"]
    html = (home / "course" / "feedback" / "ben" / "attention" / "attention.html").read_text()
    assert "[FAILED] scaled_scores" in html and "known mistake" in html and "sqrt(d)" in html
    assert "_kit_grade" not in html and str(KIT) not in html and str(home) not in html
    feedback = (home / "grades" / "ben.feedback.md").read_text()
    assert "known mistake" in feedback and str(home) not in feedback and "Traceback" not in feedback
    assert "A1." in (home / "grades" / "ada.feedback.md").read_text()  # self-test answers at full marks (the default)
    handed_back = [
        *_files(home / "course" / "autograded"),
        *_files(home / "course" / "feedback"),
        *_files(home / "grades"),
        *_files(home / "class"),
    ]
    assert handed_back
    assert not [path for path in handed_back if {".hypothesis", "__pycache__"} & set(path.parts)]
    for student, scores in ran["checked"].items():
        report = json.loads((home / "grades" / f"{student}.json").read_text())
        assert {q["number"]: q["score"] for q in report["questions"]} == scores


def test_formgrader_export_and_exchange(ran: dict) -> None:
    """The formgrader is an enabled server extension; the exchange received the release and the feedback; export
    wrote grades.csv."""
    output = next(output for body, _status, output in ran["results"] if "extension list" in body)
    assert "formgrader" in output and "enabled" in output
    home = ran["home"]
    assert (home / "course" / "exchange" / "course" / "outbound" / "attention" / "attention.ipynb").exists()
    rows = (home / "course" / "grades.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[0].startswith("assignment,")


def test_dask_commands_bind_an_address_and_exist(ran: dict) -> None:
    """Every dask command of the page passes --host, and each option it uses is one of that command's."""
    checked = [r for r in ran["results"] if not isinstance(r[1], int)]
    assert {line.split()[1] for _body, line, _help in checked} == {"scheduler", "worker"}
    for _body, line, help_text in checked:
        assert "--host" in line.split(), line
        for option in re.findall(r"(?<!\S)(--[a-z-]+)", line):
            assert option in help_text, (line, option)
    assert any("127.0.0.1" in line for _body, line, _help in checked if "scheduler" in line)
