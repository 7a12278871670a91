"""The portable sandbox, proven without a Mac or a PC: the student path and `grade` on interpreters made to behave
like them.

A fake environment (a pyvenv.cfg beside a link to this interpreter) loads tests/simulate/no_linux.py in every process
it starts, `python -I` children included: no os.pidfd_open, O_PATH, prctl (so no Landlock or seccomp) or /proc. The
macOS-like interpreter also loads tests/simulate/macos.py (fork, fcntl, resource, FIFOs and select on pipes kept; an
address-space limit accepted and not enforced; spawn the default start method; a fork after torch fatal); the
Windows-like one loads tests/simulate/no_posix.py instead (no fork, waitpid, posix_spawn, process groups, users, fcntl,
resource, FIFOs, select on pipes, POSIX-only signals; stand-ins for msvcrt, O_BINARY, CREATE_NEW_PROCESS_GROUP, Job
Objects and Windows' crash codes). On each the kit must pick the portable backend by its probes and give the report the
Linux backend gives in this process: scores, statuses and messages of solutions, a stub, a wrong file, an endless loop,
a crash and a print flood; `grade DIR` must write the grades.csv the Linux backend writes; `watch` must re-grade after
a save and `plot 3` draw its picture.
"""
import json
import os
import shutil
import signal
import site
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import use_session_sandbox

from autograder.course.manifest import load_course
from autograder.engine.run import grade
from autograder.sandbox.choice import missing_pieces

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(bool(missing_pieces()), reason="simulates the other platforms from one with the Linux "
                                "backend; on those platforms, the student-path workflow runs the kit for real")
LIMIT = 3  # seconds: the time limit of every question in the kit copy (question 4 loops forever)
NUMBERS = [1, 2, 3, 4, 5, 6]
MACOS, WINDOWS = ("no_linux", "macos"), ("no_linux", "no_posix")  # the files of tests/simulate/ each interpreter loads
REMOVED = {
    MACOS: ("os.pidfd_open", "prctl (ctypes)", "/proc", "os.O_PATH"),
    WINDOWS: (
        "os.fork",
        "os.pidfd_open",
        "prctl (ctypes)",
        "/proc",
        "resource",
        "fcntl",
        "os.mkfifo",
        "select on pipes",
        "os.O_PATH",
        "process groups",
    ),
}
# Each question of the copy, as a student might leave it: right, wrong, a stub, an endless loop, a crash, a flood of
# prints.
OVERRIDES = {
    # one line: the line named is always the same
    "q04_heads.py": "\n\ndef split_heads(x, n_heads):\n    while True: pass\n",
    "q05_multihead.py": "\n\nimport os\n\n\nclass MultiHeadSelfAttention(MultiHeadSelfAttention):\n    def "
                        "forward(self, x):\n        os.abort()\n",
    "q06_additive.py": "\n\ndef additive_scores(*args, **kwargs):\n    while True:\n        print('x' * 100_000)\n",
}


