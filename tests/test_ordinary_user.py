"""Class grading by an ordinary user (made by these tests with useradd), on each path a class is graded by: `grade DIR`,
`grade --nbgrader` (real nbgrader), nbgrader's own `nbgrader autograde`, `grade --scheduler` (a local Dask cluster) and
the Gradescope zip's run_autograder. The children share that user (under root each has a user of its own), so the
attacks of tests/attacks/ that name a path (`user`, `user-nbgrader`, `user-autograde`, `user-scheduler`,
`user-gradescope`) each fail alone there, an honest classmate graded after the attacker keeps full marks, and afterwards
no process of that user is left, and nothing it wrote is left in the temporary folder, /dev/shm or the kit's folder but
the outputs. Under `nbgrader autograde` too: the course's config keeps every student's cell out of the kernel
(autograder/nbgrader/autograde.py), and the test cells grade it in the sandbox.

The user needs a Python it may run, with torch, nbgrader, Dask and the kit: this interpreter, or KIT_TEST_USER_PYTHON
(.ci/run sets it where this interpreter lives under /root). Without root, useradd or such a Python, these tests skip
with the reason; with KIT_TEST_USER_PYTHON set they fail instead.
"""
import dataclasses
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest
import yaml

from test_attacks import (
    ATTACKS,
    ATTACKS_BY_PATH,
    ROOT,
    assert_fails_alone,
    grade_class_twice,
    package_with,
    seccomp_known,
)

# the ordinary user who grades, made by the tests with useradd and removed after: a name of this run's own, so that
# two runs at once never share a user (each kills what its user left running)
TEST_USER = f"kit-grader-{secrets.token_hex(4)}"
ASSIGNMENT = "attention"
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not seccomp_known(),
    reason="the Linux backend's kernel walls (seccomp) are what these attacks meet",
)


