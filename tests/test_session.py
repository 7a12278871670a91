"""One pytest run grades many packages (engine/run.py run_each, the way `grade DIR`'s workers and grade_many grade).

The suites are collected once and every check runs again for each package. The reports must be exactly those of
one run per package, whatever came before (a wrong answer, a stub, a crash), and a grader that breaks on one
student must cost only that student's report (grader_error, graded again next run) while the others are graded.
"""
import json
import shutil
import socket
import time
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import Kept

from autograder.classroom import work
from autograder.classroom.intake import Entry
from autograder.course.manifest import load_course
from autograder.engine import plugin
from autograder.engine.run import Submission, grade_many, run_each, run_suites
from autograder.sandbox import Sandbox, start_sandbox

ROOT = Path(__file__).resolve().parent.parent
COURSE = load_course(ROOT)
NUMBERS = [1, 3]
# the class tests' course: questions 1 and 2 (each student's further questions would run the same code again)
CLASS = replace(COURSE, questions=COURSE.questions[:2])


def _package(folder: Path, replaced: dict[str, Path]) -> Path:
    """A copy of solutions/ in folder with some modules replaced by the given files."""
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name, source in replaced.items():
        shutil.copy(source, folder / name)
    return folder


@pytest.fixture()
def sandbox(session_sandbox: Sandbox) -> Kept:
    """The session's sandbox, lent (grade_many closes the sandbox it is given: this one stays open)."""
    return Kept(session_sandbox)


def test_one_run_gives_each_package_its_own_report(tmp_path: Path, sandbox: Sandbox) -> None:
    """Solutions, a wrong q3, the stubs, a crashing q1 and the solutions again: one run's reports equal separate
    runs'."""
    wrong = _package(tmp_path / "wrong", {"q03_attention.py": ROOT / "tests/corpus/wrong/q03_no_scaling.py"})
    crash = _package(tmp_path / "crash", {"q01_causal_mask.py": ROOT / "tests/hostile/segfault.py"})
    packages = [ROOT / "solutions", wrong, ROOT / "exercises", crash, ROOT / "solutions"]
    separate = [run_suites(COURSE, sandbox, package, NUMBERS).to_dict() for package in packages]
    submissions = [Submission(package) for package in packages]
    run_each(COURSE, sandbox, NUMBERS, submissions)
    together = [submission.report.to_dict() for submission in submissions]
    assert together == separate
    assert [report["score"] for report in together] == [20.0, together[1]["score"], 0.0, together[3]["score"], 20.0]
    assert together[1]["score"] < 20 and together[3]["questions"][0]["status"] == "crashed"
    assert not any(submission.failed for submission in submissions)


