"""The Python API: `check(3)` from a notebook (Jupyter, Colab), IPython or a script, as Otter's `grader.check("q1")`.

check grades in a grading process of its own (this interpreter, started afresh, as `python -m autograder check 3 --json`
is): the kernel imports no torch and runs no student code, a fault of the grader cannot kill it, and the report is the
CLI's, built by the same engine.run.grade call. In an nbgrader notebook (one whose answer cells, marked `# qNN_answer`,
this kernel ran), the answer cells are written into a package as nbgrader/cell.py does (nbgrader/package.py), and graded
in the sandbox like the kit's files: the notebook's code runs only there.

The grading process reads one JSON request on stdin and writes one JSON line on stdout: the report's to_dict(), from
which the kernel rebuilds the same Report (course/results.py question_from_dict). It grades as `check` does in a
terminal, ungraded notes included: the table shows them, to_dict() leaves them out as `check --json` does.
"""
import html
import json
import re
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from .course.manifest import Course, find_root, load_course
from .course.results import ERROR, FAILED, NOT_ATTEMPTED, PASSED, CaseResult, QuestionResult, Report, question_from_dict
from .course.view import Line, ReportView, report_view
from .i18n import _, set_language
from .usage import UsageError

# the folder holding the autograder package: the grading process starts there
KIT_DIR = Path(__file__).resolve().parent.parent
_SERVE = "from autograder.notebook import serve; serve()"
ANSWER_CELL = re.compile(r"^\s*#.*\bq\d\d_answer\b", re.MULTILINE)  # nbgrader/package.py's marker of an answer cell


@dataclass(repr=False)
class CheckedReport(Report):
    """A Report as check() returns it: shown as the CLI's table (text) or as an HTML table where the front end
    renders HTML."""

    text: str = ""
    html: str = ""

    def __repr__(self) -> str:
        """The report as `check` prints it in a terminal."""
        return self.text

    __str__ = __repr__

    def _repr_html_(self) -> str:
        """The report as an HTML table, for Jupyter, JupyterLab and Colab."""
        return self.html

    def to_dict(self) -> dict:
        """`check --json`'s object: the report without the ungraded notes, which only the table shows."""
        entry = super().to_dict()
        for question in entry["questions"]:
            question.pop("notes", None)
        return entry


def check(
    *numbers: int, solutions: bool = False, notebook: bool | None = None, lang: str | None = None
) -> CheckedReport:
    """Grade questions numbers (all when none) of the kit's exercises/ (solutions/ with solutions=True) or, in an
    nbgrader notebook, of the answer cells this kernel ran; return the report, whose to_dict() is `check N
    --json`'s object.

    ValueError for a question that does not exist. A failure of the grader's own gives every question 0, status error.
    """
    from .cli.main import _answers_to_show, _numbers
    from .cli.progress import last_statuses, remember
    from .cli.report import local_facts
    from .course.text import text
    from .nbgrader.cell import _history

    language = set_language(lang)
    course = load_course(find_root(Path.cwd()))
    try:
        chosen = _numbers(course, [str(number) for number in numbers])
    except UsageError as error:
        raise ValueError(str(error)) from None
    history = _history() if notebook is not False else []
    in_notebook = notebook if notebook is not None else any(ANSWER_CELL.search(cell) for cell in history)
    local = not solutions and not in_notebook  # the student's exercises/: its history is kept, as `check` keeps it
    previous = last_statuses(course) if local else None
    request = {
        "root": str(course.root),
        "numbers": chosen,
        "solutions": solutions,
        "lang": language,
        "history": history if in_notebook else None,
    }
    report = _ask(course, request)
    if local:
        remember(course, report)
    label = _("your notebook's answers") if in_notebook else ("solutions/" if solutions else "exercises/")
    answers = _answers_to_show(report, list(numbers) and chosen, previous)
    view = report_view(report, course, label, answers, local_facts(report, course))  # once, for both
    report.text, report.html = text(view), html_text(view)
    return report


STOP_SECONDS = 5.0  # the most an interrupted check waits for the grading process to stop on SIGTERM before killing it


def _ask(course: Course, request: dict) -> CheckedReport:
    """The report of a grading process for request; every question an error, 0 points, when the process gave none."""
    from .engine.grader_errors import grader_failed

    done = _run(request)
    lines = done.stdout.strip().splitlines()
    try:
        answer = json.loads(lines[-1])
    except (IndexError, ValueError):
        answer = {"error": f"grading process exit status {done.returncode}, no answer"}
    if "report" in answer:
        return CheckedReport(
            [question_from_dict(entry) for entry in answer["report"]["questions"]],
            sandbox=answer["report"].get("sandbox", {}),
        )
    # the environment's, or the grader's
    reason = answer.get("problem") or grader_failed(f"{answer.get('error')}\n{done.stderr[-4000:]}")
    return CheckedReport(
        [
            QuestionResult(q.number, q.title, q.points, ERROR, [CaseResult(q.title, False, reason)], reason)
            for q in map(course.question, request["numbers"])
        ]
    )


