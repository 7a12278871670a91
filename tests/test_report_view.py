"""One report, every renderer: the terminal's table, the notebook's HTML, the feedback file's markdown and Gradescope's
results.json show the same facts (points, statuses, a note, a failure met by several checks said once with their count),
in English and in French (a decimal comma), and nbgrader's test cell the same score; one UsageError in the kit.

The report is built by hand (no grading: cheap): question 1 at full marks, question 2 with a note and two checks failing
with the same error on different inputs, question 3 failing one check of two (it has a picture).
"""
import ast
import html
import re
from pathlib import Path

import pytest

from autograder.classroom.gradescope import Found, results_json
from autograder.cli.report import render
from autograder.course.feedback import markdown
from autograder.course.manifest import load_course
from autograder.course.results import FAILED, PASSED, CaseResult, QuestionResult, Report
from autograder.engine.inputs import INPUT_NOTE
from autograder.i18n import _, set_language
from autograder.nbgrader.package import summary_text
from autograder.notebook import CheckedReport, report_html
from autograder.plots import PICTURES

KIT = Path(__file__).resolve().parent.parent
COURSE = load_course(KIT)
ERROR = "the output differs at [0, 0]"
NOTE = "your largest weight for scores [1, 2, 3]: 0.51"


@pytest.fixture(autouse=True)
def _language_from_the_locale_afterwards():
    """Each test switches the language; the next one starts from the locale's again."""
    yield
    set_language(None)


def _report() -> Report:
    def failing(name: str, T: int) -> CaseResult:
        return CaseResult(name, False, f"{ERROR} [{_(INPUT_NOTE)}: T {T}]")

    title = COURSE.question
    return Report(
        [
            QuestionResult(1, title(1).title, 8, PASSED, [CaseResult("mask", True)]),
            QuestionResult(
                2,
                title(2).title,
                8,
                FAILED,
                [CaseResult("toy", True), failing("small", 1), failing("large", 2)],
                notes=[NOTE],
            ),
            QuestionResult(
                3,
                title(3).title,
                10,
                FAILED,
                [CaseResult("weights", True), CaseResult("causal", False, "row 0 sees row 1")],
            ),
        ]
    )


def _flat(text: str) -> str:
    """text with its tags taken out, its entities read and every run of spaces (no-break ones included) made one
    space."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def _renderings(report: Report) -> dict[str, str]:
    """What each renderer shows of report, flattened."""
    results = results_json(COURSE, report, Found("the modules at the top level of your submission"), 1.0)
    return {
        "text": _flat(render(report, COURSE, "exercises/", answers=())),
        "html": _flat(report_html(report, COURSE, "exercises/", answers=())),
        "markdown": _flat(markdown(COURSE, report.to_dict(), "ada")),
        "gradescope": _flat(results["output"]),
    }


@pytest.mark.parametrize(("language", "point"), [("en", "."), ("fr", ",")])
def test_every_renderer_shows_the_same_facts(language: str, point: str) -> None:
    """Scores with the language's decimal separator, the translated statuses, the note and the grouped failure,
    everywhere."""
    set_language(language)
    report = _report()
    facts = [
        "8 / 8",
        f"2{point}67 / 8",
        "5 / 10",
        _("Total: {score} / {max}").format(score=f"15{point}67", max=26),
        _(PASSED),
        _(FAILED),
        _("note: {note}").format(note=NOTE),
        _("x {count} checks -- {error}, on these inputs:").format(count=2, error=ERROR),
        f"large [{_(INPUT_NOTE)}: T 2]",
        "x causal -- row 0 sees row 1",
    ]
    for renderer, shown in _renderings(report).items():
        missing = [fact for fact in facts if _flat(fact) not in shown]
        assert not missing, f"{renderer} ({language}) does not show {missing}:\n{shown}"
        assert shown.count(ERROR) == 1, f"{renderer} ({language}) says the grouped error more than once:\n{shown}"
    cell = _flat(summary_text(report.questions[1], COURSE))  # nbgrader's test cell: one question, each check on a line
    assert f"2{point}67 / 8" in cell and _(FAILED) in cell and f"large -- {ERROR}" in cell, cell


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_table_and_the_notebook_name_the_picture(language: str) -> None:
    """Where the student's kit is (the terminal, the notebook), a question with a picture says how to draw it."""
    set_language(language)
    picture = _flat(
        _("picture: `python -m autograder plot {number}` draws {what}").format(number=3, what=_(PICTURES[3]))
    )
    shown = _renderings(_report())
    assert picture in shown["text"] and picture in shown["html"]


def test_the_notebooks_report_shows_the_notes_its_json_leaves_out() -> None:
    """check()'s to_dict() stays `check --json`'s object (no ungraded notes) while its table shows them."""
    report = CheckedReport(_report().questions)
    assert all("notes" not in question for question in report.to_dict()["questions"])
    assert NOTE in _flat(report_html(report, COURSE, "exercises/"))


def test_one_usage_error_class() -> None:
    """Bad input from the user is one exception class, whatever command meets it."""
    defined = [
        path.relative_to(KIT).as_posix()
        for path in sorted((KIT / "autograder").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and node.name == "UsageError"
    ]
    assert defined == ["autograder/usage.py"]
