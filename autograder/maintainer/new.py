"""`python -m autograder new N SLUG`: write a new question's files and manifest entry, each part the author still
owes marked.

It writes the solution skeleton (solutions/), the stub the stub tool makes from it (exercises/), the oracle (reference/,
which the student build records), the hidden suite with one example check, the bank of known mistakes, and the
question's entry in course.yaml, in learner order. Every text the author must still write holds PLACEHOLDER, which
dev-check lists file by file (devcheck.check_placeholders). Nothing is written unless everything can be.
"""
import json
import keyword
import re
import tempfile
from pathlib import Path

import yaml

from ..course.manifest import Course, ManifestError, load_course
from ..i18n import _
from .stubs import make_stub

PLACEHOLDER = "FILL IN"  # in every text `new` writes that the author must replace; dev-check lists where it is left
REGION = ("### BEGIN SOLUTION", "### END SOLUTION")  # the stub tool's markers, never at the start of a line here: the
# release refuses to ship a file with a marker line, and this module ships with the grader
SLUG = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")  # snake_case: the module is q<NN>_<slug>, the function <slug>


class NewQuestionError(Exception):
    """The question cannot be added as asked: one line for the maintainer."""


def _solution(number: int, slug: str) -> str:
    """The solution skeleton: one function named after the slug, its body one solution region."""
    return f'''"""Question {number}: {slug.replace("_", " ")}."""
from torch import Tensor


def {slug}(x: Tensor) -> Tensor:
    """{PLACEHOLDER}: what {slug} returns, with the shapes of its arguments and of its result."""
    {REGION[0]}: {PLACEHOLDER}: the line the student reads above the code to write.
    raise NotImplementedError("{PLACEHOLDER}: the solution of question {number}")
    {REGION[1]}
'''


def _reference(number: int, slug: str) -> str:
    """The oracle's module, reference/<slug>.py."""
    return f'''"""The oracle of question {number}: the right answer, which the student build keeps only as recorded results."""
from torch import Tensor


def {slug}(x: Tensor) -> Tensor:
    """{PLACEHOLDER}: the right answer of {slug}, built on PyTorch's own operators."""
    raise NotImplementedError("{PLACEHOLDER}: the oracle of question {number}")
'''  # noqa: E501 - a program's text, written out as it is


def _suite(number: int, slug: str) -> str:
    """The hidden suite: drawn inputs and one example check worth points(1), comparing with the oracle."""
    return f'''"""Question {number}: {slug}."""
import random

import pytest
import torch

from autograder.engine.asserts import assert_same
from autograder.engine.inputs import batch_shape, draw, dtype, randn, seed
from autograder.engine.proxy import Student
from autograder.i18n import N_
from reference import {slug} as oracle


def _input(rng: random.Random) -> dict:
    """{PLACEHOLDER}: one input of {slug}, drawn through rng only (so a failing input can be shrunk)."""
    return {{"x": randn(*batch_shape(rng), rng.randint(1, 6), rng.randint(1, 4), seed=seed(rng), dtype=dtype(rng))}}


INPUTS = draw({number * 100 + 1}, 8, _input)


@pytest.mark.points(1)
@pytest.mark.parametrize("x", INPUTS)
def test_{slug}(student: Student, x: torch.Tensor) -> None:
    """{slug}: {PLACEHOLDER} what this check proves"""
    assert_same(student.{slug}(x), oracle.{slug}(x), N_("the result"))
'''


def _bank(number: int, slug: str) -> str:
    """The bank of known mistakes, empty, its right answer the oracle."""
    return f'''"""Known mistakes of question {number}: {PLACEHOLDER} the mistakes students make (see autograder/engine/mistakes.py)."""
from autograder.engine.mistakes import Bank
from reference import {slug} as oracle

# Each mistake: Mistake(name, N_(explanation), hint number, {{"{slug}": the wrong version}}), declared by a corpus file.
BANK = Bank({number}, {{"{slug}": oracle.{slug}}}, ())
'''  # noqa: E501 - a program's text, written out as it is


def _entry(number: int, slug: str, title: str, points: float, indent: str) -> str:
    """The question's course.yaml entry, its list dash at indent, in the style of the others."""
    lines = [
        f"# {'-' * 66} {number}",
        f"- number: {number}",
        f"  slug: {slug}",
        f"  title: {json.dumps(title, ensure_ascii=False)}",  # a JSON string is a double-quoted YAML scalar
        f"  file: exercises/q{number:02d}_{slug}.py",
        f"  functions: [{slug}]",
        f"  points: {points:g}",
        "  requires: []",
        "  hint:",
        "    - >-",
        f"      {PLACEHOLDER}: a first hint, a nudge (`hint {number}` shows one more at each asking)",
        "  selftest:",
    ]
    for index in (1, 2):
        lines += [
            "    - question: >-",
            f"        {PLACEHOLDER}: self-test question {index}",
            "      answer: >-",
            f"        {PLACEHOLDER}: its model answer",
        ]
    return "".join(f"{indent}{line}\n" for line in lines)


