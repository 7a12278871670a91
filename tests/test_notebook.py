"""Notebooks and the Python API: `from autograder import check; check(3)` gives the CLI's JSON, shows HTML, grades an
nbgrader notebook's answer cells in the sandbox, never kills the kernel; `%run -m autograder` leaves IPython running;
importing autograder imports no torch; an old torch is refused in one line."""
import io
import json
import os
import re
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from conftest import Cli, use_session_sandbox

import autograder
from autograder.cli.main import main
from autograder.course.manifest import load_course
from autograder.nbgrader import cell
from autograder.nbgrader.course import answer_source
from autograder.torch_version import TORCH_FLOOR, torch_problem

ROOT = Path(__file__).resolve().parent.parent
COURSE = load_course(ROOT)


def _kernel_history(monkeypatch: pytest.MonkeyPatch, cells: list[str]) -> None:
    """Pretend this process is an IPython kernel that ran cells."""
    monkeypatch.setattr(cell, "_history", lambda: cells)


def _grade_here(patch: pytest.MonkeyPatch, sandbox: object) -> None:
    """check()'s grading process run in this process: serve() on the request, grading in sandbox (the session's), for
    tests of the report check() builds from its JSON line, not of the process (the killed cell's check, the README's
    shell form and the tests of a failing or interrupted grading process start one)."""
    from autograder import notebook
    from autograder.i18n import set_language

    def run(request: dict) -> subprocess.CompletedProcess:
        out = io.StringIO()
        with pytest.MonkeyPatch.context() as local, redirect_stdout(out):
            local.setattr(sys, "stdin", io.StringIO(json.dumps(request)))
            try:
                notebook.serve()
            finally:
                set_language(None)  # the request's language holds for its grading only, as in a process of its own
        return subprocess.CompletedProcess([sys.executable, "-c", notebook._SERVE], 0, out.getvalue(), "")

    use_session_sandbox(patch, sandbox)
    patch.setattr(notebook, "_run", run)


