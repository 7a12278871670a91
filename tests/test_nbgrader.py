"""The nbgrader integration, end to end with real nbgrader: generate, release, submit, autograde both ways, export.

Three students submit the same code that `check --json` grades from an exercises/ folder: a correct one, a
partly wrong one, and one whose answer to question 8 loops forever (swallowing KeyboardInterrupt) and whose answer to
question 6 patches torch.allclose and torch.testing.assert_close and returns wrong values (one student carries both
faults, each in a question of its own: every student is a notebook graded three times). Their per-question scores
are read back from nbgrader's gradebook after `nbgrader autograde` and after `python -m autograder grade
--nbgrader`. The test course is the kit's course.yaml with a short time limit on the looping question.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli, use_session_sandbox

nbgrader = pytest.importorskip(
    "nbgrader", reason="nbgrader is not installed: pip install nbgrader (the `test` extra has it)"
)
import nbformat

from autograder.course.manifest import load_course
from autograder.nbgrader.course import answer_source, build_notebook, drop_relative_imports
from autograder.classroom.nbgrader_class import gradebook_lines
from autograder.nbgrader.answers import answers
from autograder.nbgrader.grade import gradebook_scores
from autograder.nbgrader.package import answer_id, graded_id, marker, pick_from_history, write_package
from autograder.maintainer.stubs import make_stub

KIT = Path(__file__).resolve().parent.parent
ASSIGNMENT = "attention"
LOOP_LIMIT = 4  # seconds: the time limit of the looping question in the test course
ENV = {**os.environ, "PYTHONPATH": str(KIT) + os.pathsep + os.environ.get("PYTHONPATH", ""), "PYTHONWARNINGS": "ignore"}

# partly wrong: mask_scores fills in place, attention forgets the sqrt(d) scaling, question 5 left as the stub
WRONG = {
    "q01_causal_mask.py": [
        (
            'return scores.masked_fill(~mask, float("-inf"))',
            'scores.masked_fill_(~mask, float("-inf"))\n    return scores',
        )
    ],
    "q03_attention.py": [("scores = scaled_scores(q, k)", "scores = q @ k.transpose(-2, -1)")],
}
LOOP = {  # numerical_grad never returns and swallows the interrupt
    "q08_read_gradient.py": [
        (
            "    point = x.detach().clone()",
            "    while True:\n        try:\n            pass\n        except KeyboardInterrupt:\n            pass\n    "
            "point = x.detach().clone()",
        )
    ]
}
CHEAT_HEADER = (
    "torch.allclose = lambda *args, **kwargs: True\ntorch.testing.assert_close = lambda *args, **kwargs: None\n"
)
CHEAT_BODIES = {
    "additive_scores": "    return torch.zeros(H.shape[0], dtype=H.dtype)\n",
    "additive_attention": "    return torch.zeros(H.shape[0], dtype=H.dtype), torch.zeros(H.shape[1], dtype=H.dtype)\n",
}


def _solutions() -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted((KIT / "solutions").glob("q*.py"))}


def _edit(modules: dict[str, str], edits: dict[str, list[tuple[str, str]]]) -> dict[str, str]:
    modules = dict(modules)
    for name, pairs in edits.items():
        for old, new in pairs:
            assert old in modules[name], (name, old)
            modules[name] = modules[name].replace(old, new)
    return modules


def _cheat(source: str) -> str:
    """The additive-attention module with both bodies wrong and the comparison functions patched at import."""
    for function, body in CHEAT_BODIES.items():
        source = re.sub(
            rf"(def {function}\(.*?\n    \"\"\".*?\"\"\"\n).*?(?=\n\n\ndef |\Z)",
            lambda m, body=body: m.group(1) + body,
            source,
            flags=re.DOTALL,
        )
    return source.replace("from torch import Tensor\n", "from torch import Tensor\n\n" + CHEAT_HEADER, 1)


def _students() -> dict[str, dict[str, str]]:
    solutions = _solutions()
    wrong = _edit(solutions, WRONG)
    wrong["q05_multihead.py"] = make_stub(solutions["q05_multihead.py"])
    cheat = _edit(solutions, LOOP)
    cheat["q06_additive.py"] = _cheat(solutions["q06_additive.py"])
    students = {"correct": solutions, "partly_wrong": wrong, "looping_cheater": cheat}
    markers = re.compile(r"^\s*### (BEGIN|END) SOLUTION.*\n", re.MULTILINE)  # a student's file has no solution markers
    return {
        student: {name: markers.sub("", text) for name, text in modules.items()}
        for student, modules in students.items()
    }


def _run(command: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=timeout, check=False)


def _gradebook_scores(course_dir: Path, students: list[str], numbers: list[int]) -> dict[str, dict[int, float]]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        return {
            s: {n: gb.find_grade(graded_id(n), "attention", ASSIGNMENT, s).score for n in numbers} for s in students
        }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, session_sandbox: object) -> dict:
    """Everything run once: the course, the release, the submissions, check --json, both autograding paths. The kit's
    commands run in this process (their process is test_cli's and test_grade_folder's: `python -m autograder`, `grade`),
    nbgrader's in processes of their own, as an instructor runs them."""
    base = tmp_path_factory.mktemp("nbgrader")
    root = base / "kit"  # the test course: the kit's manifest and solutions, the looping question limited
    root.mkdir()
    manifest = (KIT / "course.yaml").read_text()
    manifest = re.sub(r"(slug: read_gradient\n(?:.*\n)*?    time_limit: )\d+", rf"\g<1>{LOOP_LIMIT}", manifest)
    (root / "course.yaml").write_text(manifest)
    shutil.copytree(KIT / "solutions", root / "solutions")
    course = load_course(root)
    course_dir = base / "course"
    made = run_cli(root, "nbgrader", str(course_dir), "--assignment", ASSIGNMENT)
    assert made.returncode == 0, made.stderr
    released = _run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT], course_dir)
    assert released.returncode == 0, released.stdout + released.stderr

    students = _students()
    release = nbformat.read(str(course_dir / "release" / ASSIGNMENT / "attention.ipynb"), as_version=4)
    for student, modules in students.items():
        package = base / "check" / student  # check --json runs on an exercises/ folder with the same code
        shutil.copytree(root, package, ignore=shutil.ignore_patterns("solutions"))
        (package / "exercises").mkdir()
        (package / "exercises" / "__init__.py").write_text('"""Answers."""\n')
        for name, text in modules.items():
            (package / "exercises" / name).write_text(text)
        notebook = nbformat.from_dict(json.loads(json.dumps(release)))
        for cell in notebook.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            for question in course.questions:
                if grade_id == answer_id(question.number):
                    cell.source = marker(question) + "\n" + drop_relative_imports(modules[Path(question.file).name])
        # a cell of its own, whose code the kernel of nbgrader autograde must never run
        if student == "looping_cheater":
            notebook.cells.insert(1, nbformat.v4.new_code_cell(f"open({str(base / 'kernel-ran')!r}, 'w').write('x')"))
        folder = course_dir / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(notebook, str(folder / "attention.ipynb"))
        (folder / "timestamp.txt").write_text("2026-11-20 10:00:00.000000 UTC")

    command = [sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT]
    with open(base / "autograde.out", "w+") as out, open(base / "autograde.err", "w+") as err:  # no pipe to fill
        running = subprocess.Popen(command, cwd=course_dir, env=ENV, stdout=out, stderr=err, text=True)
        try:  # meanwhile `check --json` of each, in-process, in the session's sandbox
            with pytest.MonkeyPatch.context() as patch:
                use_session_sandbox(patch, session_sandbox)
                reports = {s: json.loads(run_cli(base / "check" / s, "check", "--json").stdout) for s in students}
            running.wait(timeout=600)
        finally:
            running.kill()  # a no-op once it has ended
            running.wait()
    autograde = subprocess.CompletedProcess(
        command, running.returncode, (base / "autograde.out").read_text(), (base / "autograde.err").read_text()
    )
    checked = {s: {q["number"]: q["score"] for q in report["questions"]} for s, report in reports.items()}
    assert autograde.returncode == 0, autograde.stdout[-3000:] + autograde.stderr[-3000:]
    by_nbgrader = _gradebook_scores(course_dir, list(students), course.numbers)
    autograded = {  # as nbgrader autograde wrote them (the kit's path below writes them again)
        s: nbformat.read(str(course_dir / "autograded" / s / ASSIGNMENT / "attention.ipynb"), as_version=4)
        for s in students
    }
    submitted = {
        s: nbformat.read(str(course_dir / "submitted" / s / ASSIGNMENT / "attention.ipynb"), as_version=4)
        for s in students
    }
    # the feedback of nbgrader autograde's notebook (the kit's path below writes it again)
    _run(
        [sys.executable, "-m", "nbgrader", "generate_feedback", ASSIGNMENT, "--student", "looping_cheater"], course_dir
    )
    feedback_after_autograde = (
        course_dir / "feedback" / "looping_cheater" / ASSIGNMENT / "attention.html"
    ).read_text()

    broken = course_dir / "submitted" / "broken" / ASSIGNMENT  # not even JSON: reported, scored 0, the class goes on
    broken.mkdir(parents=True)
    (broken / "attention.ipynb").write_text('{"cells": [')
    # one worker: the pool's several are test_grade_folder's
    kit = run_cli(root, "grade", "--nbgrader", str(course_dir), "--assignment", ASSIGNMENT, "--jobs", "1")
    by_kit = _gradebook_scores(course_dir, [*students, "broken"], course.numbers)
    exported = _run([sys.executable, "-m", "nbgrader", "export"], course_dir)
    feedback = _run([sys.executable, "-m", "nbgrader", "generate_feedback", ASSIGNMENT], course_dir)
    return {
        "course": course,
        "course_dir": course_dir,
        "checked": checked,
        "by_nbgrader": by_nbgrader,
        "autograded": autograded,
        "submitted": submitted,
        "kernel_ran": (base / "kernel-ran").exists(),
        "feedback_after_autograde": feedback_after_autograde,
        "by_kit": by_kit,
        "kit": kit,
        "exported": exported,
        "feedback": feedback,
        "release": release,
        "root": root,
    }