def _with_entry(manifest: str, number: int, slug: str, title: str, points: float) -> str:
    """course.yaml's text with the new entry before the first question of a higher number, else after the last one."""
    document = yaml.compose(manifest)
    questions = next(value for key, value in document.value if key.value == "questions")
    items = questions.value
    lines = manifest.splitlines(keepends=True)
    indent = " " * (items[0].start_mark.column - 2) if items else "  "
    later = [item for item in items if int(next(v.value for k, v in item.value if k.value == "number")) > number]
    if later:
        at = later[0].start_mark.line
        while at > 0 and lines[at - 1].strip().startswith("#"):  # the comment lines that head that entry stay with it
            at -= 1
    else:  # after the last entry, before the blank lines that follow it
        at = items[-1].end_mark.line + (1 if items[-1].end_mark.column else 0) if items else len(lines)
        while at > 0 and not lines[at - 1].strip():
            at -= 1
    head, tail = "".join(lines[:at]), "".join(lines[at:])
    if head and not head.endswith("\n"):
        head += "\n"
    entry = _entry(number, slug, title, points, indent)
    # a blank line between two entries, as the others have
    return head + (entry + "\n" if later else "\n" + entry) + tail


def planned(course: Course, number: int, slug: str, title: str | None = None, points: float = 10) -> dict[str, str]:
    """Path relative to course.root -> text of every file `new` writes (course.yaml included); NewQuestionError when the
    number, the slug or a file is taken, or the slug is no snake_case name."""
    if number < 1:
        raise NewQuestionError(_("the question number must be 1 or more, not {number}").format(number=number))
    if not SLUG.fullmatch(slug) or keyword.iskeyword(slug):
        raise NewQuestionError(
            _(
                "{slug} is not a slug: write it in snake_case, lower-case letters, digits and single underscores, "
                "starting with a letter (padded_attention), and not a Python keyword"
            ).format(slug=repr(slug))
        )
    if points <= 0:
        raise NewQuestionError(_("a question is worth more than 0 points, not {points:g}").format(points=points))
    for question in course.questions:
        if question.number == number:
            raise NewQuestionError(
                _("question {number} already exists ({file}): choose another number").format(
                    number=number, file=question.file
                )
            )
        if question.slug == slug:
            raise NewQuestionError(
                _("the slug {slug} is taken by question {number}: choose another").format(
                    slug=repr(slug), number=question.number
                )
            )
    module = f"q{number:02d}_{slug}"
    solution = _solution(number, slug)
    files = {
        f"solutions/{module}.py": solution,
        f"exercises/{module}.py": make_stub(solution, f"solutions/{module}.py"),
        f"reference/{slug}.py": _reference(number, slug),
        f"autograder/suites/test_{module}.py": _suite(number, slug),
        f"autograder/suites/mistakes/q{number:02d}.py": _bank(number, slug),
    }
    taken = [path for path in files if (course.root / path).exists()]
    if taken:
        raise NewQuestionError(
            _("{path} already exists: move it away or choose another number or slug").format(path=taken[0])
        )
    manifest = (course.root / "course.yaml").read_text(encoding="utf-8")
    files["course.yaml"] = _with_entry(manifest, number, slug, title or slug.replace("_", " ").capitalize(), points)
    with tempfile.TemporaryDirectory() as trial:  # the new manifest must load before anything is written
        (Path(trial) / "course.yaml").write_text(files["course.yaml"], encoding="utf-8")
        try:
            load_course(Path(trial), translate=str)
        except ManifestError as error:
            raise NewQuestionError(
                _("course.yaml would not load with the new entry: {error}").format(error=error)
            ) from None
    return files


def write_question(root: Path, files: dict[str, str]) -> None:
    """Write files under root (course.yaml last); on a failure, remove what was written, put course.yaml back and raise
    NewQuestionError."""
    manifest = (root / "course.yaml").read_bytes()
    written: list[Path] = []
    for relative, text in files.items():
        target = root / relative
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            written.append(target)
            target.write_text(text, encoding="utf-8")
        except OSError as error:
            for path in written:
                path.unlink(missing_ok=True)
            (root / "course.yaml").write_bytes(manifest)
            raise NewQuestionError(
                _("{path} could not be written ({error}); nothing was written").format(path=relative, error=error)
            ) from None


def new_question(course: Course, number: int, slug: str, title: str | None = None, points: float = 10) -> int:
    """The `new N SLUG` command: write the question's files and entry, list them and what is left to do; exit status."""
    files = planned(course, number, slug, title, points)
    write_question(course.root, files)
    print(
        _("Question {number} added, its parts to fill in marked {marker}:").format(
            number=number, marker=repr(PLACEHOLDER)
        )
    )
    for path in files:
        print(f"  {path}")
    print(
        _(
            "Next: write the solution, the oracle and the suite, run the stub tool, add the corpus files, translate "
            "the new texts (python -m autograder.maintainer.catalog), and run `python -m autograder dev-check`, which "
            "lists every {marker} left."
        ).format(marker=repr(PLACEHOLDER))
    )
    return 0
