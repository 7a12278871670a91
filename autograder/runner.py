"""Grade questions: start the sandbox first, then import torch and the suites while it warms up."""
from pathlib import Path

from .manifest import Course
from .results import Report
from .sandbox import Sandbox


def grade(course: Course, package_dir: Path, numbers: list[int], parallel: int = 2) -> Report:
    """Run the questions' checks on the package in package_dir (exercises/ or solutions/) and judge them."""
    sandbox = Sandbox(parallel)  # before torch: the worker's import of torch overlaps ours
    try:
        from .grading import judge_question, make_job  # imports torch
        from .suites import checks_for

        questions = [course.question(n) for n in numbers]
        checks = {q.number: checks_for(q) for q in questions}
        exits = sandbox.run([make_job(q, checks[q.number], package_dir) for q in questions])
        return Report([judge_question(q, checks[q.number], exits[q.number], package_dir / Path(q.file).name) for q in questions])
    finally:
        sandbox.close()