def test_released_answer_cells_read_like_the_stubs(world: dict) -> None:
    """After generate_assignment each answer cell is the exercises/ stub (relative imports dropped); test cells hide
    the grading call."""
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in world["release"].cells}
    for question in world["course"].questions:
        stub = make_stub((KIT / "solutions" / Path(question.file).name).read_text())
        expected = marker(question) + "\n" + drop_relative_imports(stub)
        assert cells[answer_id(question.number)].source.rstrip("\n") == expected.rstrip("\n"), question.number
        test_cell = cells[graded_id(question.number)]
        assert test_cell.metadata["nbgrader"]["points"] == question.points
        assert "HIDDEN" not in test_cell.source and "_kit_grade" not in test_cell.source


def test_nbgrader_autograde_scores_equal_check(world: dict) -> None:
    """`nbgrader autograde` records exactly the scores of `check --json` for the correct, partly wrong and looping (and
    cheating) students."""
    for student in ("correct", "partly_wrong", "looping_cheater"):
        assert world["by_nbgrader"][student] == world["checked"][student], student
    assert sum(world["checked"]["correct"].values()) == world["course"].max_score
    assert 0 < sum(world["checked"]["partly_wrong"].values()) < world["course"].max_score
    # numerical_grad stopped at the time limit
    assert world["checked"]["looping_cheater"][8] < world["course"].question(8).points
    assert world["checked"]["looping_cheater"][1] == world["course"].question(1).points