def test_a_grader_failure_costs_only_that_student(
    tmp_path: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The grader breaking on the second of three students: that one is reported as a grader_error, the others
    graded."""
    entries = []
    for student in ("ann", "bob", "cid"):
        folder = tmp_path / "class" / student
        shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
        entries.append(Entry(student, folder, "folder"))
    reset = plugin.KitPlugin.reset

    def breaks_on_bob(self: plugin.KitPlugin, package: Path, hidden: tuple[Path, ...] = ()) -> None:
        reset(self, package, hidden)
        if calls.append(package) or len(calls) == 2:
            raise OSError("disk full")

    calls: list[Path] = []
    monkeypatch.setattr(plugin.KitPlugin, "reset", breaks_on_bob)
    reports: dict[str, dict] = {}
    work.grade_entries(
        CLASS,
        entries,
        sandbox,
        tmp_path / "scratch",
        lambda entry, report: reports.setdefault(entry.student, report.to_dict()),
    )
    assert list(reports) == ["ann", "bob", "cid"]
    assert reports["ann"]["score"] == reports["cid"]["score"] == CLASS.max_score
    assert reports["bob"]["grader_error"] and reports["bob"]["score"] == 0
    assert "OSError: disk full" in reports["bob"]["problem"] and "breaks_on_bob" in reports["bob"]["traceback"]
    assert "grader_error" not in reports["ann"] and "grader_error" not in reports["cid"]
    assert not any((tmp_path / "scratch").iterdir()), "every student's package folder is removed"


def test_a_failure_outside_the_checks_is_reported_too(
    tmp_path: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk while the second student's package is built: that student is reported (grader_error), the run goes
    on.

    Every entry drawn gets exactly one report, or a worker would wait for the next entry while its driver waits for
    this one."""
    entries = []
    for student in ("ann", "bob", "cid"):
        folder = tmp_path / "class" / student
        shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
        entries.append(Entry(student, folder, "folder"))
    made = []
    mkdtemp = work.tempfile.mkdtemp

    def full_disk_for_bob(*args: object, **kwargs: object) -> str:
        made.append(1)
        if len(made) == 2:
            raise OSError(28, "No space left on device")
        return mkdtemp(*args, **kwargs)

    monkeypatch.setattr(work.tempfile, "mkdtemp", full_disk_for_bob)
    reports: list[tuple[str, dict]] = []
    work.grade_entries(
        CLASS,
        entries,
        sandbox,
        tmp_path / "scratch",
        lambda entry, report: reports.append((entry.student, report.to_dict())),
    )
    assert [student for student, _ in reports] == ["ann", "bob", "cid"]
    scores = {student: (report["score"], report.get("grader_error", False)) for student, report in reports}
    assert scores == {"ann": (CLASS.max_score, False), "bob": (0, True), "cid": (CLASS.max_score, False)}
    assert "No space left on device" in dict(reports)["bob"]["problem"]


def test_grade_many_gives_every_package_a_report_when_the_grader_breaks_on_one(
    sandbox: Kept, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The grader breaking on the second of three packages: the third is still graded, in another run."""
    reset, calls = plugin.KitPlugin.reset, []

    def breaks_on_the_second(self: plugin.KitPlugin, package: Path, hidden: tuple[Path, ...] = ()) -> None:
        reset(self, package, hidden)
        calls.append(package)
        if len(calls) == 2:
            raise OSError("disk full")

    monkeypatch.setattr(plugin.KitPlugin, "reset", breaks_on_the_second)
    reports = grade_many(COURSE, [(ROOT / "solutions", [1])] * 3, sandbox=sandbox)
    assert [report.score for report in reports] == [8.0, 0.0, 8.0]


def test_a_preloaded_module_is_imported_once_by_the_zygote_for_every_later_child(tmp_path: Path) -> None:
    """Sandbox.open(preload=...) (the suites' preload marker): the child, and every later one, finds the module
    imported; so does the next student's zygote (renew), which the pristine process forks once it has imported the
    module itself."""
    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text("import sys\n\n\ndef imported(name):\n    return name in sys.modules\n")
    sandbox = start_sandbox()
    try:
        found = []
        for preload in ((), ("wave",), ()):
            child = sandbox.open(package, "q01_causal_mask", 20, preload=preload)
            try:
                assert child.first()["ok"]
                found.append(child.ask({"op": "call", "target": "imported", "args": ["wave"], "kwargs": {}})["value"])
            finally:
                child.close()
        assert found == [False, True, True] and sandbox.preloaded == {"wave"}
        assert sandbox.renew() and sandbox.preloaded == {"wave"}
        child = sandbox.open(package, "q01_causal_mask", 20)
        try:
            assert (
                child.first()["ok"]
                and child.ask({"op": "call", "target": "imported", "args": ["wave"], "kwargs": {}})["value"]
            )
        finally:
            child.close()
        assert sandbox.pristine_preloaded == {"wave"}
    finally:
        sandbox.close()


def test_modules_prepared_ahead_are_imported_by_the_pristine_process_not_by_the_zygote(tmp_path: Path) -> None:
    """Sandbox.prepare(preload) (said by the plugin once the suites are collected): the pristine process imports the
    modules beside the first questions, and the question that preloads them is forked from a fresh zygote that has
    them, which the running zygote, never asked to import them, does not."""
    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text("import sys\n\n\ndef imported(name):\n    return name in sys.modules\n")
    sandbox = start_sandbox()
    if sandbox.backend != "linux":
        sandbox.close()
        pytest.skip("only the Linux backend's pristine process imports ahead")
    try:
        sandbox.prepare(("wave",))
        found = []
        for preload in ((), ("wave",)):
            child = sandbox.open(package, "q01_causal_mask", 20, preload=preload)
            try:
                assert child.first()["ok"]
                found.append(child.ask({"op": "call", "target": "imported", "args": ["wave"], "kwargs": {}})["value"])
            finally:
                child.close()
            if not preload:
                first_zygote = sandbox.zygotes
        assert found == [False, True]
        assert (
            sandbox.zygotes == first_zygote + 1
            and sandbox.pristine_preloaded == {"wave"}
            and sandbox.preloaded == {"wave"}
        )
    finally:
        sandbox.close()


def test_a_question_is_not_held_behind_a_later_questions_modules_the_pristine_process_still_imports(
    tmp_path: Path,
) -> None:
    """The pristine process says each module asked ahead once imported; a question whose modules it has, opened while it
    still imports a later question's (torch._dynamo, as long as torch), is forked from the running zygote, which imports
    them itself, not from a zygote the pristine process would fork only after that import."""
    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text("import sys\n\n\ndef imported(name):\n    return name in sys.modules\n")
    sandbox = start_sandbox()
    if sandbox.backend != "linux":
        sandbox.close()
        pytest.skip("only the Linux backend's pristine process imports ahead")
    try:
        child = sandbox.open(package, "q01_causal_mask", 20)
        try:
            assert child.first()["ok"]
        finally:
            child.close()
        sandbox.prepare(("wave", "wave"))
        assert sandbox.pristine_pending == {"wave"}
        deadline = time.monotonic() + 60
        while sandbox.pristine_pending and time.monotonic() < deadline:
            sandbox.pump(0.1)  # the pristine process's words are read as the grader waits on a child
        assert not sandbox.pristine_pending
        zygotes = sandbox.zygotes
        sandbox.pristine_pending.add("a later question's module")  # as while the pristine process still imports it
        child = sandbox.open(package, "q01_causal_mask", 20, preload=("wave",))
        try:
            assert child.first()["ok"]
            assert child.ask({"op": "call", "target": "imported", "args": ["wave"], "kwargs": {}})["value"]
        finally:
            child.close()
        assert sandbox.zygotes == zygotes and sandbox.preloaded == {"wave"}
    finally:
        sandbox.close()


def test_only_a_classs_next_student_has_the_pristine_process_collapse_its_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One student's zygotes (the first, and the one forked for the modules prepared ahead) are asked for without the
    huge-page collapse, which costs more CPU than one student's questions win back; the next student's (renew) asks
    for it, once for every later zygote of the class."""
    from autograder.sandbox.linux import parent

    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text("def one():\n    return 1\n")
    asked: list[bool] = []
    send = socket.send_fds

    def send_fds(sock: socket.socket, buffers: list[bytes], fds: list[int]) -> int:
        message = json.loads(buffers[0])
        if "zygote" in message:
            asked.append(message["collapse"])
        return send(sock, buffers, fds)

    monkeypatch.setattr(parent.socket, "send_fds", send_fds)
    sandbox = start_sandbox()
    if sandbox.backend != "linux":
        sandbox.close()
        pytest.skip("only the Linux backend's pristine process collapses its memory")
    try:
        sandbox.prepare(("wave",))
        for preload, student in (((), 1), (("wave",), 1), ((), 2), (("wave",), 2)):
            if student == 2 and preload == ():
                assert sandbox.renew()
            child = sandbox.open(package, "q01_causal_mask", 20, preload=preload)
            try:
                assert child.first()["ok"]
                assert child.ask({"op": "call", "target": "one", "args": [], "kwargs": {}})["value"] == 1
            finally:
                child.close()
        assert asked == [False, False, True]
    finally:
        sandbox.close()


def test_grading_tells_the_sandbox_the_modules_its_suites_preload(sandbox: Kept) -> None:
    """The plugin says the collected suites' preload markers (q9's torch.utils.benchmark) and how many questions a
    package has before the first question."""
    said: list[tuple[tuple[str, ...], int]] = []
    sandbox.prepare = lambda preload, questions=0: said.append((preload, questions))  # the lent one's only
    report = grade_many(COURSE, [(ROOT / "solutions", [9])], sandbox=sandbox)[0]
    assert said == [(("torch.utils.benchmark",), 1)] and report.score == report.max_score
