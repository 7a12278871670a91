"""The GitHub Classroom workflow of the learner release: one graded step per question, points as Classroom reads them.

GitHub Classroom's autograding is a GitHub Actions workflow in the student's repository. Each graded step uses
`classroom-resources/autograding-command-grader`: it runs a shell command and, from its exit status alone, reports
the step's `max-score` (status 0) or 0 (any other status, or past `timeout` minutes) as a base64 JSON `result`
output. The last step, `classroom-resources/autograding-grading-reporter`, reads the variable `<ID>_RESULTS` of every
step id listed in its `runners` input, adds up the points, and leaves them as the annotation Classroom records.

Here each question is one step that runs `python -m autograder check N`, which exits 0 only when question N is at
full marks. A question therefore earns all of its course.yaml points or none on Classroom: the command grader has
no partial credit. The per-check report of every question, partial score included, is printed in the job's log.
"""
import math

import yaml

from ..course.manifest import Course, ManifestError

WORKFLOW = ".github/workflows/classroom.yml"
GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
PYTHON = "3.11"
TORCH = "torch==2.13.0"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"  # the CPU-only wheel: GitHub's runners have no GPU
INSTALL = (f"python -m pip install {TORCH} --index-url {TORCH_INDEX}",  # first, so the kit does not pull a CUDA build
           "python -m pip install -e .")
MARGIN = 120  # seconds a step gets on top of the question's time limit: interpreter, torch import, sandbox start
HEADER = """\
# GitHub Classroom autograding, written by `python -m autograder release` from course.yaml.
# Regenerate it with a new release rather than editing it by hand.
#
# One step per question runs `python -m autograder check N`. The command grader awards the
# question's points when that command exits with status 0, which `check` does only at full
# marks, and 0 otherwise: on Classroom a question counts all or nothing. The job's log shows
# each question's full report (every check, the partial score, what to fix).
"""


def step_id(number: int) -> str:
    """The step id of question number: q01, q02, ...; the reporter reads it back as Q01_RESULTS."""
    return f"q{number:02d}"


def command(number: int) -> str:
    """The shell command that grades question number; exit status 0 exactly when it is at full marks."""
    return f"python -m autograder check {number}"


def _points(course: Course, number: int) -> int:
    """The question's points as the whole number the command grader's max-score must be (it parses an integer)."""
    points = course.question(number).points
    if points != int(points) or points < 0:
        raise ManifestError(f"question {number} is worth {points:g} points: GitHub Classroom's command grader "
                            f"awards whole points only, so give every question a whole number of points")
    return int(points)


def _grading_step(course: Course, number: int) -> dict:
    """The command-grader step of one question."""
    question = course.question(number)
    name = f"Question {number}: {question.title}"
    return {"name": name, "id": step_id(number), "uses": GRADER,
            "with": {"test-name": name, "command": command(number),
                     "timeout": math.ceil((question.time_limit + MARGIN) / 60), "max-score": _points(course, number)}}


def workflow(course: Course) -> dict:
    """The workflow as a mapping, ready for YAML: set up, install, one graded step per question, the reporter."""
    ids = [step_id(number) for number in course.numbers]
    steps = [
        {"name": "Checkout code", "uses": "actions/checkout@v4"},
        # No pip cache: setup-python saves it only when the job succeeds, and the reporter fails the job until
        # every question is at full marks.
        {"name": "Set up Python", "uses": "actions/setup-python@v5", "with": {"python-version": PYTHON}},
        {"name": "Install PyTorch (CPU) and the kit", "timeout-minutes": 20, "run": "\n".join(INSTALL) + "\n"},
        *(_grading_step(course, number) for number in course.numbers),
        {"name": "Autograding Reporter", "uses": REPORTER,
         "env": {f"{i.upper()}_RESULTS": f"${{{{ steps.{i}.outputs.result }}}}" for i in ids},
         "with": {"runners": ",".join(ids)}},
    ]
    return {
        "name": "Autograding Tests",
        "on": ["push", "workflow_dispatch", "repository_dispatch"],
        "permissions": {"checks": "write", "actions": "read", "contents": "read"},
        "jobs": {"run-autograding-tests": {
            "runs-on": "ubuntu-latest",
            "if": "github.actor != 'github-classroom[bot]'",  # not on Classroom's own commit creating the repository
            "steps": steps,
        }},
    }


class _Dumper(yaml.SafeDumper):
    """YAML as a person writes a workflow: multi-line strings as `|` blocks, lists indented under their key."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        """Indent block sequences under their key (`steps:` then `  - name:`), as GitHub's examples do."""
        super().increase_indent(flow, False)


def _string(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    """A string node; a multi-line one in literal block style."""
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


_Dumper.add_representer(str, _string)


def workflow_text(course: Course) -> str:
    """The file .github/workflows/classroom.yml of the learner release."""
    body = yaml.dump(workflow(course), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)
    return HEADER + body


def classroom_files(course: Course) -> dict[str, bytes]:
    """Path -> content of the files the release carries for GitHub Classroom."""
    return {WORKFLOW: workflow_text(course).encode("utf-8")}