def _run(request: dict) -> subprocess.CompletedProcess:
    """The grading process's run on request; interrupted (the kernel's stop button, Ctrl-C), it is ended and reaped
    before the interrupt goes on, so that no zombie is left under the kernel (subprocess.run waits a quarter of a
    second only)."""
    process = subprocess.Popen(
        [sys.executable, "-c", _SERVE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=KIT_DIR,
        encoding="utf-8",
        errors="replace",
    )
    try:
        stdout, stderr = process.communicate(json.dumps(request))
    except BaseException:
        process.terminate()  # the grader closes its sandbox on SIGTERM
        try:
            process.communicate(timeout=STOP_SECONDS)
        except BaseException:  # noqa: BLE001 - a second interrupt, or a grader that will not stop: kill it and reap it all the same
            process.kill()
            process.communicate()
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def serve() -> None:
    """The grading process: one request on stdin, one JSON line on stdout ({"report"}, or "problem" for the
    environment, "error" with the grader's traceback)."""
    request = json.loads(sys.stdin.read())
    try:
        set_language(request["lang"])
        from .torch_version import installed_numpy, installed_torch, torch_problem

        problem = torch_problem(installed_torch(), installed_numpy())
        if problem:
            print(json.dumps({"problem": problem}))
            return
        from .engine.run import grade

        course = load_course(Path(request["root"]))
        numbers = [int(number) for number in request["numbers"]]
        with tempfile.TemporaryDirectory(prefix="notebook-answers-") as folder:
            if request["history"] is not None:
                from .nbgrader.package import pick_from_history, write_package

                sources = pick_from_history(course, list(request["history"]), max(numbers))
                package = write_package(course, sources, Path(folder) / "exercises", upto=max(numbers))
            else:
                package = course.root / ("solutions" if request["solutions"] else "exercises")
            report = grade(course, package, numbers, notes=True)  # as `check` in a terminal: the table shows the notes
        print(json.dumps({"report": report.to_dict()}))
    except Exception:  # noqa: BLE001 - the grader's own failure: the kernel reports it, every question at 0
        print(json.dumps({"error": traceback.format_exc()}))


# others (error, timeout, crashed): red
STATUS_COLOURS = {PASSED: "#1a7f37", FAILED: "#bf8700", NOT_ATTEMPTED: "#57606a"}
CELL = 'style="text-align:left;padding:2px 8px"'


def _line_html(line: Line) -> str:
    """One line of the view as a list item; a grouped failure's inputs in a list of their own."""
    items = "".join(f"<li>{html.escape(item)}</li>" for item in line.items)
    return f"<li>{html.escape(line.text)}" + (f'<ul style="margin:0">{items}</ul>' if items else "") + "</li>"


def report_html(report: Report, course: Course, label: str, answers: Collection[int] | None = None) -> str:
    """The report as the notebook shows it: the view the terminal's table draws (cli/report.py render), in HTML."""
    from .cli.report import local_facts

    return html_text(report_view(report, course, label, answers, local_facts(report, course)))


def html_text(view: ReportView) -> str:
    """The view as an HTML table: one row per question and its lines below it, the total, then the self-tests."""
    rows = ["<tr>" + "".join(f"<th {CELL}>{html.escape(heading)}</th>" for heading in ("#", *view.columns)) + "</tr>"]
    for question in view.questions:
        colour = STATUS_COLOURS.get(question.status, "#cf222e")
        rows.append(
            f"<tr><td {CELL}>{question.number}</td><td {CELL}>{html.escape(question.title)}</td>"
            f"<td {CELL}>{html.escape(question.score)}</td>"
            f'<td {CELL}><span '
            f'style="color:{colour};font-weight:bold">{html.escape(question.status_text)}</span></td></tr>'
        )
        if question.lines:
            items = "".join(_line_html(line) for line in question.lines)
            rows.append(f'<tr><td {CELL}></td><td {CELL} colspan="3"><ul style="margin:0">{items}</ul></td></tr>')
    selftests = "".join(
        f"<p>{html.escape(item.heading)}</p><ul>"
        + "".join(f"<li>{html.escape(row)}</li>" for pair in item.items for row in pair)
        + "</ul>"
        for item in view.selftests
    )
    unlocked = f"<p>{html.escape(view.unlocked)}</p>" if view.unlocked else ""
    return (
        f"<div><p><b>{html.escape(view.heading)}</b></p><table>{''.join(rows)}</table><p><b>{html.escape(view.total)}</b></p>"
        f"{selftests}{unlocked}</div>"
    )
