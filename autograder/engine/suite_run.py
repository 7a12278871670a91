"""What a run of the hidden suites shares between run.py, which starts it, and plugin.py, which grades in it: where
the suites are, a package to grade (Submission), hypothesis's storage. A leaf of the engine: neither needs the other
for these."""
from dataclasses import dataclass
from pathlib import Path

from ..course.manifest import Course
from ..course.results import Report

SUITES = Path(__file__).resolve().parent.parent / "suites"


def suite_file(course: Course, number: int) -> Path:
    """autograder/suites/test_qNN_<slug>.py of question number."""
    return SUITES / f"test_{course.question(number).module}.py"


@dataclass
class Submission:
    """One package for run_each, and once it is graded, its report (failed: the grader's own traceback, if it broke)."""

    package: Path
    hidden: tuple[Path, ...] = ()  # folders its code may not read, such as the one holding the other students' packages
    report: Report | None = None
    failed: str = ""


def keep_hypothesis_in(folder: Path) -> None:
    """hypothesis's storage (.hypothesis/: the constants it reads from the grader's modules, with their paths) goes
    in the sandbox's own folder, which no student's code may read and which the sandbox removes, never in the
    working folder (nbgrader's autograded/<student>/, a student's repository). The kit's plugin calls it once the
    suites are collected, and only when one of them imported hypothesis: importing it for nothing cost `check 3` a
    tenth of a second."""
    from hypothesis.configuration import set_hypothesis_home_dir  # only when a suite imported hypothesis (above)

    set_hypothesis_home_dir(folder / "hypothesis")
