"""Hostile students: every attack in tests/attacks/ fails with a one-line reason, in the path where it matters, and
costs only the attacker's question; the neighbour keeps its score.

Each file in tests/attacks/ is one whole student module (question 1) whose functions answer right once the attack has
worked; its header says what it does, what the grader must answer (`match` is a regular expression) and where it is
tried (`# path:`): `sandbox` (all of them in one sandbox, with a neighbouring question graded beside), `grade-dir`
(students of one class folder graded by `grade DIR` between two honest classmates, twice: the same grades.csv both
times), `pty` (`check` started from a terminal), `hidden` (a grader started on a folder, which it passes as hidden,
as `--nbgrader` passes the course folder and Gradescope its own), `user` (`grade DIR` as under `grade-dir`, run by an
ordinary user the test creates: its children share that user, where under root each has a user of its own;
tests/test_ordinary_user.py), `user-nbgrader`, `user-autograde`, `user-scheduler` and `user-gradescope` (the same
user grades a class of two, the attacker and an honest classmate after it, with `grade --nbgrader`, nbgrader's own
`nbgrader autograde`, `grade --scheduler` on a local Dask cluster, and the Gradescope zip's run_autograder: two runs at
once), `cluster` (tests/test_cluster.py: a class graded on a Dask LocalCluster, whose scheduler listens on loopback),
`gradescope` (the Gradescope zip's run_autograder run by the tests' own user, root as on Gradescope, for each attacker
and an honest classmate at once). A header may name several paths. The kernel closes these (seccomp, Landlock, the
child's own user under root): docs/instructors.md says what each path guarantees."""
import csv
import dataclasses
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import threading
from pathlib import Path

import pytest
import yaml
from conftest import Kept

from autograder.course.manifest import Course, load_course
from autograder.engine.run import grade_many
from autograder.engine.stand_in import stand_in_package
from autograder.sandbox.base import where_it_ran

ROOT = Path(__file__).resolve().parent.parent
ATTACKS = ROOT / "tests" / "attacks"
MARKERS = ("attack-process-tree-7f3a",)  # in the command line of the processes the attacks try to leave behind
EXEC_MARKER = Path("/tmp/attack-exec-program-was-here")
# at the top of the kit while the sandbox attacks run (made when absent): cross_read_gradescope_zip reads it  # the file
# kernel_exec_program's program would write
BAIT_ZIP = ROOT / "autograder.zip"
# seconds: question 1's limit for the sandbox attacks that expect a timeout (a loop: the limit is what it costs)
LOOP_LIMIT = 1.0
ENV = {
    **os.environ,
    "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    "PYTHONWARNINGS": "ignore",
}


@dataclasses.dataclass(frozen=True)
class Attack:
    """One file of tests/attacks/ and what the grader must say about it."""

    name: str
    module: str
    statuses: tuple[str, ...]
    match: str
    paths: tuple[str, ...]
    what: str

    @property
    def question(self) -> int:
        """The number of the question whose module the attack replaces."""
        return int(self.module[1:3])

    @property
    def neighbour(self) -> int:
        """A question graded alongside, which must keep full marks."""
        return 2 if self.question == 1 else 1


def corpus() -> list[Attack]:
    """Every attack with its expectation, read from its header lines."""
    attacks = []
    for file in sorted(ATTACKS.glob("*.py")):
        text = file.read_text(encoding="utf-8")
        what = re.search(r"^# attack: (.*)$", text, re.M).group(1)
        expect = re.search(r"^# expect: module=(\S+) status=(\S+) match=(.*)$", text, re.M)
        paths = tuple(re.search(r"^# path: (.+)$", text, re.M).group(1).split())
        attacks.append(
            Attack(file.stem, expect.group(1), tuple(expect.group(2).split("|")), expect.group(3).strip(), paths, what)
        )
    return attacks


ATTACKS_BY_PATH = {
    path: [a for a in corpus() if path in a.paths]
    for path in (
        "sandbox",
        "grade-dir",
        "pty",
        "hidden",
        "cluster",
        "gradescope",
        "user",
        "user-nbgrader",
        "user-autograde",
        "user-scheduler",
        "user-gradescope",
    )
}


def seccomp_known() -> bool:
    """True on the architectures whose system calls the sandbox's seccomp filter knows."""
    import platform

    return platform.machine() in ("x86_64", "aarch64")


pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not seccomp_known(),
    reason="the Linux backend's kernel walls (seccomp) are what these attacks meet",
)


