"""What an autograder test cell runs under `nbgrader autograde`: the question graded in the kit's sandbox.

In the kernel, grade_question only collects the source of the cells executed so far (IPython's input history) and
hands it to a grading process (`python -I` with the kernel's sys.path, in a session of its own, started by the first
test cell and kept for the others until the kernel ends), which picks each answer cell, writes them into a temporary
exercises-like package and grades the question as `check` does (the same hidden pytest suites, sandbox and plugin,
engine/run.py): the student's functions run in the sandbox with the question's time limit, never in the kernel, and
the results are judged in another process, which no name the cells rebind in the kernel reaches. Under `nbgrader
autograde` the kernel runs no answer cell: the course's config makes each student's cell inert first (autograde.py,
inert.py), and the grading process reads the source back from the inert cell in the history.
Its inputs are drawn from the course secret, as in every class grading (engine/secret.py; `python -m autograder
nbgrader` makes it). The cell prints a summary on stdout (never stderr: nbgrader would score the cell 0) and returns
the points, which nbgrader records as partial credit."""
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import warnings

from ..i18n import _
from ..sandbox import isolated_python
from ..sandbox.boot import PATH_VARIABLE
from pathlib import Path

KIT_DIR = str(Path(__file__).resolve().parents[2])  # the folder that holds the autograder package
# no wait of the kernel's own: the sandbox bounds every question, and nbgrader's cell timeout the cell
GRADING_TIMEOUT = None
STOP_SECONDS = 10.0  # how long an interrupted grading process may take to close its sandbox before it is killed
# the grading process is isolated (-I: no PYTHONPATH, no user site): it adds the kernel's sys.path as a sandbox child
# does (sandbox/boot.py), so that torch is found where the kernel found it, then imports the kit from its folder
_CHILD = (
    "import os, runpy, sys; runpy.run_path(os.path.join(sys.argv[1], 'autograder', 'sandbox', 'boot.py'))"
    "['extend_path'](); sys.path.insert(0, sys.argv[1]); from autograder.nbgrader.cell import main; sys.exit(main())"
)