def test_import_is_cheap():
    """`import autograder` and `from autograder import check` import no torch (2 s) and nothing of the grader."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from autograder import check; print(sorted(m for m in sys.modules "
            "if m.startswith(('torch', 'autograder.')) or m == 'pytest'))",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0 and done.stdout.strip() == "[]", done


def test_check_gives_the_clis_json(monkeypatch, cli: Cli, session_sandbox):
    """check(1, 3, solutions=True).to_dict() is exactly `python -m autograder check 1 3 --solutions --json`'s object
    (the command and check's grading process run in-process: their JSON is what is compared)."""
    monkeypatch.chdir(ROOT)
    _kernel_history(monkeypatch, [])
    _grade_here(monkeypatch, session_sandbox)
    printed = cli(ROOT, "check", "1", "3", "--solutions", "--json")
    report = autograder.check(1, 3, solutions=True)
    total = COURSE.question(1).points + COURSE.question(3).points
    assert report.to_dict() == json.loads(printed.stdout) and report.score == report.max_score == total
    assert "<table>" in report._repr_html_() and "passed" in report._repr_html_()
    assert repr(report).startswith(f"{COURSE.title}: grading solutions/") and f"Total: {total:g} / {total:g}" in str(
        report
    )
    with pytest.raises(ValueError, match=f"there is no question '{max(COURSE.numbers) + 1}'"):
        autograder.check(max(COURSE.numbers) + 1)


def test_check_grades_an_nbgrader_notebooks_cells_in_the_sandbox(monkeypatch, session_sandbox):
    """In a kernel that ran nbgrader answer cells, check(1) grades those cells (not exercises/); a cell that would kill
    the process costs its question and leaves this one (the kernel) running (that check in a grading process of its
    own, the right one's in this process)."""
    monkeypatch.chdir(ROOT)
    question = COURSE.question(1)
    answer = answer_source(question, (ROOT / "solutions" / Path(question.file).name).read_text())
    _kernel_history(monkeypatch, ["import torch", answer])
    with pytest.MonkeyPatch.context() as here:
        _grade_here(here, session_sandbox)
        right = autograder.check(1)
    assert right.score == 8 and "your notebook's answers" in str(right)
    _kernel_history(monkeypatch, [answer + "\nimport os\nos._exit(3)\n"])
    killed = autograder.check(1)
    assert killed.score == 0 and killed.questions[0].status in ("error", "crashed"), killed.to_dict()


def test_run_module_in_ipython_keeps_the_kernel():
    """`%run -m autograder list` in IPython runs the command and returns to the prompt (os._exit only in a script)."""
    ipython = pytest.importorskip("IPython")
    assert ipython
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "IPython",
            "--quick",
            "--no-banner",
            "--colors=NoColor",
            "-c",
            "%run -m autograder list\nprint('kernel alive')",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert "Causal mask" in done.stdout and "kernel alive" in done.stdout, done


def test_torch_floor_matches_pyproject():
    """The floor checked at start-up is the one pyproject.toml declares."""
    # no tomllib on 3.10
    declared = re.findall(r'^\s*"torch>=(\d+)\.(\d+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert declared == [tuple(map(str, TORCH_FLOOR))]


@pytest.mark.parametrize(
    ("version", "refused"),
    [
        ("2.1.2+cu121", True),
        ("2.1.0", True),
        ("2.2.2", False),
        ("2.3.1+cpu", False),
        ("2.4.0", False),
        ("2.13.0+cpu", False),
        ("2.15.0.dev20261201", False),
        (None, True),
    ],
)
def test_an_old_torch_is_refused_in_one_line(version, refused, monkeypatch, capsys):
    """check with torch older than the floor (2.2, the last for Intel Macs; or none) stops before grading with one line
    saying what to do."""
    assert (torch_problem(version) is not None) == refused
    if not refused:
        return
    monkeypatch.setattr("autograder.torch_version.installed_torch", lambda: version)
    assert main(["check", "1"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "torch" in error and ("upgrade" in error or "install it" in error)


@pytest.mark.parametrize(
    ("version", "numpy", "refused"),
    [
        ("2.2.2", "2.1.3", True),
        ("2.3.1+cpu", "2.0.0", True),
        ("2.2.2", "1.26.4", False),
        ("2.4.0", "2.1.3", False),
        ("2.2.2", None, False),
    ],
)
def test_a_torch_older_than_numpy_2_beside_numpy_2_is_refused_in_one_line(version, numpy, refused, monkeypatch, capsys):
    """torch 2.2 or 2.3 (built before numpy 2) beside numpy 2 cannot hand tensors to numpy: refused, with the line
    that fixes it."""
    assert (torch_problem(version, numpy) is not None) == refused
    if not refused:
        return
    monkeypatch.setattr("autograder.torch_version.installed_torch", lambda: version)
    monkeypatch.setattr("autograder.torch_version.installed_numpy", lambda: numpy)
    assert main(["check", "1"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and 'pip install "numpy<2"' in error


def test_a_grading_process_that_fails_gives_no_point(monkeypatch):
    """The grading process dying without an answer (a broken install, a grader bug): every question 0, error, the
    line."""
    monkeypatch.chdir(ROOT)
    _kernel_history(monkeypatch, [])
    monkeypatch.setattr("autograder.notebook._SERVE", "import sys; print('half an answer'); sys.exit(3)")
    report = autograder.check(1, 2, solutions=True)
    assert report.score == 0 and [q.status for q in report.questions] == ["error", "error"]
    assert all(
        q.reason.startswith("the grader itself failed on this question, not your code") for q in report.questions
    )


def test_the_readmes_shell_form_in_a_notebook_runs_the_kernels_python(tmp_path):
    """The README's notebook cells that run the command through the shell (`!... -m autograder`) grade with the kernel's
    Python even when the PATH has no `python` (macOS has only python3; a PATH's python may lack torch)."""
    ipython = pytest.importorskip("IPython")
    assert ipython
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## In a notebook", 1)[1].split("\n## ", 1)[0]
    cells = re.findall(r"```\n(.*?)```", section, re.DOTALL)
    shell = [cell for cell in cells if re.search(r"^!.*-m autograder", cell, re.MULTILINE)]
    assert shell, "the README shows no shell form of the command in a notebook"
    assert not re.search(r"!python3? ", section), "a bare !python runs PATH's Python, not the kernel's"
    empty = tmp_path / "bin"
    empty.mkdir()  # a PATH with no python at all
    for source in shell:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "IPython",
                "--quick",
                "--no-banner",
                "--colors=NoColor",
                "-c",
                source + "\nprint('kernel alive')",
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PATH": str(empty)},
            timeout=300,
        )
        assert "Total: " in done.stdout and "kernel alive" in done.stdout, done


def test_an_interrupted_check_leaves_no_zombie(monkeypatch):
    """The kernel's stop button during check(10): the grading process is ended and reaped (its exit status read)
    before the KeyboardInterrupt reaches the notebook."""
    import os
    import signal
    import threading

    from autograder import notebook

    started: list[subprocess.Popen] = []

    class Recorded(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.chdir(ROOT)
    _kernel_history(monkeypatch, [])
    monkeypatch.setattr(notebook.subprocess, "Popen", Recorded)
    monkeypatch.setattr(notebook, "_SERVE", "import time; time.sleep(60)")
    # Python's own handler, as in a kernel (a run started in the background by a shell inherits SIGINT ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()  # what the stop button sends the kernel
        with pytest.raises(KeyboardInterrupt):
            autograder.check(10, solutions=True)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert len(started) == 1 and started[0].returncode is not None  # waited for: no zombie