def test_nbgrader_autograde_runs_no_student_cell_and_keeps_their_code(world: dict) -> None:
    """Under `nbgrader autograde` the kernel runs no cell a student wrote (the cheater's own cell writes no file), the
    autograded notebook holds each student's code as submitted, and the test cells still see the answers' names."""
    assert not world["kernel_ran"]
    for student, notebook in world["autograded"].items():
        submitted = [cell.source for cell in world["submitted"][student].cells if cell.cell_type == "code"]
        sources = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
        for question in world["course"].questions:
            answer = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == answer_id(
                question.number))
            assert answer.source in submitted, (student, question.number)
            tests = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == graded_id(
                question.number))
            said = "".join(output.get("text", "") for output in tests.outputs)
            assert "is defined" in said and "MISSING" not in said, (student, question.number, said)
        students_own = [
            c.source
            for c in world["submitted"][student].cells
            if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("grade")
        ]
        assert students_own and all(source in sources for source in students_own), student
    html = world["feedback_after_autograde"]  # the cheater's feedback shows its code, not the form the kernel got
    assert "kernel-ran" in html and "_kit_cell" not in html and "_kit_not_run" not in html


def test_kit_grading_scores_equal_check_and_cheat_gets_nothing(world: dict) -> None:
    """`grade --nbgrader` records the scores of `check --json`, 0 for the cheated question and for the unreadable
    notebook."""
    assert world["kit"].returncode == 1, world["kit"].stdout + world["kit"].stderr  # 1: one notebook could not be read
    assert "broken: scored 0" in world["kit"].stdout
    for student in ("correct", "partly_wrong", "looping_cheater"):
        assert world["by_kit"][student] == world["checked"][student], student
    assert world["by_kit"]["looping_cheater"][6] == 0
    assert world["by_nbgrader"]["looping_cheater"][6] == 0  # the kernel path judges outside the kernel too
    assert set(world["by_kit"]["broken"].values()) == {0.0}