def _history() -> list[str]:
    """Source of every cell executed in this kernel so far, oldest first (empty outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return []
    shell = get_ipython()
    if shell is None:
        return []
    return [str(cell) for cell in shell.history_manager.input_hist_raw]


_server: subprocess.Popen | None = None  # the grading process, kept for the kernel's later test cells


def _ask(request: dict) -> dict:
    """Send request to the grading process (started on first use) and wait for its one-line answer."""
    global _server
    if _server is None or _server.poll() is not None:
        # never the kernel's own folder, which holds the submission's files
        here = os.path.realpath(os.getcwd())
        path = [entry for entry in sys.path if entry and os.path.isdir(entry) and os.path.realpath(entry) != here]
        # a session of its own: the signals Jupyter sends the kernel's process group to interrupt or stop the
        # student's code never cut the grader's clean-up short; it ends when the kernel does (its stdin closes)
        _server = subprocess.Popen([*isolated_python(), "-c", _CHILD, KIT_DIR], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   env={**os.environ, PATH_VARIABLE: json.dumps(path)},
                                   start_new_session=callable(getattr(os, "setsid", None)))
    try:
        _server.stdin.write((json.dumps(request) + "\n").encode("utf-8"))
        _server.stdin.flush()
        ready, _writable, _failed = select.select([_server.stdout], [], [], GRADING_TIMEOUT)
        line = _server.stdout.readline() if ready else b""
        if not line:
            raise OSError(_("no answer from the grading process"))
        return json.loads(line)
    except BaseException:  # an interrupt too: the answer still owed would be read by the next cell
        _stop_server()
        raise


def _stop_server() -> None:
    """Stop the grading process as an interrupt would (it closes its sandbox on the way out), and kill it if it has not
    ended within STOP_SECONDS."""
    global _server
    server, _server = _server, None
    try:
        server.send_signal(signal.SIGINT)
        server.wait(STOP_SECONDS)
    except (OSError, ValueError, subprocess.TimeoutExpired):  # no SIGINT for a process here (Windows), or no end
        pass
    finally:  # a second interrupt too
        if server.poll() is None:
            server.kill()
            server.wait()


def grade_question(course_root: str, number: int) -> float:
    """Grade question number on the answer cells run so far, print a summary, return the points earned."""
    try:
        answer = _ask({"course_root": str(course_root), "number": int(number), "history": _history()})
    except (OSError, ValueError) as error:
        print(_("Question {number}: the grader could not run ({error}: {message}); 0 points.").format(
            number=number, error=type(error).__name__, message=error))
        return 0.0
    print(answer["summary"], end="")
    return float(answer["score"])


def ran_in_kernel(number: int) -> str:
    """What a test cell says under `nbgrader autograde` when the kernel was given answer cells as code, not as data."""
    return _(
        "Question {number}: 0 points, not graded: under `nbgrader autograde` this notebook's answer cells ran in "
        "nbgrader's kernel, outside the sandbox, because the course's nbgrader_config.py lacks the kit's "
        "Autograde.autograde_preprocessors (KeepAnswersAsData, RestoreAnswers). Add the lines that `python -m "
        "autograder nbgrader` prints, or grade with `python -m autograder grade --nbgrader`."
    ).format(number=number) + "\n"


class Grader:
    """The grading process's state: courses by root, and one sandbox kept for every request."""

    def __init__(self) -> None:
        """Start the sandbox at once, so its import of torch overlaps ours."""
        from ..sandbox import start_sandbox

        self.sandbox = start_sandbox()
        import torch

        torch.set_num_threads(1)  # as autograder.engine.run does: the oracle works on tiny tensors
        self.courses: dict[str, object] = {}

    def grade(self, request: dict) -> dict:
        """Grade one question from a request {course_root, number, history}; return {score, max_score, summary}."""
        from ..course.manifest import load_course
        from ..engine.run import run_suites
        from .inert import is_inert, unwrap
        from .package import pick_from_history, summary_text, write_package

        root = str(request["course_root"])
        if root not in self.courses:
            self.courses[root] = load_course(Path(root))
        course = self.courses[root]
        number = int(request["number"])
        history = [str(cell) for cell in request["history"]]
        if os.environ.get("NBGRADER_EXECUTION") == "autograde" and pick_from_history(
            course, [cell for cell in history if not is_inert(cell)], number
        ):
            return {"score": 0.0, "max_score": None, "summary": ran_in_kernel(number)}
        sources = pick_from_history(course, [unwrap(cell) for cell in history], number)
        with tempfile.TemporaryDirectory(prefix="nbgrader-answers-") as folder:
            package = write_package(course, sources, Path(folder) / "exercises", upto=number)
            result = run_suites(course, self.sandbox, package, [number]).questions[0]
        return {"score": result.score, "max_score": result.max_score, "summary": summary_text(result, course)}

    def close(self) -> None:
        """Stop the sandbox and whatever question it still runs."""

        self.sandbox.close()


def main() -> int:
    """Entry point of the grading process: one JSON request per line on stdin, one JSON answer per line on stdout."""
    from ..engine.secret import for_class_grading

    warnings.simplefilter("ignore")
    # a test cell's hidden part runs in the instructor's copy: class grading, secret inputs
    for_class_grading(create=False)
    grader = Grader()
    try:
        for line in sys.stdin:
            request = json.loads(line)
            try:
                answer = grader.grade(request)
            except Exception as error:  # noqa: BLE001 - the cell must get an answer, whatever went wrong
                answer = {"score": 0.0, "max_score": None,
                          "summary": _("Question {number}: the grader failed ({error}: {message}); 0 points.").format(
                              number=request.get('number'), error=type(error).__name__, message=error) + "\n"}
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
    finally:
        grader.close()
    return 0
