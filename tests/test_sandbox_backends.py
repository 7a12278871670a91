"""The sandbox's two backends behind one interface: the choice by probes, the words when the sandbox cannot start,
where a stopped child was, and the same verdicts from both on the hostile submissions that matter most."""
import errno
import faulthandler
import os
import resource
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import need_linux_pieces

from autograder.course.manifest import load_course
from autograder.engine.run import grade
from autograder.sandbox import FORCE_VARIABLE, Sandbox, base, choose, start_sandbox
from autograder.sandbox.base import CRASHED, TIMEOUT, ChildStopped, died, where_it_ran
from autograder.sandbox.limits import CHILD_FILES
from autograder.user_folder import private_folder

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ("linux", "portable")


def test_every_linux_piece_chooses_the_linux_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    # skipped on a machine that lacks one, unless KIT_EXPECT_LINUX_PIECES=1 (CI) says it has them all
    need_linux_pieces()
    monkeypatch.delenv(FORCE_VARIABLE, raising=False)
    assert choose().backend == "linux" and not choose().missing


def test_a_missing_piece_chooses_the_portable_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FORCE_VARIABLE, raising=False)
    before = choose().missing
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    chosen = choose()
    assert chosen.backend == "portable" and "os.pidfd_open" in chosen.missing and not chosen.forced
    assert set(chosen.missing) - set(before) <= {"os.pidfd_open"}  # the piece taken away, and only it, is found missing
    monkeypatch.setenv(FORCE_VARIABLE, "linux")
    assert choose().backend == "linux" and choose().forced


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP") or not hasattr(faulthandler, "register"), reason="no POSIX signals")
def test_where_a_slow_child_was_is_waited_for(tmp_path: Path) -> None:
    """A child that gets no core for a second (a busy machine) still names its place: the grader waits for its dump."""
    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text("def causal_mask(T):\n    i = 0\n    while i < T: pass\n")
    script = (
        f"import faulthandler, signal, sys; sys.path.insert(0, {str(tmp_path)!r}); "
        f"faulthandler.register(signal.SIGUSR1, file=open({str(tmp_path / 'stack.txt')!r}, 'w'), all_threads=True, "
        f"chain=False); "
        "from exercises.q01_causal_mask import causal_mask; print('ready', flush=True); causal_mask(3)"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    waking = threading.Timer(1.0, child.send_signal, (signal.SIGCONT,))  # Popen's: nothing once the child is gone
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.3)  # into the loop
        os.kill(child.pid, signal.SIGSTOP)
        waking.start()
        found = where_it_ran(child.pid, tmp_path, package)
        assert found == " It was running `causal_mask` (exercises/q01_causal_mask.py, line 3).", (
            tmp_path / "stack.txt"
        ).read_text()
    finally:
        if waking.is_alive():
            waking.join()
        child.kill()
        child.wait()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_sandbox_that_cannot_start_blames_the_installation(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Python whose children cannot import torch: every question is an error that names the cause, what to do and a
    log kept after the sandbox's folder is gone; never the student's code."""
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'torch'\" >&2\nexit 1\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(FORCE_VARIABLE, backend)
    monkeypatch.setattr("sys.executable", str(python))
    report = grade(load_course(ROOT), ROOT / "solutions", [1, 2])
    assert report.sandbox["backend"] == backend
    logs = set()
    for question in report.questions:
        assert question.status == "error" and question.score == 0
        assert "not of your code: ModuleNotFoundError: No module named 'torch'" in question.reason, question.reason
        assert "Install torch for the Python that runs the kit" in question.reason and "sys.exit" not in question.reason
        logs.add(Path(question.reason.rsplit("The details are in ", 1)[1].rstrip(".")))
    assert len(logs) == 1, logs  # one sandbox, one log
    log = logs.pop()
    assert log.parent == private_folder() and "No module named 'torch'" in log.read_text(encoding="utf-8")
    log.unlink()


def test_where_a_child_was_is_read_from_its_last_dump(tmp_path: Path) -> None:
    """The dumps a child without signals writes every second (Windows): the last one names the place, and only a place
    in the student's package."""
    package = tmp_path / "exercises"
    package.mkdir()
    dump = (
        'Timeout (0:00:01)!\nThread 0x0001 (most recent call first):\n  File "{kit}/serve.py", line 9 in '
        'read_frame\nTimeout (0:00:02)!\nThread 0x0001 (most recent call first):\n  File '
        '"/elsewhere/exercises/q01_causal_mask.py", line 3 in fake\n  File "{package}/q04_heads.py", line 12 in '
        'split_heads\n  File "{kit}/session.py", line 80 in _call\n'
    )
    (tmp_path / "stack.txt").write_text(dump.format(kit=tmp_path / "kit", package=package))
    assert where_it_ran(None, tmp_path, package) == " It was running `split_heads` (exercises/q04_heads.py, line 12)."
    (tmp_path / "stack.txt").write_text(
        dump.split("Timeout (0:00:02)")[0].format(kit=tmp_path / "kit", package=package)
    )
    assert where_it_ran(None, tmp_path, package) == ""


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_backend_runs_a_question_in_its_own_process(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forced by AUTOGRADER_SANDBOX: the child is another process, in a folder of its own, and says so through the
    codec."""
    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text("import os\n\n\ndef where():\n    return [os.getpid(), os.getcwd()]\n")
    monkeypatch.setenv(FORCE_VARIABLE, backend)
    sandbox = start_sandbox()
    try:
        assert sandbox.backend == backend and sandbox.about()["forced"]
        child = sandbox.open(package, "q01_causal_mask", 20)
        assert child.first()["ok"]
        pid, folder = child.ask({"op": "call", "target": "where", "args": [], "kwargs": {}})["value"]
        assert pid != os.getpid() and Path(folder).parent.parent == Path(sandbox.folder).parent
        ending = child.close()
        assert ending.orphans == 0 and not Path(folder).exists()
    finally:
        sandbox.close()


FILES_MODULE = (
    "import os\nimport resource\n\n\ndef files():\n    held, code = [], None\n    try:\n"
    "        while len(held) < 256:\n            held.append(os.pipe())\n"
    "    except OSError as error:\n        code = error.errno\n"
    "    return [*resource.getrlimit(resource.RLIMIT_NOFILE), code, 2 * len(held)]\n"
)


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_backend_holds_a_child_to_its_own_descriptor_bound(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child's RLIMIT_NOFILE is limits.CHILD_FILES, soft and hard, whatever the grader's (20,000 on the machines
    that found it): its pipes stop with EMFILE within the bound, so they never take its user's pipe-buffer quota
    (tests/attacks/kernel_pipe_many_small.py); the grader's own limit is left as it was."""
    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text(FILES_MODULE)
    monkeypatch.setenv(FORCE_VARIABLE, backend)
    ours = resource.getrlimit(resource.RLIMIT_NOFILE)
    sandbox = start_sandbox()
    try:
        child = sandbox.open(package, "q01_causal_mask", 20)
        assert child.first()["ok"]
        soft, hard, code, made = child.ask({"op": "call", "target": "files", "args": [], "kwargs": {}})["value"]
        child.close()
    finally:
        sandbox.close()
    assert (soft, hard, code) == (CHILD_FILES, CHILD_FILES, errno.EMFILE) and CHILD_FILES - 16 < made < CHILD_FILES
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == ours


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the Linux backend's zygote")
def test_a_zygote_a_child_changed_is_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The grader reads the zygote's limits, priority and CPUs from /proc before each fork, never a child's word: a
    zygote changed since it started (here by the test, as a child running under the grader's own user could) is
    replaced, and the next child starts with the limits and priority of the first."""
    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text(
        "import os\nimport resource\n\n\ndef state():\n    return [os.getppid(), "
        "resource.getrlimit(resource.RLIMIT_FSIZE)[0], os.getpriority(os.PRIO_PROCESS, 0)]\n"
    )
    monkeypatch.setenv(FORCE_VARIABLE, "linux")
    sandbox = start_sandbox()
    try:
        states = []
        for _ in range(2):
            child = sandbox.open(package, "q01_causal_mask", 20)
            assert child.first()["ok"]
            states.append(child.ask({"op": "call", "target": "state", "args": [], "kwargs": {}})["value"])
            child.close()
            # every later child would fail to set its own
            resource.prlimit(states[-1][0], resource.RLIMIT_FSIZE, (4096, 4096))
            os.setpriority(os.PRIO_PROCESS, states[-1][0], 19)
    finally:
        sandbox.close()
    assert states[1][0] != states[0][0] and states[1][1:] == states[0][1:] and sandbox.replaced == 1


STATE_MODULE = (
    "import os\nimport resource\n\n\ndef state():\n    zygote = os.getppid()\n    with open(f'/proc/{zygote}/stat') as "
    "handle:\n        pristine = int(handle.read().rsplit(')', 1)[1].split()[1])\n    return [zygote, pristine, "
    "os.getpriority(os.PRIO_PROCESS, 0), resource.getrlimit(resource.RLIMIT_NOFILE)[0]]\n"
)


def _state_package(tmp_path: Path) -> Path:
    """A package whose question 1 says its zygote, that zygote's parent, and the priority and file limit it
    inherited."""
    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text(STATE_MODULE)
    return package


def _graded_state(kit: object, sandbox: Sandbox, package: Path) -> list:
    """What question 1's child of the next student (kit.reset) says of itself."""
    kit.reset(package)
    child = sandbox.open(package, "q01_causal_mask", 20)
    try:
        assert child.first()["ok"]
        return child.ask({"op": "call", "target": "state", "args": [], "kwargs": {}})["value"]
    finally:
        child.close()


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the Linux backend's zygote")
def test_each_student_is_graded_in_a_zygote_forked_for_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Class grading: a zygote a student's child changed in a way the grader does not read (here by the test, as a route
    around the kernel's walls would: process_state sees no change) never forks a later student's child. Each student
    gets a new zygote, forked from the pristine process (one import of torch for the sandbox's life), which runs one
    thread and never forked a question's child."""
    from autograder.engine.plugin import KitPlugin
    from autograder.sandbox.linux import parent

    package = _state_package(tmp_path)
    monkeypatch.setenv(FORCE_VARIABLE, "linux")
    monkeypatch.setattr(parent, "process_state", lambda pid: ("unchanged",))
    sandbox = start_sandbox()
    try:
        kit = KitPlugin(load_course(ROOT), package, sandbox)
        states = []
        for _student in range(3):
            states.append(_graded_state(kit, sandbox, package))
            os.setpriority(os.PRIO_PROCESS, states[-1][0], 19)  # the zygote that graded this student, poisoned
            resource.prlimit(states[-1][0], resource.RLIMIT_NOFILE, (CHILD_FILES // 2, CHILD_FILES // 2))
        threads = os.listdir(f"/proc/{sandbox.pristine.pid}/task")
    finally:
        sandbox.close()
    assert len({state[0] for state in states}) == 3 and {state[1] for state in states} == {sandbox.pristine.pid}
    assert [state[2:] for state in states[1:]] == [states[0][2:]] * 2 and states[0][3] == CHILD_FILES
    assert sandbox.pristines == 1 and sandbox.renewed == 2 and sandbox.replaced == 0 and len(threads) == 1


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the Linux backend's zygote")
def test_a_pristine_process_that_changed_or_died_is_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pristine process is read from /proc as a zygote is: changed since its first word (here reniced by the test),
    or dead (killed), it is replaced before it forks the next student's zygote, and no student loses anything."""
    from autograder.engine.plugin import KitPlugin

    package = _state_package(tmp_path)
    monkeypatch.setenv(FORCE_VARIABLE, "linux")
    sandbox = start_sandbox()
    changes = [lambda pid: os.setpriority(os.PRIO_PROCESS, pid, 19), lambda pid: os.kill(pid, signal.SIGKILL), None]
    try:
        kit = KitPlugin(load_course(ROOT), package, sandbox)
        states = []
        for change in changes:
            states.append(_graded_state(kit, sandbox, package))
            if change is not None:
                change(states[-1][1])
    finally:
        sandbox.close()
    assert len({state[1] for state in states}) == 3 and sandbox.pristines == 3
    assert [state[2:] for state in states[1:]] == [states[0][2:]] * 2


def _first_word_lost_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first child forked from a touched zygote ends before its first word (as one whose zygote an earlier child
    broke in a way the grader does not read would); later children speak."""
    from autograder.sandbox.linux import parent

    real_first, lost = parent.LinuxChild.first, []

    def first(child: "parent.LinuxChild") -> dict:
        if child.touched and not lost:
            lost.append(child)
            raise ChildStopped(CRASHED, "ended before its first word", ended="child")
        return real_first(child)

    monkeypatch.setattr(parent.LinuxChild, "first", first)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the Linux backend's zygote")
def test_a_child_dead_before_its_first_word_in_a_touched_zygote_is_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The grader never takes a child's word for its own health: a zygote an earlier child changed in a way the grader
    does not read (here the test's stand-in for its child) forks a child that dies before its first word; the question
    is asked again of a fresh zygote's child, which imports the module, and the student is not charged."""
    from autograder.engine.plugin import KitPlugin
    from autograder.sandbox.linux import parent

    course = load_course(ROOT)
    question = course.question(1)
    monkeypatch.setenv(FORCE_VARIABLE, "linux")
    monkeypatch.setattr(parent, "process_state", lambda pid: ("unchanged",))
    sandbox = start_sandbox()
    try:
        kit = KitPlugin(course, ROOT / "solutions", sandbox)
        kit.start(question)
        zygote = sandbox.process.pid
        kit.finish(question)
        _first_word_lost_once(monkeypatch)
        kit.start(question)
        run = kit.run_of(question)
        assert not run.status and sandbox.process.pid != zygote and sandbox.renewed == 1
        kit.finish(question)
        assert not run.status and not kit.grader_errors
    finally:
        sandbox.close()


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the Linux backend's zygote")
def test_a_fresh_zygote_that_fails_the_retry_is_the_graders_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The question asked again after a child died in a touched zygote: when the fresh zygote fails too (here it dies at
    once), the question is the grader's own failure (a fault: the report is a grader_error), not the student's."""
    from autograder.engine.plugin import KitPlugin
    from autograder.engine.proxy import CheckFailure
    from autograder.sandbox.linux import parent

    course = load_course(ROOT)
    question = course.question(1)
    monkeypatch.setenv(FORCE_VARIABLE, "linux")
    monkeypatch.setattr(parent, "process_state", lambda pid: ("unchanged",))
    sandbox = start_sandbox()
    try:
        kit = KitPlugin(course, ROOT / "solutions", sandbox)
        kit.start(question)
        kit.finish(question)
        _first_word_lost_once(monkeypatch)
        fork = sandbox._fork_zygote

        def fork_dying() -> parent.Zygote:
            zygote = fork()
            zygote.stdin.write(b"a line that is no job\n")  # the zygote's loop fails on it: the zygote dies at once
            zygote.stdin.flush()
            return zygote

        sandbox._fork_zygote = fork_dying
        with pytest.raises(CheckFailure):
            kit.start(question)
        assert sandbox.renewed == 1 and kit.grader_errors and "fresh zygote" in kit.grader_errors[0]
        assert kit.result(question).status == "error" and "the grader itself failed" in kit.result(question).reason
    finally:
        sandbox.close()


def _spares_die_after_their_job(monkeypatch: pytest.MonkeyPatch, fresh_too: bool) -> list:
    """Portable children die after they read their job and before they say {"started"} (as a spare an earlier child
    broke, or killed while its job was on the way, would): each gets a job it cannot take (no list of modules to
    preload), every touched spare's once, and with fresh_too every later child's too. The children so treated."""
    from autograder.sandbox.portable import parent

    real_begin, broken = parent.PortableChild.begin, []

    def begin(child: "parent.PortableChild", job: dict, time_limit: float) -> None:
        if (child.touched and not broken) or (fresh_too and broken):
            broken.append(child)
            job = {**job, "preload": None}  # the worker reads it, then dies in its loop over the modules
        real_begin(child, job, time_limit)

    monkeypatch.setattr(parent.PortableChild, "begin", begin)
    return broken


def test_a_portable_spare_dead_before_its_question_started_is_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The grader never takes a child's word for its own health: a spare that waited beside question 1's child and dies
    between its job and its {"started"} (no code of the student's ran in it) is not charged to question 2; the question
    is asked again of a freshly spawned child and keeps its full marks."""
    monkeypatch.setenv(FORCE_VARIABLE, "portable")
    broken = _spares_die_after_their_job(monkeypatch, fresh_too=False)
    report = grade(load_course(ROOT), ROOT / "solutions", [1, 2])
    assert report.sandbox["backend"] == "portable" and len(broken) == 1 and broken[0].popen.returncode == 1
    assert [(q.status, q.score) for q in report.questions] == [
        ("passed", q.max_score) for q in report.questions
    ], [q.reason for q in report.questions]


def test_a_portable_spare_dead_before_a_reopened_question_started_is_asked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fresh child a question gets after a time limit or a crash (KitPlugin.reopen) takes the same retry as its
    first one: the spare that waited beside the stopped child dies between its job and its {"started"}; the question's
    other functions are asked of a freshly spawned child, which imports the module, and nothing is charged to the
    student or to the grader."""
    from autograder.engine.plugin import KitPlugin

    course = load_course(ROOT)
    question = course.question(1)
    monkeypatch.setenv(FORCE_VARIABLE, "portable")
    sandbox = start_sandbox()
    try:
        kit = KitPlugin(course, ROOT / "solutions", sandbox)
        kit.start(question)
        stopped = kit.run_of(question).child
        broken = _spares_die_after_their_job(monkeypatch, fresh_too=False)
        fresh = kit.reopen(question)
        assert [child.touched for child in broken] == [True] and broken[0].popen.wait(60) == 1
        assert fresh is not None and fresh is kit.run_of(question).child and fresh not in (stopped, *broken)
        assert not fresh.touched and fresh.ask({"op": "call", "target": "causal_mask", "args": [2], "kwargs": {}})["ok"]
        kit.finish(question)
        assert not kit.run_of(question).status and not kit.grader_errors
    finally:
        sandbox.close()


def test_the_portable_backend_keeps_two_spares_while_two_questions_are_to_come(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A child's import of torch is longer than most questions: while two questions or more of the package are still
    to come, two spares import torch ahead; for the last question one (the next question's, or the next package's
    first)."""
    from autograder.sandbox.portable.parent import PortableSandbox

    waiting = []
    opened = PortableSandbox.open

    def open_and_count(self: PortableSandbox, *args: object, **kwargs: object) -> object:
        child = opened(self, *args, **kwargs)
        waiting.append(len(self.spares))
        return child

    monkeypatch.setattr(PortableSandbox, "open", open_and_count)
    monkeypatch.setenv(FORCE_VARIABLE, "portable")
    report = grade(load_course(ROOT), ROOT / "solutions", [1, 2, 4])
    assert [(q.status, q.score) for q in report.questions] == [("passed", q.max_score) for q in report.questions]
    assert waiting == [2, 1, 1]


def test_a_fresh_portable_child_dead_before_its_question_started_is_the_graders_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The question asked again after a touched spare died before it started: when the freshly spawned child dies in the
    same place too (no code of the student's ran in either), the question is the grader's own failure (a fault: the
    report is a grader_error), never the student's."""
    from autograder.engine.plugin import KitPlugin
    from autograder.engine.proxy import CheckFailure

    course = load_course(ROOT)
    question = course.question(1)
    monkeypatch.setenv(FORCE_VARIABLE, "portable")
    sandbox = start_sandbox()
    try:
        kit = KitPlugin(course, ROOT / "solutions", sandbox)
        kit.start(question)
        kit.finish(question)
        broken = _spares_die_after_their_job(monkeypatch, fresh_too=True)
        with pytest.raises(CheckFailure):
            kit.start(question)
        assert [child.touched for child in broken] == [True, False] and kit.grader_errors
        assert "a fresh child failed" in kit.grader_errors[0]
        assert kit.result(question).status == "error" and "the grader itself failed" in kit.result(question).reason
    finally:
        sandbox.close()
    log = base._KEPT.pop(Path(sandbox.errors.name))  # the instructor's evidence: what the fresh child said
    assert "TypeError" in log.read_text(encoding="utf-8")
    log.unlink()


def _call_once(tmp_path: Path, source: str, target: str, *args: object) -> dict:
    """Answer of one call of target in exercises/q01_causal_mask.py (source), in a sandbox started for it."""
    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text(source)
    sandbox = start_sandbox()
    try:
        child = sandbox.open(package, "q01_causal_mask", 20)
        assert child.first()["ok"]
        answer = child.ask({"op": "call", "target": target, "args": list(args), "kwargs": {}})
        child.close()
    finally:
        sandbox.close()
    return answer


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_child_finds_packages_where_the_grader_found_them(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package on the grader's sys.path only (as torch installed with `pip install --user`, which `python -I` leaves
    out): the child imports it too, while the kit's own folder stays off its path."""
    site = tmp_path / ".local" / "lib" / "site-packages"
    site.mkdir(parents=True)
    (site / "only_for_the_grader.py").write_text("VALUE = 42\n")
    monkeypatch.setenv(FORCE_VARIABLE, backend)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(ROOT))
    source = (
        "import sys\n\nimport only_for_the_grader\n\n\ndef seen():\n    return [only_for_the_grader.VALUE, sys.path]\n"
    )
    value, path = _call_once(tmp_path, source, "seen")["value"]
    assert value == 42 and str(site) in path and str(ROOT) not in path


def test_a_folder_on_the_graders_path_that_nothing_came_from_stays_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grading script's own folder (or a PYTHONPATH as broad as the home folder) is on the grader's sys.path, and may
    hold the class: the child cannot read it, while a folder a loaded module came from stays open."""
    scripts = tmp_path / "course"
    (scripts / "class" / "bob").mkdir(parents=True)
    (scripts / "class" / "bob" / "answer.py").write_text("SECRET = 1\n")
    monkeypatch.syspath_prepend(str(scripts))
    monkeypatch.syspath_prepend(str(ROOT))
    source = (
        "def peek(path):\n    try:\n        return open(path).read()\n"
        "    except OSError as error:\n        return type(error).__name__\n"
    )
    seen = _call_once(tmp_path, source, "peek", str(scripts / "class" / "bob" / "answer.py"))
    assert seen["value"] == "PermissionError", seen


def test_both_backends_put_up_the_same_kernel_walls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A portable child keeps every wall the kernel offers the Linux backend's (sandbox/walls.py): the same seccomp
    state, and C code (torch.save) that writes outside the child's folder where Landlock lets neither write it."""
    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text(
        "import torch\n\n\ndef walls(path):\n    try:\n        torch.save(1, path)\n    except RuntimeError:\n        "
        "pass\n    with open('/proc/self/status') as status:\n        return [line.split()[1] for line in status if "
        "line.startswith(('NoNewPrivs:', 'Seccomp:'))]\n"
    )
    seen = {}
    for backend in BACKENDS:
        monkeypatch.setenv(FORCE_VARIABLE, backend)
        sandbox = start_sandbox()
        try:
            child = sandbox.open(package, "q01_causal_mask", 20)
            assert child.first()["ok"]
            target = tmp_path / f"written-by-{backend}.pt"
            seen[backend] = (
                child.ask({"op": "call", "target": "walls", "args": [str(target)], "kwargs": {}})["value"],
                target.exists(),
            )
            child.close()
        finally:
            sandbox.close()
    assert seen["portable"] == seen["linux"], seen


@pytest.mark.parametrize("lines", [(7, 9), (8, 9), (2, 9)])
def test_a_loop_is_named_by_its_first_line_wherever_the_dump_lands_in_it(
    tmp_path: Path, lines: tuple[int, int]
) -> None:
    """Two dumps of one endless loop, landing on different lines of it (its header, its body, a helper it calls): the
    same place both times, the loop's first line in the function that runs it."""
    package = tmp_path / "exercises"
    package.mkdir()
    (package / "q04_heads.py").write_text(
        "def helper(x):\n    y = x + 1\n    return y\n\n\ndef split_heads(x):\n"
        "    while True:\n        x = helper(x)\n        x = x - 1\n"
    )
    said = set()
    for line in lines:
        frames = [(line, "helper"), (7, "split_heads")] if line < 6 else [(line, "split_heads")]
        dump = "Current thread 0x0001 (most recent call first):\n" + "".join(
            f'  File "{package}/q04_heads.py", line {number} in {function}\n' for number, function in frames
        )
        (tmp_path / "stack.txt").write_text(dump + f'  File "{tmp_path}/kit/session.py", line 80 in _call\n')
        said.add(where_it_ran(None, tmp_path, package))
    assert said == {" It was running `split_heads` (exercises/q04_heads.py, line 7)."}


@pytest.mark.skipif(not hasattr(signal, "SIGXCPU"), reason="no CPU-time signal on this system")
def test_a_child_ended_by_its_cpu_time_limit_timed_out() -> None:
    """A child stopped by its CPU rlimit (time limit + 2 s: SIGXCPU, when it beats the grader's own clock) is a
    timeout with the time limit's reason, not a crash; other signals stay crashes."""
    status, reason = died(-signal.SIGXCPU, 2.0)
    assert status == TIMEOUT and reason.startswith("stopped after 2 s")
    assert died(-signal.SIGSEGV, 2.0)[0] == CRASHED
