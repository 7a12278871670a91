"""Seconds per submission: `nbgrader autograde` against `python -m autograder grade --nbgrader`, same notebooks.

    python bench/nbgrader_speed.py [--students 20] [--keep DIR]

Builds a course from the kit in a temporary folder, releases it with `nbgrader generate_assignment`, and
submits the same number of notebooks for each path: a third correct, a third partly wrong, a third
untouched release notebooks. Then it times both graders on the whole class, one after the other, each
from a fresh autograded/ folder, checks that they wrote the same scores into the gradebook, and prints
the seconds per submission of each and their ratio.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT))

from autograder.course.manifest import load_course
from autograder.nbgrader.course import drop_relative_imports
from autograder.nbgrader.package import answer_id, graded_id, marker

ASSIGNMENT = "attention"
BUG = ('return scores.masked_fill(~mask, float("-inf"))', 'return scores.masked_fill(mask, float("-inf"))')


def _run(command: list[str], cwd: Path) -> float:
    """Run command in cwd; return its wall-clock seconds (raise on a failure)."""
    env = {**os.environ, "PYTHONPATH": str(KIT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    return seconds


def _submit(course_dir: Path, students: int) -> None:
    """Write submitted/<student>/attention/attention.ipynb for each student, from the release notebook."""
    import nbformat

    course = load_course(KIT)
    release = json.loads((course_dir / "release" / ASSIGNMENT / "attention.ipynb").read_text())
    solutions = {
        q.number: drop_relative_imports((KIT / "solutions" / Path(q.file).name).read_text()) for q in course.questions
    }
    for index in range(students):
        notebook = nbformat.from_dict(json.loads(json.dumps(release)))
        if index % 3 != 2:  # a third of the class hands in the release notebook untouched
            for cell in notebook.cells:
                for question in course.questions:
                    if cell.metadata.get("nbgrader", {}).get("grade_id") == answer_id(question.number):
                        source = solutions[question.number]
                        if index % 3 == 1 and question.number == 1:
                            source = source.replace(*BUG)
                        cell.source = marker(question) + "\n" + source
        folder = course_dir / "submitted" / f"student{index:02d}" / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(notebook, str(folder / "attention.ipynb"))


def _scores(course_dir: Path) -> dict[str, list[float]]:
    """student -> the score of every test cell, from the gradebook."""
    from nbgrader.api import Gradebook

    course = load_course(KIT)
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        return {
            s.id: [gb.find_grade(graded_id(n), "attention", ASSIGNMENT, s.id).score for n in course.numbers]
            for s in gb.students
        }


def main() -> int:
    """Build, submit, time both graders, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--keep", type=Path, default=None, help="build the course here and keep it")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="nbgrader-bench-"))
    course_dir = base / "course"
    try:
        _run([sys.executable, "-m", "autograder", "nbgrader", str(course_dir), "--assignment", ASSIGNMENT], KIT)
        _run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT], course_dir)
        _submit(course_dir, args.students)
        plain = _run([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT], course_dir)
        by_nbgrader = _scores(course_dir)
        shutil.rmtree(course_dir / "autograded")
        kit = _run(
            [sys.executable, "-m", "autograder", "grade", "--nbgrader", str(course_dir), "--assignment", ASSIGNMENT],
            KIT,
        )
        by_kit = _scores(course_dir)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    same = "same scores" if by_nbgrader == by_kit else "DIFFERENT scores"
    print(f"{args.students} submissions, {os.cpu_count()} CPUs; both paths wrote the {same} into the gradebook")
    print(f"nbgrader autograde:         {plain:7.1f} s in all, {plain / args.students:6.2f} s per submission")
    print(f"autograder grade --nbgrader: {kit:6.1f} s in all, {kit / args.students:6.2f} s per submission")
    print(f"ratio (nbgrader / kit):     {plain / kit:7.1f}x")
    return 0 if by_nbgrader == by_kit else 1


if __name__ == "__main__":
    sys.exit(main())