def small_course(numbers: tuple[int, ...] = (1, 2, 3), limits: dict[int, float] | None = None) -> Course:
    """The course cut to questions 1 to 3 (or numbers), the questions limits numbers limited to its seconds."""
    course = load_course(ROOT)
    limits = limits or {}
    questions = tuple(
        dataclasses.replace(q, time_limit=limits[q.number]) if q.number in limits else q
        for q in course.questions
        if q.number in numbers
    )
    return dataclasses.replace(course, questions=questions)


def package_with(folder: Path, attack: Attack | None) -> Path:
    """A copy of solutions/ in folder, with the attack's module replaced by its file."""
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    if attack is not None:
        shutil.copy(ATTACKS / f"{attack.name}.py", folder / f"{attack.module}.py")
    return folder


def living(markers: tuple[str, ...]) -> list[int]:
    """Pids of running processes whose command line carries one of the markers (killed here, so that a failure leaves
    none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode("utf-8", "replace")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z" and any(marker in cmdline for marker in markers):
                found.append(int(entry.name))
    for pid in found:
        os.kill(pid, signal.SIGKILL)
    return found


def sysv_objects() -> set[tuple[str, str]]:
    """(kind, id) of every System V shared-memory segment, semaphore set and message queue of the machine."""
    found = set()
    for kind in ("shm", "sem", "msg"):
        lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        found.update((kind, line.split()[1]) for line in lines if line.strip())
    return found


def assert_fails_alone(attack: Attack, questions: list[dict]) -> None:
    """The attacked question lost its points with a one-line reason that says why (a time limit or a crash costs the
    attacking function's checks, and the question's other functions go on in a fresh child: only they may keep theirs);
    its neighbour kept full marks."""
    by_number = {q["number"]: q for q in questions}
    attacked, neighbour = by_number[attack.question], by_number[attack.neighbour]
    messages = [
        m for m in [attacked.get("reason", "")] + [t.get("message", "") for t in attacked.get("tests", [])] if m
    ]
    assert attacked["status"] in attack.statuses, (attack.what, attacked["status"], messages)
    kept = attacked["score"] if attacked["status"] in ("timeout", "crashed") else 0
    assert attacked["score"] == kept < attacked["max_score"], (
        attack.what,
        attacked["status"],
        attacked["score"],
        messages,
    )
    assert any(re.search(attack.match, m) for m in messages), (attack.match, messages)
    assert all("\n" not in m and "Traceback" not in m for m in messages), messages
    assert neighbour["status"] == "passed" and neighbour["score"] == neighbour["max_score"], neighbour


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory: pytest.TempPathFactory, session_sandbox: object) -> dict:
    """Every sandbox attack graded in the session's sandbox (those that expect a timeout with their question limited
    to LOOP_LIMIT), a TCP server listening on loopback meanwhile; what reached it."""
    folder = tmp_path_factory.mktemp("attacks")
    EXEC_MARKER.unlink(missing_ok=True)
    bait = not BAIT_ZIP.exists()
    if bait:
        BAIT_ZIP.write_bytes(b"PK stands in for a Gradescope zip built in the kit's folder")
    ipc = sysv_objects()
    try:
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen()
            server.setblocking(False)
            attacks = ATTACKS_BY_PATH["sandbox"]
            # q8's attacks too
            numbers = tuple(sorted({number for a in attacks for number in (a.question, a.neighbour)}))
            reports = {}
            for looping in (False, True):
                group = [a for a in attacks if (a.statuses == ("timeout",)) == looping]
                course = small_course(numbers, {a.question: LOOP_LIMIT for a in group} if looping else None)
                done = grade_many(
                    course,
                    [(package_with(folder / a.name, a), sorted((a.question, a.neighbour))) for a in group],
                    sandbox=Kept(session_sandbox),
                    hidden=(folder,),  # every attacker's classmates, a group of one too
                )
                reports.update({a.name: report.to_dict() for a, report in zip(group, done)})
            try:
                reached = [server.accept()[1]]
            except BlockingIOError:
                reached = []
    finally:  # the bait never outlives the run, even when grading raises
        if bait:
            BAIT_ZIP.unlink()
    return {
        "reports": reports,
        "reached": reached,
        "folder": folder,
        "ipc": sysv_objects() - ipc,
    }


@pytest.mark.parametrize("attack", ATTACKS_BY_PATH["sandbox"], ids=lambda a: a.name)
def test_attack_fails_in_the_sandbox(sandboxed: dict, attack: Attack):
    assert_fails_alone(attack, sandboxed["reports"][attack.name]["questions"])


def test_sandbox_attacks_leave_nothing_behind(sandboxed: dict):
    assert not sandboxed["reached"], "a child connected to the loopback server"
    assert not EXEC_MARKER.exists(), "a child ran a program"
    assert not living(MARKERS)
    assert not sandboxed["ipc"], "System V IPC objects outlived their question"


def test_the_grader_never_waits_on_a_file_a_child_replaced(tmp_path: Path):
    """A FIFO (no writer ever comes) or a link in place of stack.txt: where_it_ran reads nothing and returns at once."""
    package = package_with(tmp_path / "exercises", None)
    for name, make in (("fifo", os.mkfifo), ("link", lambda path: os.symlink(package / "q01_causal_mask.py", path))):
        workdir = tmp_path / name
        workdir.mkdir()
        make(workdir / "stack.txt")
        found = []
        reader = threading.Thread(target=lambda: found.append(where_it_ran(None, workdir, package)), daemon=True)  # noqa: B023
        reader.start()
        reader.join(10)
        assert found == [""], f"where_it_ran {'blocked' if reader.is_alive() else 'read'} a {name}"


READ_ONE_FILE = '''
SECRET = open({path!r}).read()  # what the module must not read: importing it fails with PermissionError when the walls hold
'''  # noqa: E501 - a program's text, written out as it is


@pytest.mark.usefixtures("shared_sandbox")  # graded in the session's sandbox
def test_private_files_outside_hidden_folders_stay_private(tmp_path: Path):
    """A root-only file outside every hidden folder (a grader's scratch copy in /tmp, mode 700: readable to a child
    that keeps root's right to read, as where Python lives under /root) and a classmate's stand-in copy made by
    another grader of the class (grade DIR --jobs 2) in its sandbox's folder: neither is readable, by Landlock's
    allowlist."""
    scratch = Path(tempfile.mkdtemp(prefix="root-only-"))  # 0700, outside the class folder (which grade_many hides)
    secret = scratch / "root-only.txt"
    secret.write_text("ROOT-ONLY-7731")
    secret.chmod(0o600)
    # 0700, in the temporary folder, as a sandbox's folder is
    other_sandbox = Path(tempfile.mkdtemp(prefix="other-sandbox-"))
    try:
        course = small_course((1, 2))
        classmate = package_with(tmp_path / "classmate" / "exercises", None)
        copy = stand_in_package(classmate, course.questions[0], "not done yet", other_sandbox)
        submissions = []
        for name, target in (("root-only", secret), ("stand-in", copy / "q02_scaled_scores.py")):
            package = package_with(tmp_path / name / "exercises", None)
            with (package / "q01_causal_mask.py").open("a") as module:
                module.write(READ_ONE_FILE.format(path=str(target)))
            submissions.append((package, [1, 2]))
        reports = grade_many(course, submissions)
    finally:
        shutil.rmtree(other_sandbox)
        shutil.rmtree(scratch)
    for name, report in zip(("root-only", "stand-in"), reports):
        attack = Attack(name, "q01_causal_mask", ("error",), "Permission denied", (), f"reads the {name} file")
        assert_fails_alone(attack, report.to_dict()["questions"])


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kit folder whose course is questions 1 and 2 of the real one."""
    root = tmp_path_factory.mktemp("kit")
    manifest = yaml.safe_load((ROOT / "course.yaml").read_text())
    manifest["questions"] = [q for q in manifest["questions"] if q["number"] in (1, 2)]
    (root / "course.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True))
    return root


def grade_class_twice(
    attacks: list[Attack], kit: Path, folder: Path, out: Path, run: object = subprocess.run, env: dict | None = None
) -> None:
    """grade DIR (run(command, ...) starts it) on a class of honest students before and after the attackers: each attack
    fails alone and the honest ones keep full marks, twice (the second run with --force), with the same grades.csv."""
    students = {"ann": None, **{f"m-{a.name}": a for a in attacks}, "zoe": None}  # graded in this order by one worker
    for student, attack in students.items():
        package_with(folder / student / "exercises", attack)
    grades = []
    for extra in ((), ("--force",)):
        done = run(
            [
                sys.executable,
                "-m",
                "autograder",
                "grade",
                str(folder),
                "--out",
                str(out),
                "--jobs",
                "1",
                "--quiet",
                *extra,
            ],
            cwd=kit,
            env=env or ENV,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert not living(MARKERS), "processes outlived their question"
        reports = {s: json.loads((out / f"{s}.json").read_text()) for s in students}
        for student, attack in students.items():
            if attack is None:
                assert reports[student]["score"] == reports[student]["max_score"], (
                    student,
                    reports[student]["questions"],
                )
            else:
                assert_fails_alone(attack, reports[student]["questions"])
        grades.append((out / "grades.csv").read_text())
    assert grades[0] == grades[1]
    assert len(list(csv.reader(grades[0].splitlines()))) == len(students) + 1


def test_attacks_in_a_class_cost_only_the_attacker(kit: Path, tmp_path: Path):
    """grade DIR: honest students before and after the attackers keep full marks, twice, with the same grades.csv."""
    grade_class_twice(ATTACKS_BY_PATH["grade-dir"], kit, tmp_path / "class", tmp_path / "out")


def test_attacks_in_the_gradescope_zip_cost_only_the_attacker(tmp_path: Path):
    """The Gradescope zip (built outside the kit, as the docs say) run by the tests' own user (root, as on Gradescope
    and in CI) for each attacker of the gradescope path and an honest classmate, all at once, each in an /autograder
    folder of its own: each attack costs only its question, the classmate keeps full marks, no process is left."""
    from test_gradescope import autograder_root
    from test_ordinary_user import check_class, gradescope_report

    kit = tmp_path / "kit"  # a whole kit of questions 1 and 2, as the zip's builder asks
    for name in ("autograder", "reference", "solutions"):
        shutil.copytree(ROOT / name, kit / name, ignore=shutil.ignore_patterns("__pycache__", ".course-secret"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, kit / name)
    manifest = yaml.safe_load((ROOT / "course.yaml").read_text())
    manifest["questions"] = [q for q in manifest["questions"] if q["number"] in (1, 2)]
    (kit / "course.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True))
    archive = tmp_path / "zip" / "autograder.zip"
    archive.parent.mkdir()
    env = {**ENV, "PYTHONPATH": str(kit) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    built = subprocess.run(
        [sys.executable, "-m", "autograder", "gradescope", str(archive)],
        cwd=kit,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    students = {**{f"m-{attack.name}": attack for attack in ATTACKS_BY_PATH["gradescope"]}, "zoe": None}
    roots = {}
    for student, attack in students.items():
        roots[student] = autograder_root(tmp_path / student, archive)
        package_with(roots[student] / "submission" / "exercises", attack)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    runs = {
        student: subprocess.Popen(
            [str(root / "run_autograder")],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PATH": path, "AUTOGRADER_ROOT": str(root)},
        )
        for student, root in roots.items()
    }
    reports = {}
    for student, process in runs.items():
        output, _ = process.communicate(timeout=600)
        assert process.returncode == 0, output[-2000:]
        reports[student] = gradescope_report(json.loads((roots[student] / "results" / "results.json").read_text()))
    check_class(students, reports)
    assert not living(MARKERS), "processes outlived their question"


@pytest.mark.parametrize("attack", ATTACKS_BY_PATH["pty"], ids=lambda a: a.name)
def test_attack_from_a_terminal(attack: Attack, tmp_path: Path):
    """check started from a terminal (its controlling one): nothing is typed into it."""
    for name in ("autograder", "reference", "solutions"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "course.yaml", tmp_path / "course.yaml")
    package_with(tmp_path / "exercises", attack)
    master, terminal = os.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "autograder", "check", "1", "2", "--json"],
            cwd=tmp_path,
            env=ENV,
            stdin=terminal,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.set_blocking(terminal, False)
        try:
            typed = os.read(terminal, 1024)
        except BlockingIOError:
            typed = b""
    finally:
        os.close(master)
        os.close(terminal)
    assert not typed, typed
    assert_fails_alone(attack, json.loads(done.stdout)["questions"])


HIDDEN_RUN = """
import json, sys
from pathlib import Path
from autograder.course.manifest import load_course
from autograder.engine.run import grade_many
import dataclasses
course = load_course(Path.cwd())  # the kit, by the folder it runs in: its command line names only the course and the package
course = dataclasses.replace(course, questions=tuple(q for q in course.questions if q.number in (1, 2)))
folder, package = Path(sys.argv[1]), Path(sys.argv[2])
print(json.dumps(grade_many(course, [(package, [1, 2])], hidden=(folder,))[0].to_dict()))
"""  # noqa: E501 - a program's text, written out as it is


@pytest.mark.parametrize("attack", ATTACKS_BY_PATH["hidden"], ids=lambda a: a.name)
def test_attack_on_a_folder_the_grader_was_given(attack: Attack, tmp_path: Path):
    """A grader given a folder (an nbgrader course: its gradebook) hides it: the attack cannot read it."""
    course_folder = tmp_path / "course"
    course_folder.mkdir()
    (course_folder / "gradebook.db").write_text("every student's grades")
    package = package_with(tmp_path / "exercises", attack)
    done = subprocess.run(
        [sys.executable, "-c", HIDDEN_RUN, str(course_folder), str(package)],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert_fails_alone(attack, json.loads(done.stdout.strip().splitlines()[-1])["questions"])
