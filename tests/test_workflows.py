"""The GitHub workflow of the student path (.github/workflows/student-path.yml), which cannot run here: it parses,
covers the three systems and Pythons 3.10-3.13, installs torch as the README says, and every command it runs
exists."""
import glob
import importlib.util
import re
import shlex
from pathlib import Path

import pytest
import yaml

from autograder.cli.main import _parser

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "student-path.yml"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def _steps() -> list[dict]:
    (job,) = _workflow()["jobs"].values()
    return job["steps"]


def _commands(script: str) -> list[list[str]]:
    """Each command of a step's bash script as argv, environment assignments dropped and `$(ls GLOB ...)` expanded."""
    commands = []
    for line in script.splitlines():
        line = re.sub(
            r"\$\(ls ([^ )]+)[^)]*\)", lambda found: " ".join(sorted(glob.glob(found[1], root_dir=ROOT))), line
        )
        for command in line.split("&&"):
            argv = shlex.split(command)
            while argv and re.fullmatch(r"[A-Z_]+=\S*", argv[0]):
                argv.pop(0)
            if argv:
                commands.append(argv)
    return commands


def test_runs_on_three_systems_and_four_pythons():
    (job,) = _workflow()["jobs"].values()
    matrix = job["strategy"]["matrix"]
    assert set(matrix["os"]) == {"ubuntu-latest", "macos-latest", "windows-latest"}
    assert matrix["python"] == ["3.10", "3.11", "3.12", "3.13"]  # strings: 3.10 as a YAML number is 3.1
    assert job["strategy"]["fail-fast"] is False and job["defaults"]["run"]["shell"] == "bash"
    triggers = _workflow().get("on", _workflow().get(True))  # YAML 1.1 reads a bare `on` as true
    assert {"push", "pull_request"} <= set(triggers)


def test_torch_comes_from_the_cpu_index_on_linux_only():
    installs = {
        step["if"]: step["run"] for step in _steps() if "torch" in step.get("run", "") and "pip" in step.get("run", "")
    }
    assert installs == {
        "runner.os == 'Linux'": f"python -m pip install torch --index-url {CPU_INDEX}",
        "runner.os != 'Linux'": "python -m pip install torch",
    }


def test_actions_are_pinned():
    for step in _steps():
        if "uses" in step:
            assert re.fullmatch(r"actions/[a-z-]+@v\d+", step["uses"]), step


@pytest.mark.parametrize(
    "command", [argv for step in _steps() for argv in _commands(step.get("run", ""))], ids=" ".join
)
def test_every_command_exists(command):
    """python -m MODULE for an installed module; the kit's commands parse; pytest's paths and pip's project exist."""
    assert command[:2] == ["python", "-m"], command
    module, args = command[2], command[3:]
    assert importlib.util.find_spec(module) is not None
    if module == "autograder":
        _parser().parse_args(args)  # UsageError for an unknown command or option
    elif module == "pytest":
        paths = [arg for arg in args if not arg.startswith("-")]
        assert "tests/test_cli.py" in paths and all((ROOT / path).is_file() for path in paths)
    else:
        assert args[0] == "install"
        assert args[1:] in (["torch"], ["torch", "--index-url", CPU_INDEX]) or (
            args[1:] == ["-e", "."] and (ROOT / "pyproject.toml").exists()
        )


def test_forced_backend_is_a_known_one():
    forced = [value for step in _steps() for value in re.findall(r"AUTOGRADER_SANDBOX=(\S+)", step.get("run", ""))]
    assert forced and set(forced) <= {"portable", "linux"}


def test_the_runners_keep_the_encoding_students_have():
    """No PYTHONUTF8 or PYTHONIOENCODING anywhere in the workflow: its runners print through the encoding a student's
    console or pipe has (Windows' cp1252 among them), which the report must survive."""
    workflow = _workflow()
    environments = [workflow.get("env") or {}] + [job.get("env") or {} for job in workflow["jobs"].values()]
    environments += [step.get("env") or {} for step in _steps()]
    set_here = {name for env in environments for name in env} | {
        name for step in _steps() for name in re.findall(r"\b(PYTHON\w+)=", step.get("run", ""))
    }
    assert not set_here & {"PYTHONUTF8", "PYTHONIOENCODING", "PYTHONLEGACYWINDOWSSTDIO"}, set_here


def test_the_readme_makes_a_venv_first_and_its_by_hand_command_runs() -> None:
    """The README's set-up starts with a virtual environment on every system (PEP 668 refuses pip outside one on a stock
    Debian or Ubuntu Python), and the way it gives to run an exercise by hand works from the kit's folder."""
    import subprocess
    import sys

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = readme[readme.index("## Set up") : readme.index("## The student workflow")]
    for line in (
        "python3 -m venv .venv",
        ". .venv/bin/activate",
        "py -m venv .venv",
        ".venv\\Scripts\\activate",
        "externally-managed-environment",
        "python -m exercises.q03_attention",
    ):
        assert line in setup, line
    assert setup.index("python3 -m venv .venv") < setup.index("pip install")
    ran = subprocess.run(
        [sys.executable, "-m", "exercises.q03_attention"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