@pytest.fixture(scope="module")
def ordinary_user() -> Iterator[tuple[int, int, dict]]:
    """(uid, gid, environment) of an ordinary user made for these tests with useradd (removed afterwards), whose
    Python runs this interpreter (or KIT_TEST_USER_PYTHON, as .ci/run sets it) with torch and the kit. Skipped where
    that cannot be, unless KIT_TEST_USER_PYTHON is set: then the run was asked for, and not getting it fails."""
    import pwd

    python = os.environ.get("KIT_TEST_USER_PYTHON")
    cannot = pytest.fail if python else pytest.skip
    if os.geteuid() != 0 or not shutil.which("useradd") or not shutil.which("userdel"):
        cannot("making an ordinary user to grade as needs root and useradd")
    made = False
    try:
        pwd.getpwnam(TEST_USER)
    except KeyError:
        done = subprocess.run(
            ["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", TEST_USER],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            cannot(f"useradd could not make {TEST_USER}: {done.stderr.strip()}")
        made = True
    entry = pwd.getpwnam(TEST_USER)
    python = python or sys.executable
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/nonexistent",
        "PYTHONWARNINGS": "ignore",
        "KIT_TEST_PYTHON": python,
    }
    try:
        try:
            version = subprocess.run(
                [python, "-c", "import sys; print(sys.version_info[:2])"],
                user=entry.pw_uid,
                group=entry.pw_gid,
                extra_groups=[],
                env=env,
                cwd="/",
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            # this interpreter's packages (torch, nbgrader, dask) serve the same Python 3.x only: another has its own
            same = version.stdout.strip() == str(sys.version_info[:2])
            site_packages = [p for p in sys.path if same and p.endswith("site-packages") and os.path.isdir(p)]
            env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *site_packages])
            probe = subprocess.run(
                [python, "-c", "import torch, autograder, nbgrader, distributed"],
                user=entry.pw_uid,
                group=entry.pw_gid,
                extra_groups=[],
                env=env,
                cwd="/",
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        except OSError as error:  # the interpreter itself cannot be run by that user
            probe = subprocess.CompletedProcess([python], 126, "", str(error))
        if probe.returncode != 0:
            cannot(
                f"{TEST_USER} cannot run {python} with torch, nbgrader, Dask and the kit (an interpreter under a "
                f"folder only root may enter, such as /root/.pyenv: set KIT_TEST_USER_PYTHON to one it can run, as "
                f".ci/run does): {probe.stderr.strip()[-300:]}"
            )
        yield entry.pw_uid, entry.pw_gid, env
    finally:
        if made:
            subprocess.run(["userdel", TEST_USER], capture_output=True, check=False)


def processes_of(uid: int) -> dict[int, str]:
    """The living processes (zombies aside) that uid owns, with their command lines."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and entry.stat().st_uid == uid
                and (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
            ):
                found[int(entry.name)] = (
                    (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")[:200]
                )
        except OSError:
            continue
    return found


def owned_in_shared_folders(uid: int) -> set[str]:
    """What uid owns at the top of the temporary folder, /var/tmp and /dev/shm (where a run could leave files)."""
    found = set()
    for folder in {Path(tempfile.gettempdir()), Path("/var/tmp"), Path("/dev/shm")}:
        if folder.is_dir():
            found.update(str(entry) for entry in folder.iterdir() if entry.lstat().st_uid == uid)
    return found


def kit_files(kit: Path) -> set[str]:
    """The kit's files, the interpreter's bytecode caches and the course secret that grading makes aside."""
    return {
        str(path.relative_to(kit))
        for path in kit.rglob("*")
        if "__pycache__" not in path.parts and path.name != ".course-secret"
    }


@dataclasses.dataclass
class UserKit:
    """A kit folder of questions 1 and 2 owned by the ordinary user in a folder of its own (top), and how to run as
    it."""

    top: Path
    kit: Path
    uid: int
    gid: int
    env: dict
    shared_before: set[str]
    kits_before: dict[Path, set[str]]

    def command(self, command: list[str]) -> list[str]:
        """command, with this interpreter in front replaced by the user's."""
        return [self.env["KIT_TEST_PYTHON"], *command[1:]] if command[0] == sys.executable else command

    def run(self, command: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        """command run to its end as the user (in the user's environment unless env is given)."""
        kwargs.setdefault("env", self.env)
        return subprocess.run(self.command(command), user=self.uid, group=self.gid, extra_groups=[], **kwargs)

    def popen(self, command: list[str], **kwargs: object) -> subprocess.Popen:
        """command started as the user."""
        kwargs.setdefault("env", self.env)
        return subprocess.Popen(self.command(command), user=self.uid, group=self.gid, extra_groups=[], **kwargs)

    def give(self, path: Path) -> None:
        """path and all it holds made the user's."""
        for folder, dirs, files in os.walk(path):
            for name in [folder, *(os.path.join(folder, entry) for entry in dirs + files)]:
                os.lchown(name, self.uid, self.gid)

    def watch_kit(self, kit: Path) -> None:
        """kit (another copy, such as the Gradescope zip's) checked for left files too."""
        self.kits_before[kit] = kit_files(kit)

    def assert_nothing_left(self) -> None:
        """No process of the user lives on (a few seconds' grace), nothing of the user's is new in the shared folders,
        and no kit holds a file it did not hold before."""
        deadline = time.monotonic() + 10
        while processes_of(self.uid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not processes_of(self.uid), f"processes of the grading user outlived the run: {processes_of(self.uid)}"
        left = owned_in_shared_folders(self.uid) - self.shared_before
        assert not left, f"the run left files in the shared temporary folders: {sorted(left)}"
        for kit, before in self.kits_before.items():
            assert not kit_files(kit) - before, (
                f"the run wrote into the kit's folder {kit}: {sorted(kit_files(kit) - before)}"
            )


@pytest.fixture
def user_kit(ordinary_user: tuple[int, int, dict]) -> Iterator[UserKit]:
    """A kit of questions 1 and 2 in a folder of the temporary folder (not pytest's tmp_path: its folders are root's
    alone), owned by the ordinary user with a home folder beside it; what is left of the user's processes is killed
    after."""
    uid, gid, env = ordinary_user
    top = Path(tempfile.mkdtemp(prefix="kit-user-"))
    try:
        top.chmod(0o755)
        kit = top / "kit"  # the instructor's own copy of the kit: grading writes the course secret into it
        for name in ("autograder", "reference", "solutions"):
            shutil.copytree(ROOT / name, kit / name, ignore=shutil.ignore_patterns("__pycache__", ".course-secret"))
        for name in ("pyproject.toml", "README.md"):  # a whole kit, as the Gradescope zip's builder asks
            shutil.copy(ROOT / name, kit / name)
        manifest = yaml.safe_load((ROOT / "course.yaml").read_text())
        manifest["questions"] = [q for q in manifest["questions"] if q["number"] in (1, 2)]
        (kit / "course.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True))
        (top / "home").mkdir()
        (top / "out").mkdir()
        # nbgrader runs `alembic` from PATH: here by the user's Python (a venv's own script may start root's)
        (top / "bin").mkdir()
        (top / "bin" / "alembic").write_text(f'#!/bin/sh\nexec "{env["KIT_TEST_PYTHON"]}" -m alembic "$@"\n')
        (top / "bin" / "alembic").chmod(0o755)
        env = {
            **env,
            "HOME": str(top / "home"),
            "PYTHONPATH": env["PYTHONPATH"].replace(str(ROOT), str(kit), 1),
            "PATH": f"{top / 'bin'}{os.pathsep}{env['PATH']}",
        }
        user = UserKit(top, kit, uid, gid, env, owned_in_shared_folders(uid), {})
        user.give(kit)
        user.give(top / "home")
        user.give(top / "out")
        user.watch_kit(kit)
        yield user
    finally:
        for pid in processes_of(uid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(top)


def test_grade_dir_by_an_ordinary_user(user_kit: UserKit):
    """grade DIR run by an ordinary user, whose children share its user: each attack of the user path (on the zygote
    or the grader: their limits, priority, environment, a signal; on the kit's files, OUT, DIR; on the disk, memory
    and /dev/shm) costs only the attacker, twice, the classmates around it keep full marks, and nothing is left
    behind."""
    grade_class_twice(
        ATTACKS_BY_PATH["user"], user_kit.kit, user_kit.top / "class", user_kit.top / "out", user_kit.run, user_kit.env
    )
    user_kit.assert_nothing_left()


def class_of_two(path: str) -> dict[str, object]:
    """The attackers of path, each a student of its own, then an honest classmate graded after them (names sort so)."""
    attacks = ATTACKS_BY_PATH[path]
    assert attacks, f"no attack names the {path} path"
    return {**{f"m-{attack.name}": attack for attack in attacks}, "zoe": None}


def check_class(students: dict[str, object], reports: dict[str, dict]) -> None:
    """Each attack failed alone; each honest student has full marks."""
    for student, attack in students.items():
        if attack is None:
            assert reports[student]["score"] == reports[student]["max_score"], (student, reports[student]["questions"])
        else:
            assert_fails_alone(attack, reports[student]["questions"])


def nbgrader_course(user_kit: UserKit, students: dict[str, object]) -> Path:
    """A course made by the user as docs/instructors.md says (`python -m autograder nbgrader`, then nbgrader's own
    generate_assignment), with a notebook submitted by each student: the solutions' code in every answer cell, the
    attack's file in its question's; the course folder."""
    import nbformat

    from autograder.course.manifest import load_course
    from autograder.nbgrader.course import drop_relative_imports
    from autograder.nbgrader.package import answer_id, marker

    course = load_course(user_kit.kit)
    course_dir = user_kit.top / "course"
    course_dir.mkdir()
    user_kit.give(course_dir)
    for command, cwd in (
        ([sys.executable, "-m", "autograder", "nbgrader", str(course_dir), "--assignment", ASSIGNMENT], user_kit.kit),
        ([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT], course_dir),
    ):
        done = user_kit.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    release = nbformat.read(str(course_dir / "release" / ASSIGNMENT / "attention.ipynb"), as_version=4)
    solution_marks = re.compile(r"^\s*### (BEGIN|END) SOLUTION.*\n", re.MULTILINE)
    for student, attack in students.items():
        notebook = nbformat.from_dict(json.loads(json.dumps(release)))
        for cell in notebook.cells:
            for question in course.questions:
                if cell.metadata.get("nbgrader", {}).get("grade_id") == answer_id(question.number):
                    attacked = attack is not None and question.number == attack.question
                    file = (
                        ATTACKS / f"{attack.name}.py"
                        if attacked
                        else user_kit.kit / "solutions" / Path(question.file).name
                    )
                    source = solution_marks.sub("", file.read_text(encoding="utf-8"))
                    cell.source = marker(question) + "\n" + drop_relative_imports(source)
        folder = course_dir / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(notebook, str(folder / "attention.ipynb"))
        (folder / "timestamp.txt").write_text("2026-11-20 10:00:00.000000 UTC")
    user_kit.give(course_dir / "submitted")
    return course_dir


def test_grade_nbgrader_by_an_ordinary_user(user_kit: UserKit):
    """grade --nbgrader on a course made by nbgrader itself (generate_assignment), run by the ordinary user: the
    attacker's notebook costs only its question, the classmate after it keeps full marks, nothing is left."""
    students = class_of_two("user-nbgrader")
    course_dir = nbgrader_course(user_kit, students)
    done = user_kit.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            "--nbgrader",
            str(course_dir),
            "--assignment",
            ASSIGNMENT,
            "--jobs",
            "1",
            "--quiet",
        ],
        cwd=user_kit.kit,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    reports = {s: json.loads((course_dir / "reports" / ASSIGNMENT / f"{s}.json").read_text()) for s in students}
    check_class(students, reports)
    user_kit.assert_nothing_left()


@pytest.mark.parametrize("path", ["honest", "user-autograde"])
def test_nbgrader_autograde_by_an_ordinary_user(user_kit: UserKit, path: str):
    """nbgrader's own `nbgrader autograde ASSIGNMENT --force` (docs/instructors.md, step 5b), run by the ordinary user
    on a course the kit's nbgrader support made: each notebook runs in a Jupyter kernel of that user, whose test cells
    grade in the kit's sandbox (a grading process that finds torch where the kernel found it). Honest students keep
    full marks in nbgrader's gradebook; with an attacker graded first, it gets no point for the attacked question and
    the classmate after it keeps full marks, as its answer cell's code never runs in the kernel; nothing is left."""
    from nbgrader.api import Gradebook

    from autograder.course.manifest import load_course
    from autograder.nbgrader.package import graded_id

    students = {"ann": None, "zoe": None} if path == "honest" else class_of_two(path)
    course_dir = nbgrader_course(user_kit, students)
    done = user_kit.run(
        [sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--force"],
        cwd=course_dir,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    said = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, said
    course = load_course(user_kit.kit)
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gradebook:
        scores = {
            student: {
                q.number: gradebook.find_grade(graded_id(q.number), "attention", ASSIGNMENT, student).score
                for q in course.questions
            }
            for student in students
        }
    for student, attack in students.items():
        expected = {q.number: 0.0 if attack and q.number == attack.question else q.points for q in course.questions}
        assert scores[student] == expected, (student, scores, said)
    user_kit.assert_nothing_left()


CLUSTER = """
import sys
from distributed import LocalCluster
with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                  local_directory=sys.argv[1]) as cluster:
    print(cluster.scheduler_address, flush=True)
    sys.stdin.read()  # until the test closes it
"""


def test_grade_scheduler_by_an_ordinary_user(user_kit: UserKit):
    """grade --scheduler on a local Dask cluster (a scheduler and one worker on loopback), all run by the ordinary
    user: the attacker costs only its question, the classmate the same worker grades after it keeps full marks, and
    once the cluster is closed nothing of it or of its sandbox is left."""
    students = class_of_two("user-scheduler")
    for student, attack in students.items():
        package_with(user_kit.top / "class" / student / "exercises", attack)
    scratch = user_kit.top / "dask"
    scratch.mkdir()
    user_kit.give(scratch)
    cluster = user_kit.popen(
        [sys.executable, "-c", CLUSTER, str(scratch)],
        cwd=user_kit.kit,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        # Dask's own locks: not the grader's
        env={**user_kit.env, "DASK_TEMPORARY_DIRECTORY": str(scratch)},
    )
    try:
        address = cluster.stdout.readline().strip()
        assert address.startswith("tcp://127.0.0.1:"), address
        done = user_kit.run(
            [
                sys.executable,
                "-m",
                "autograder",
                "grade",
                str(user_kit.top / "class"),
                "--out",
                str(user_kit.top / "out"),
                "--scheduler",
                address,
                "--quiet",
            ],
            cwd=user_kit.kit,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    finally:
        cluster.stdin.close()
        cluster.wait(timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    check_class(students, {s: json.loads((user_kit.top / "out" / f"{s}.json").read_text()) for s in students})
    user_kit.assert_nothing_left()


def gradescope_report(results: dict) -> dict:
    """results.json read back as the kit's report: per question its score, status and messages (the checks' outputs)."""
    questions: dict[int, dict] = {}
    for test in results["tests"]:
        number = int(test["number"].split(".")[0])
        question = questions.setdefault(number, {"number": number, "score": 0.0, "max_score": 0.0, "tests": []})
        question["score"] += test["score"]
        question["max_score"] += test["max_score"]
        question["tests"].append(
            {"message": test.get("output", "").strip().splitlines()[0] if test.get("output", "").strip() else ""}
        )
    for question in questions.values():
        question["status"] = "passed" if question["score"] == question["max_score"] else "error"
    return {
        "score": sum(q["score"] for q in questions.values()),
        "max_score": sum(q["max_score"] for q in questions.values()),
        "questions": list(questions.values()),
    }


def test_gradescope_run_by_an_ordinary_user(user_kit: UserKit):
    """The Gradescope zip (built outside the kit, as the docs say) run by the ordinary user for the attacker and an
    honest classmate at once, each in a /autograder folder of its own: the attack costs only its question, the
    classmate keeps full marks, and nothing is left."""
    from test_gradescope import autograder_root

    archive = user_kit.top / "zip" / "autograder.zip"
    archive.parent.mkdir()
    user_kit.give(archive.parent)
    built = user_kit.run(
        [sys.executable, "-m", "autograder", "gradescope", str(archive)],
        cwd=user_kit.kit,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    students = class_of_two("user-gradescope")
    roots = {}
    for student, attack in students.items():
        roots[student] = autograder_root(user_kit.top / student, archive)
        package_with(roots[student] / "submission" / "exercises", attack)
        user_kit.give(roots[student])
        user_kit.watch_kit(roots[student] / "source" / "kit")
    site_packages = os.pathsep.join(p for p in user_kit.env["PYTHONPATH"].split(os.pathsep) if p != str(user_kit.kit))
    runs = {
        student: user_kit.popen(
            [str(root / "run_autograder")],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={
                **user_kit.env,
                "PYTHONPATH": site_packages,
                "AUTOGRADER_ROOT": str(root),
                "AUTOGRADER_PYTHON": user_kit.env["KIT_TEST_PYTHON"],
            },
        )
        for student, root in roots.items()
    }
    reports = {}
    for student, process in runs.items():
        output, _ = process.communicate(timeout=600)
        assert process.returncode == 0, output[-2000:]
        reports[student] = gradescope_report(json.loads((roots[student] / "results" / "results.json").read_text()))
    check_class(students, reports)
    user_kit.assert_nothing_left()