def _simulated_interpreter(
    prefix: Path, removals: tuple[str, ...], settings: dict[str, object] | None = None
) -> tuple[Path, Path]:
    """(an interpreter whose every process first loads the tests/simulate/ files named by removals, the log where
    each of its processes writes its command line). The first file is loaded before anything else, the others once
    the site folders of this environment are on the path (torch and psutil are found); settings: `NAME = value`
    lines of those files rewritten (NAME = value)."""
    real = Path(os.path.realpath(sys.executable))
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "python").symlink_to(real)
    version = ".".join(map(str, sys.version_info[:3]))
    (prefix / "pyvenv.cfg").write_text(
        f"home = {real.parent}\ninclude-system-site-packages = false\nversion = {version}\n"
    )
    packages = prefix / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    packages.mkdir(parents=True)
    log = prefix / "processes.txt"
    ours = [entry for entry in site.getsitepackages() if Path(entry).is_dir()]
    (packages / "01_this_environment.pth").write_text(
        "".join(f"import site; site.addsitedir({entry!r})\n" for entry in ours)
    )
    for order, name in enumerate(removals, start=1):
        lines = (ROOT / "tests" / "simulate" / f"{name}.py").read_text(encoding="utf-8").splitlines()
        for key, value in {"LOG": str(log), **(settings or {})}.items():
            lines = [f"{key} = {value!r}" if line.startswith(f"{key} = ") else line for line in lines]
        (packages / f"_{name}.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (packages / f"{0 if order == 1 else order:02d}_{name}.pth").write_text(f"import _{name}\n")
    return prefix / "bin" / "python", log


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the macOS-like interpreter, the log where each of its processes writes its command line)."""
    return _simulated_interpreter(tmp_path_factory.mktemp("macos"), MACOS)


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the kit with every time limit at LIMIT s and exercises/ as OVERRIDES and the docstring above say."""
    folder = tmp_path_factory.mktemp("kit")
    for name in ("autograder", "reference", "solutions"):
        shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "solutions", folder / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(
        ROOT / "tests" / "corpus" / "wrong" / "q02_scale_by_d.py", folder / "exercises" / "q02_scaled_scores.py"
    )
    shutil.copy(ROOT / "exercises" / "q03_attention.py", folder / "exercises")
    for name, tail in OVERRIDES.items():
        with open(folder / "exercises" / name, "a", encoding="utf-8") as module:
            module.write(tail)
    lines = [
        f"    time_limit: {LIMIT}" if line.startswith("    time_limit:") else line
        for line in (ROOT / "course.yaml").read_text(encoding="utf-8").splitlines()
    ]
    (folder / "course.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _run(python: Path, kit: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "AUTOGRADER_SANDBOX"}
    return subprocess.run(
        [str(python), "-m", "autograder", *args], cwd=kit, capture_output=True, text=True, timeout=timeout, env=env
    )


def _same_parts(report: dict) -> dict:
    """What both backends must agree on: everything but the sandbox entry."""
    return {key: value for key, value in report.items() if key != "sandbox"}


PROBE = """
import json, multiprocessing, os, signal, subprocess, sys
import psutil
from autograder.sandbox.choice import missing_pieces
def importable(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False
seen = {name: hasattr(os, name) for name in ("fork", "mkfifo", "killpg", "posix_spawn", "setpgrp", "waitpid", "chown", "O_BINARY")}
seen.update({name: importable(name) for name in ("fcntl", "resource", "msvcrt")})
seen.update(SIGKILL=hasattr(signal, "SIGKILL"), pthread_sigmask=hasattr(signal, "pthread_sigmask"),
            CREATE_NEW_PROCESS_GROUP=hasattr(subprocess, "CREATE_NEW_PROCESS_GROUP"), start=multiprocessing.get_start_method(),
            methods=multiprocessing.get_all_start_methods(), missing=list(missing_pieces()))
if seen["resource"]:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (1 << 40, 1 << 40))
    seen["address_space_enforced"] = psutil.Process().rlimit(psutil.RLIMIT_AS)[0] == 1 << 40
abort = subprocess.run([sys.executable, "-c", "import os; os.abort()"], stderr=subprocess.DEVNULL)
seen["abort"] = abort.returncode
print(json.dumps(seen))
"""  # noqa: E501 - a program's text, written out as it is


def test_the_simulated_interpreters_have_what_their_platforms_have(tmp_path: Path) -> None:
    expected = {
        MACOS: {
            "fork": True,
            "mkfifo": True,
            "killpg": True,
            "posix_spawn": True,
            "setpgrp": True,
            "waitpid": True,
            "chown": True,
            "O_BINARY": False,
            "fcntl": True,
            "resource": True,
            "msvcrt": False,
            "SIGKILL": True,
            "pthread_sigmask": True,
            "CREATE_NEW_PROCESS_GROUP": False,
            "start": "spawn",
            "methods": ["spawn", "fork", "forkserver"],
            "address_space_enforced": False,
            "abort": -6,
        },
        WINDOWS: {
            "fork": False,
            "mkfifo": False,
            "killpg": False,
            "posix_spawn": False,
            "setpgrp": False,
            "waitpid": False,
            "chown": False,
            "O_BINARY": True,
            "fcntl": False,
            "resource": False,
            "msvcrt": True,
            "SIGKILL": False,
            "pthread_sigmask": False,
            "CREATE_NEW_PROCESS_GROUP": True,
            "start": "spawn",
            "methods": ["spawn"],
            "abort": 0xC0000409,
        },
    }
    for removals, wanted in expected.items():
        python, _ = _simulated_interpreter(tmp_path / removals[-1], removals)
        done = subprocess.run([str(python), "-c", PROBE], capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        seen = json.loads(done.stdout)
        assert sorted(seen.pop("missing")) == sorted(REMOVED[removals]), removals
        assert seen == wanted, removals


@pytest.fixture(scope="module")
def linux_report(kit: Path, session_sandbox: object) -> dict:
    """The report of NUMBERS that the Linux backend gives in this process (in the session's sandbox)."""
    with pytest.MonkeyPatch.context() as patch:
        use_session_sandbox(patch, session_sandbox)
        return grade(load_course(kit), kit / "exercises", NUMBERS).to_dict()


@pytest.mark.parametrize("removals", [MACOS, WINDOWS], ids=["macos-like", "windows-like"])
def test_the_student_path_gives_the_linux_backends_report(
    removals: tuple[str, ...], kit: Path, linux_report: dict, tmp_path: Path
) -> None:
    used = tmp_path / "windows-branches.txt"
    python, log = _simulated_interpreter(tmp_path / "interpreter", removals, {"USED": str(used)})
    done = _run(python, kit, "check", *map(str, NUMBERS), "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["sandbox"]["backend"] == "portable" and not report["sandbox"]["forced"]
    assert sorted(report["sandbox"]["missing"]) == sorted(REMOVED[removals])
    assert _same_parts(report) == _same_parts(linux_report)
    statuses = [question["status"] for question in report["questions"]]
    assert statuses == ["passed", "failed", "not attempted", "timeout", "crashed", "failed"], statuses
    assert "MiB of output" in json.dumps(report["questions"][5])
    children = [line for line in log.read_text(encoding="utf-8").splitlines() if "portable/worker.py" in line]
    assert len(children) >= len(NUMBERS), "the removal must reach every child the kit starts"
    if removals == WINDOWS:  # the kit's Windows-only code ran: binary mode, creation flags, Job Objects, a crash's code
        assert set(used.read_text(encoding="utf-8").split("\n")) >= {
            "msvcrt.setmode",
            "CREATE_NEW_PROCESS_GROUP",
            "AssignProcessToJobObject",
            "TerminateJobObject",
            "crash code 0xc0000409",
        }


def test_solutions_and_plot_on_the_simulated_interpreter(
    simulated: tuple[Path, Path], kit: Path, tmp_path: Path
) -> None:
    python, _ = simulated
    done = _run(python, kit, "check", "3", "--solutions", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["score"] == report["max_score"] == 12 and report["sandbox"]["backend"] == "portable"
    drawn = _run(python, kit, "plot", "3", "--solutions", "--out", str(tmp_path))
    assert drawn.returncode == 0, drawn.stderr
    pictures = list(tmp_path.glob("*.png"))
    assert pictures and all(picture.stat().st_size > 1000 for picture in pictures), drawn.stdout


def test_watch_regrades_a_save_on_the_simulated_interpreter(simulated: tuple[Path, Path], kit: Path) -> None:
    python, _ = simulated
    watched = kit / "exercises" / "q02_scaled_scores.py"
    wrong = watched.read_text(encoding="utf-8")
    process = subprocess.Popen(
        [str(python), "-m", "autograder", "watch", "2"],
        cwd=kit,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if k != "AUTOGRADER_SANDBOX"},
    )
    try:
        seen = _wait_for(process, "Watching question 2", "")
        shutil.copy(ROOT / "solutions" / "q02_scaled_scores.py", watched)
        seen = _wait_for(process, "8 / 8 passed", seen)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
    finally:
        watched.write_text(wrong, encoding="utf-8")
        process.kill()
        process.wait()
    assert "Traceback" not in seen and "Saved q02_scaled_scores.py" in seen


def _wait_for(process: subprocess.Popen, text: str, seen: str, seconds: float = 120) -> str:
    """Read process's output (on a thread: a pipe is read portably that way) until text appears after what was seen; all
    it printed so far."""
    if not hasattr(process, "lines"):
        process.lines = []
        threading.Thread(target=lambda: process.lines.extend(iter(process.stdout.readline, "")), daemon=True).start()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        printed = "".join(process.lines)
        if text in " ".join(printed[len(seen) :].split()):
            return printed
        time.sleep(0.1)
    errors = process.stderr.read() if process.poll() is not None else ""
    pytest.fail(f"watch never printed {text!r}; it printed:\n{''.join(process.lines)}\n{errors[-2000:]}")


LOCK_PROBE = """
import subprocess, sys
from pathlib import Path
from autograder.classroom.portability import Locked, exclusive
path = Path(sys.argv[1])
second = [sys.executable, "-c", "import sys; from pathlib import Path; from autograder.classroom.portability import exclusive, Locked\\n"
          "try:\\n    exclusive(Path(sys.argv[1]))\\nexcept Locked:\\n    sys.exit(3)", str(path)]
held = exclusive(path)
while_held = subprocess.run(second).returncode
held.close()
print(while_held, subprocess.run(second).returncode)
"""  # noqa: E501 - a program's text, written out as it is


@pytest.mark.parametrize("removals", [MACOS, WINDOWS], ids=["macos-like", "windows-like"])
def test_the_class_lock_holds_on_each_platform(removals: tuple[str, ...], tmp_path: Path) -> None:
    python, _ = _simulated_interpreter(tmp_path / "interpreter", removals)
    done = subprocess.run(
        [str(python), "-c", LOCK_PROBE, str(tmp_path / ".grading.lock")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    # refused while another process holds it, taken once it is let go
    assert done.stdout.split() == ["3", "0"], done.stderr


@pytest.fixture(scope="module")
def class_kit(kit: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a kit whose course is questions 1 and 2 at LIMIT s, a class of two: ann's solutions; ben's loop in q1 and
    wrong q2)."""
    import yaml

    root = tmp_path_factory.mktemp("class-kit")
    for name in ("autograder", "reference", "solutions"):
        shutil.copytree(kit / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = yaml.safe_load((kit / "course.yaml").read_text(encoding="utf-8"))
    manifest["questions"] = [question for question in manifest["questions"] if question["number"] in (1, 2)]
    (root / "course.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True), encoding="utf-8")
    students = root / "class"
    for student in ("ann", "ben"):
        (students / student / "exercises").mkdir(parents=True)
        (students / student / "exercises" / "__init__.py").write_text('"""Answers."""\n', encoding="utf-8")
        for name in ("q01_causal_mask.py", "q02_scaled_scores.py"):
            shutil.copy(ROOT / "solutions" / name, students / student / "exercises" / name)
    with open(students / "ben" / "exercises" / "q01_causal_mask.py", "a", encoding="utf-8") as module:
        module.write("\n\ndef causal_mask(*args, **kwargs):\n    while True: pass\n")
    shutil.copy(
        ROOT / "tests" / "corpus" / "wrong" / "q02_scale_by_d.py",
        students / "ben" / "exercises" / "q02_scaled_scores.py",
    )
    return root, students


def _grade_class(python: Path, kit: Path, students: Path, out: Path) -> tuple[str, dict]:
    """(grades.csv, student -> each question's status and score) of `grade` run by python over students."""
    env = {key: value for key, value in os.environ.items() if key != "AUTOGRADER_SANDBOX"} | {"AUTOGRADER_SECRET": ""}
    done = subprocess.run(
        [
            str(python),
            "-m",
            "autograder",
            "grade",
            str(students),
            "--out",
            str(out),
            "--jobs",
            "2",
            # no kernel walls there
            "--allow-weak-isolation",
        ],
        cwd=kit,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    reports = {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in out.glob("*.json")}
    return (out / "grades.csv").read_text(encoding="utf-8"), {
        student: [(q["status"], q["score"], q.get("reason", "")) for q in report["questions"]]
        for student, report in reports.items()
    }


@pytest.fixture(scope="module")
def linux_grades(class_kit: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    """What `grade` writes with the Linux backend (this interpreter) for the class of class_kit."""
    kit, students = class_kit
    return _grade_class(Path(sys.executable), kit, students, tmp_path_factory.mktemp("linux") / "out")


@pytest.mark.parametrize("removals", [MACOS, WINDOWS], ids=["macos-like", "windows-like"])
def test_grade_gives_the_linux_backends_grades(
    removals: tuple[str, ...], class_kit: tuple[Path, Path], linux_grades: tuple[str, dict], tmp_path: Path
) -> None:
    kit, students = class_kit
    python, log = _simulated_interpreter(tmp_path / "interpreter", removals)
    grades, reports = _grade_class(python, kit, students, tmp_path / "out")
    assert "graded (weak isolation)" in grades  # said where seccomp and Landlock are missing, as on a real Mac or PC
    assert grades.replace(" (weak isolation)", "") == linux_grades[0] and reports == linux_grades[1]
    assert [status for status, _score, _reason in reports["ben"]] == ["timeout", "failed"]
    workers = [
        line
        for line in log.read_text(encoding="utf-8").splitlines()
        if "multiprocessing" in line and "spawn_main" in line
    ]
    assert len(workers) == 2, "each worker is a spawned interpreter"


def test_torchs_own_messages_are_not_the_students_output(kit: Path, tmp_path: Path) -> None:
    """torch's lazy detection of the CPU writes to standard error where the kernel refuses it
    (tests/simulate/lazy_cpuinfo.py): the portable child runs it before it captures the student's output, so the
    line goes to the sandbox's log."""
    python, _ = _simulated_interpreter(tmp_path / "interpreter", (*MACOS, "lazy_cpuinfo"))
    done = _run(python, kit, "check", "1", "2", "--solutions", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["score"] == report["max_score"] and report["sandbox"]["backend"] == "portable"
    assert [question.get("output", "") for question in report["questions"]] == ["", ""]