def test_export_totals(world: dict) -> None:
    """`nbgrader export` totals are the sums of the per-question scores."""
    assert world["exported"].returncode == 0, world["exported"].stderr
    with open(world["course_dir"] / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    for student, scores in world["by_kit"].items():
        assert float(rows[student]["raw_score"]) == pytest.approx(sum(scores.values())), student
        assert float(rows[student]["max_score"]) == world["course"].max_score


def test_feedback_hides_the_hidden_tests(world: dict) -> None:
    """`nbgrader generate_feedback` shows neither the hidden grading call nor its markers."""
    assert world["feedback"].returncode == 0, world["feedback"].stderr
    html = (world["course_dir"] / "feedback" / "partly_wrong" / ASSIGNMENT / "attention.html").read_text()
    assert "_kit_grade" not in html and "HIDDEN TESTS" not in html and "autograder.nbgrader.cell" not in html
    assert "FAILED" in html  # the summary of each test cell names the failed checks


def test_history_picks_the_latest_marked_cell_and_falls_back_to_definitions() -> None:
    """The latest executed cell with the marker wins; without a marker, the latest cell defining a function."""
    course = load_course(KIT)
    q1, q3 = course.question(1), course.question(3)
    old, new = marker(q1) + "\nx = 1\n", marker(q1) + "\nx = 2\n"
    unmarked = "def attention(q, k, v, causal=True):\n    return q, k\n"
    picked = pick_from_history(course, [old, "print(1)", new, unmarked, "def attention(:"], upto=3)
    assert picked[1] == new and picked[3] == unmarked and 2 not in picked
    assert pick_from_history(course, [marker(q3)], upto=2) == {}


@pytest.mark.usefixtures("shared_sandbox")  # graded in the session's sandbox
def test_package_imports_the_earlier_answers(tmp_path: Path) -> None:
    """Answers import the questions they require, and earlier answers only for the names they read from them."""
    from autograder.engine.run import grade

    course = load_course(KIT)
    solutions = _solutions()
    sources = {q.number: drop_relative_imports(solutions[Path(q.file).name]) for q in course.questions}
    package = write_package(course, sources, tmp_path / "exercises")
    text = (package / "q05_multihead.py").read_text()
    assert "from .q04_heads import *" in text and "q03_attention" not in text  # q04 is required, q03 is not used
    report = grade(course, package, [1, 3, 5, 7])
    assert [q.score for q in report.questions] == [course.question(n).points for n in (1, 3, 5, 7)]

    sources[6] = sources[6].replace("import torch\n", "")  # torch comes from earlier cells, as in the notebook
    sources[4] = "import torch\nraise RuntimeError('a broken cell')\n" + sources[4]  # defines torch, fails to import
    package = write_package(course, sources, tmp_path / "again")
    # optional: skipped when it fails
    assert "    from .q04_heads import *" in (package / "q06_additive.py").read_text()
    report = grade(course, package, [2, 5, 6])
    q2, q5, q6 = report.questions
    assert (q2.score, q6.score) == (course.question(2).points, course.question(6).points)
    assert 0 < q5.score < q5.max_score  # the broken cell costs only the checks of question 5 that call its code


def test_extract_answers_takes_the_cells_by_grade_id() -> None:
    """Answer cells are found by grade_id and hold the solution without relative imports."""
    course = load_course(KIT)
    notebook = build_notebook(course)
    found = answers(course, notebook)
    assert sorted(found) == course.numbers
    solution = (KIT / "solutions" / "q03_attention.py").read_text()
    assert found[3] == answer_source(course.question(3), solution)
    assert "from ." not in found[3]


def test_kit_grading_writes_the_class_files_and_regrades_only_the_students_named(world: dict) -> None:
    """`grade --nbgrader` leaves a report per student, grades.csv, the class summary and the LMS files in reports/; run
    again with --student, it grades that student only and rewrites only that student's gradebook entry."""
    out = world["course_dir"] / "reports" / ASSIGNMENT
    reports = {path.stem: json.loads(path.read_text()) for path in out.glob("*.json")}
    assert sorted(reports) == sorted([*_students(), "broken"])
    for student in ("correct", "partly_wrong", "looping_cheater"):
        assert {q["number"]: q["score"] for q in reports[student]["questions"]} == world["checked"][student], student
    assert all(
        (out / name).is_file()
        for name in ("grades.csv", "summary.md", "summary.html", "summary.png", "canvas.csv", "moodle.csv")
    )
    assert "class summary: summary.md, summary.html" in world["kit"].stdout
    # the gradebook's table, not the kit's
    assert "Scores in the gradebook (what `nbgrader export` gives):" in world["kit"].stdout
    assert world["kit"].stdout.count("student ") == 1
    # the first run: broken's notebook is unreadable, not unchanged
    assert "left as they were" not in world["kit"].stdout
    before = (out / "grading.log").read_text().count('"event": "graded"')
    again = run_cli(
        world["root"],
        "grade",
        "--nbgrader",
        str(world["course_dir"]),
        "--assignment",
        ASSIGNMENT,
        "--student",
        "partly_wrong",  # not the correct one, whose training question alone takes seconds
        "--jobs",
        "1",
        "--quiet",
    )
    assert again.returncode == 1, again.stdout + again.stderr  # broken's notebook still cannot be read
    graded = [
        json.loads(line)["student"]
        for line in (out / "grading.log").read_text().splitlines()
        if '"event": "graded"' in line
    ]
    assert graded[before:] == ["partly_wrong"]
    assert "1 submission(s) written into the gradebook" in again.stdout and "left as they were" in again.stdout
    assert (
        _gradebook_scores(world["course_dir"], ["partly_wrong"], world["course"].numbers)["partly_wrong"]
        == world["checked"]["partly_wrong"]
    )


def test_the_printed_table_shows_the_gradebooks_final_scores(tmp_path: Path) -> None:
    """After `grade --nbgrader`, the table printed is the gradebook's: a score a grader entered by hand (manual_score)
    replaces the kit's, as in `nbgrader export`, and is marked."""
    from nbgrader.api import Gradebook

    course = load_course(KIT)
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url) as gb:
        gb.add_assignment(ASSIGNMENT)
        gb.add_notebook("attention", ASSIGNMENT)
        for question in course.questions:
            gb.add_grade_cell(
                graded_id(question.number), "attention", ASSIGNMENT, max_score=question.points, cell_type="code"
            )
        for student in ("ana", "ben"):
            gb.add_student(student)
            gb.add_submission(ASSIGNMENT, student)
            for question in course.questions:
                gb.find_grade(graded_id(question.number), "attention", ASSIGNMENT, student).auto_score = 1.0
        gb.find_grade(graded_id(2), "attention", ASSIGNMENT, "ben").manual_score = 6.5  # a TA's regrade by hand
        gb.db.commit()
    lines = gradebook_lines(
        course, *gradebook_scores(course, (url, "default_course"), ASSIGNMENT, ["ana", "ben", "absent"])
    )
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:4]}
    assert rows["ana"] == ["1"] * len(course.numbers) + [f"{len(course.numbers):g}"]
    assert rows["ben"][1] == "6.5*" and rows["ben"][-1] == f"{len(course.numbers) - 1 + 6.5:g}"
    assert "absent" not in "\n".join(lines) and "entered by hand" in lines[-1]


def test_a_folder_without_a_gradebook_is_a_usage_error_and_stays_empty(tmp_path: Path, cli) -> None:
    """`grade --nbgrader` on a folder with no gradebook says what to give, exit status 2, with no traceback, and
    writes no gradebook there."""
    done = cli(KIT, "grade", "--nbgrader", str(tmp_path), "--assignment", "attention")
    assert done.returncode == 2, done.stderr
    assert f"no nbgrader gradebook in {tmp_path} (gradebook.db is missing)" in done.stderr
    assert "nbgrader generate_assignment attention" in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []
