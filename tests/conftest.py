"""Fixtures shared by the kit's test modules."""
import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Callable, Iterator

import pytest
from test_corpus import Graded

# Class grading draws its inputs from the course secret; the tests compare it with `check` message for message, so they
# grade classes on the public seeds (test_secret.py tries the secret itself). Subprocesses inherit it.
os.environ.setdefault("AUTOGRADER_SECRET", "")
# Commands that tests and tools start by name (nbgrader starts `alembic`) are this environment's, as in an active venv,
# also when the suite is run as .venv/bin/python -m pytest.
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

ROOT = Path(__file__).resolve().parent.parent
# set to 1 where every Linux piece must be there (.ci/run): absent, a test fails
EXPECT_LINUX_PIECES = "KIT_EXPECT_LINUX_PIECES"


# The slow set (`python -m pytest -m slow`; `.ci/run` runs it after the README's command): end-to-end paths whose code a
# fast test also runs. Each entry says which. A test is slow by its node id (every parametrization), or by a module's
# fixture that runs the whole path (every test of that module using it, a new one too).
SLOW_TESTS = {
    "test_release.py::test_release_of_a_committed_kit_is_reproducible_and_flags_edits": (
        "test_release.py::test_solutions_is_one_commit_adding_exactly_the_answers (the same release code, its fixed "
        "identity and date) and test_recording.py::test_a_recording_is_the_same_bytes_each_time_and_loads_no_code"
    ),
    # a second release is a second recording of every suite (~50 CPU s): the fast set reads one release
    "test_release.py::test_two_releases_are_identical": (
        "test_release.py::test_solutions_is_one_commit_adding_exactly_the_answers (the same release code, its fixed "
        "identity and date) and test_recording.py::test_a_recording_is_the_same_bytes_each_time_and_loads_no_code (a "
        "recording's bytes, the same each time)"
    ),
    "test_release.py::test_the_student_build_gives_the_corpus_the_kits_verdicts_and_named_mistakes": (
        "test_release.py::test_grading_each_branch_with_its_own_grader (the student build grades) and test_corpus.py "
        "(the verdicts)"
    ),
    "test_release.py::test_no_function_or_class_of_the_release_answers_an_exercise": (
        "test_release.py::test_no_solution_expression_in_any_shipped_file (the same release, scanned for answers)"
    ),
    "test_release.py::test_the_recordings_answer_no_class_grading": (
        "test_release.py::test_main_holds_the_student_files_only (the recordings shipped) and test_recording.py"
    ),
    "test_release.py::test_question_9s_real_clock_note_on_the_student_build": (
        "test_cli.py::test_real_timings_are_shown_in_the_table_but_never_graded (the same note, from the kit)"
    ),
    "test_new.py::test_the_filled_in_question_passes_dev_check": (
        "test_devcheck.py::test_passes_on_the_kit (dev-check, grading every question of a kit), test_new.py::"
        "test_check_grades_the_new_question (the new question graded) and test_new.py::"
        "test_dev_check_lists_what_is_left_to_fill_in (its placeholders check)"
    ),
    "test_attacks.py::test_attacks_in_a_class_cost_only_the_attacker": (
        "test_attacks.py::test_attack_fails_in_the_sandbox (each attack) and test_grade_folder.py (grade DIR)"
    ),
    "test_attacks.py::test_attacks_in_the_gradescope_zip_cost_only_the_attacker": (
        "test_gradescope.py::test_correct_submission_gets_full_marks_and_every_self_test_answer (the zip's "
        "run_autograder run by root), test_attacks.py::test_attack_fails_in_the_sandbox (each attack, under root) and "
        "test_ordinary_user.py::test_gradescope_run_by_an_ordinary_user (an attack in the zip's run)"
    ),
    "test_portable.py::test_grade_gives_the_linux_backends_grades": (
        "test_portable.py::test_the_student_path_gives_the_linux_backends_report (the same simulated platforms grading)"
    ),
    "test_portable.py::test_solutions_and_plot_on_the_simulated_interpreter": (
        "test_portable.py::test_the_student_path_gives_the_linux_backends_report (check on the same simulated "
        "interpreters) and test_plots.py::test_q3_weights_are_the_students_beside_the_references (question 3's picture)"
    ),
    "test_portable.py::test_watch_regrades_a_save_on_the_simulated_interpreter": (
        "test_watch.py::test_watch_follows_the_student_from_question_1_to_2_and_ends_on_ctrl_c (the watch regrading a "
        "save) and test_portable.py::test_the_student_path_gives_the_linux_backends_report (the simulated interpreters)"
    ),
    "test_ordinary_user.py::test_grade_dir_by_an_ordinary_user": (
        "test_ordinary_user.py::test_gradescope_run_by_an_ordinary_user (the same user's kit) and test_grade_folder.py"
    ),
    "test_ordinary_user.py::test_grade_nbgrader_by_an_ordinary_user": (
        "test_ordinary_user.py::test_gradescope_run_by_an_ordinary_user and test_nbgrader.py (grade --nbgrader)"
    ),
    "test_ordinary_user.py::test_nbgrader_autograde_by_an_ordinary_user": (
        "test_ordinary_user.py::test_gradescope_run_by_an_ordinary_user and test_nbgrader.py::"
        "test_nbgrader_autograde_scores_equal_check (nbgrader autograde, as root)"
    ),
    "test_ordinary_user.py::test_grade_scheduler_by_an_ordinary_user": (
        "test_ordinary_user.py::test_gradescope_run_by_an_ordinary_user and test_cluster.py (grade --scheduler)"
    ),
    "test_cluster.py::test_reports_equal_run_suites_and_none_is_lost_when_a_worker_dies": (
        "test_cluster.py::test_batch_through_the_cluster_writes_the_local_grades_csv (the cluster grades a class) and "
        "test_cluster.py::test_a_task_that_keeps_failing_is_a_grader_error_graded_again_next_run (a worker that dies)"
    ),
    "test_grade_folder.py::test_a_killed_run_resumes_without_grading_anyone_twice": (
        "test_grade_folder.py::test_a_rerun_grades_only_what_is_missing_or_changed (resuming) and "
        "test_grade_folder.py::test_only_folders_of_dead_graders_untouched_for_long_are_swept"
    ),
    "test_secret.py::test_honest_code_keeps_its_verdicts_under_the_secret": (
        "test_secret.py::test_nbgrader_test_cells_draw_their_inputs_from_the_course_secret and the module's other tests"
    ),
    "test_hostile.py::test_a_check_process_ends_within_the_time_limit_when_q1_loops": (
        "test_hostile.py::test_check_ends_within_the_time_limit_when_q1_loops (the same check and time, in-process), "
        "test_cli.py::test_no_bytecode_written_into_the_kit_when_the_user_asks_for_none (a check process ends) and "
        "test_stopping.py::test_a_grader_killed_outright_takes_its_sandbox_with_it (a check process with q1 looping)"
    ),
    "test_corpus.py::test_control_solutions_full_marks": (
        "test_cli.py::test_solutions_score_full_marks_as_json (the solutions graded on every question, each passed at "
        "full marks)"
    ),
    "test_suites_plain.py::test_exercises_fail_every_graded_test": (
        "test_suites_plain.py::test_solutions_pass_every_test (plain pytest on the suites) and test_cli.py's stubs"
    ),
}
SLOW_FIXTURES = {
    (
        "test_instructor_docs.py",
        "ran",
    ): "test_nbgrader.py (both nbgrader paths), test_grade_folder.py, test_cluster.py: the "
    "commands the page runs, as the page writes them",
    (
        "test_authoring.py",
        "walk",
    ): "test_authoring.py::test_proxy_fragments_run_against_the_solutions, test_devcheck.py, "
    "test_cli.py, test_suites_plain.py, test_corpus.py: each step's command on the kit",
    (
        "test_classroom.py",
        "graded",
    ): "test_classroom.py's workflow tests (its steps are `check N`) and test_cli.py (check's exit status and score)",
}


# The kit's own tests run `-n auto --dist loadgroup` (pytest-xdist) unless the command line says `-n` or `--dist`: the
# modules side by side, one worker a usable core up to MOST_WORKERS, each module whole in one worker (its module
# fixtures made once). Past 4 the long groups below set the time and each worker's own start (torch, a sandbox) only
# adds; one core runs the tests in pytest's own process, as `-n 0` does. PYTEST_XDIST_AUTO_NUM_WORKERS, or `-n N`,
# chooses otherwise.
MOST_WORKERS = 4
# The session fixtures too dear to make in every worker, and the modules that use them: those modules form one group,
# named after the fixture, handed to one worker. A module using one that is not listed is an error at collection.
SHARED_SESSION_FIXTURES = {
    "kit_release": ("test_release.py", "test_classroom.py"),
    "graded": ("test_corpus.py", "test_mistakes.py"),
}
# The modules that take a minute or more: handed out first, so that the workers end together rather than one starting
# a long module when the other has finished. An order only: a module missing here or renamed just starts in its turn.
LONG_MODULES = ("test_nbgrader.py", "test_hostile.py", "test_release.py", "test_corpus.py", "test_attacks.py")


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads -n
def pytest_cmdline_main(config: pytest.Config) -> None:
    """`-n auto --dist loadgroup` when the command line gives neither (set here, for the kit's tests only: not in
    pyproject.toml's addopts, which the student build ships and a plain run of the suites reads)."""
    option = config.option
    if hasattr(config, "workerinput"):  # an xdist worker runs its tests itself
        return
    if getattr(option, "numprocesses", False) is None and getattr(option, "dist", None) == "no":
        option.numprocesses, option.dist = "auto", "loadgroup"


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the platform says), at least 1."""
    affinity = getattr(os, "sched_getaffinity", None)
    return max(1, len(affinity(0)) if affinity else os.cpu_count() or 1)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`'s workers: one a usable core up to MOST_WORKERS, none (this process) on one core; xdist's own count
    when PYTEST_XDIST_AUTO_NUM_WORKERS says."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = usable_cores()
    return 0 if cores == 1 else min(cores, MOST_WORKERS)


def module_group(nodeid: str) -> str:
    """The group of workers' scheduling a test (by its node id) belongs to: the shared session fixture its module
    uses, or its module's file name."""
    module = nodeid.split("::")[0].rsplit("/", 1)[-1]
    return next((name for name, modules in SHARED_SESSION_FIXTURES.items() if module in modules), module)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """`--dist loadgroup`: each module_group whole to one worker, in the order the workers collected (long first).

    xdist's own loadgroup reads `xdist_group` marks through a node id that pytest 9 no longer lets it change: every
    test went its own way, and a module's fixtures were made on every worker."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False  # the workers' order, long groups first (not the most tests first)

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return module_group(nodeid)

    return ByGroup(config, log)


def _unlisted_sharers(items: list[pytest.Item]) -> list[str]:
    """The tests that use a SHARED_SESSION_FIXTURES fixture from a module the table does not list with it."""
    unlisted = []
    for item in items:
        defined = getattr(item, "_fixtureinfo", None)
        for name in SHARED_SESSION_FIXTURES:
            definitions = defined.name2fixturedefs.get(name) if defined else None
            if definitions and definitions[-1].scope == "session" and module_group(item.nodeid) != name:
                unlisted.append(f"{item.nodeid} uses {name}")
    return unlisted


def _long_first(items: list[pytest.Item]) -> None:
    """Reorder items, group by group, the groups of LONG_MODULES first (stable otherwise)."""
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        groups.setdefault(module_group(item.nodeid), []).append(item)

    def rank(group: str) -> int:
        modules = {item.nodeid.split("::")[0].rsplit("/", 1)[-1] for item in groups[group]}
        return min((LONG_MODULES.index(m) for m in modules if m in LONG_MODULES), default=len(LONG_MODULES))

    items[:] = [item for group in sorted(groups, key=rank) for item in groups[group]]


@pytest.hookimpl(tryfirst=True)  # before -m deselects, and before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark slow the tests SLOW_TESTS and SLOW_FIXTURES name; an entry naming a test or fixture its module lacks is
    an error (a test renamed: the table must follow). In a worker of `--dist loadgroup`, hold SHARED_SESSION_FIXTURES
    to the modules that use them and put the long groups first (the order the scheduler hands them out)."""
    modules = {}
    for item in items:
        module = item.nodeid.split("::")[0].rsplit("/", 1)[-1]
        modules[module] = getattr(item, "module", None)
        name = getattr(item, "originalname", item.name)
        if f"{module}::{name}" in SLOW_TESTS or any(
            (module, fixture) in SLOW_FIXTURES for fixture in getattr(item, "fixturenames", ())
        ):
            item.add_marker(pytest.mark.slow)
    stale = [
        key
        for key in SLOW_TESTS
        if key.split("::")[0] in modules and not hasattr(modules[key.split("::")[0]], key.split("::")[1])
    ]
    stale += [key for key in SLOW_FIXTURES if key[0] in modules and not hasattr(modules[key[0]], key[1])]
    if stale:
        raise pytest.UsageError(f"tests/conftest.py marks slow what its module does not hold: {stale}")
    # a worker of xdist says `loadgroup` here: its own `dist` is "no" (it hands out nothing itself)
    if getattr(config.option, "loadgroup", False):
        unlisted = _unlisted_sharers(items)
        if unlisted:
            raise pytest.UsageError(f"tests/conftest.py's SHARED_SESSION_FIXTURES lacks their modules: {unlisted[:5]}")
        _long_first(items)


@pytest.fixture(scope="session")
def graded(tmp_path_factory: pytest.TempPathFactory, session_sandbox: object) -> Graded:
    """Corpus results, graded on demand, each question's files together, in the session's sandbox; shared by
    test_corpus and test_mistakes."""
    return Graded(tmp_path_factory.mktemp("corpus"), lambda: Kept(session_sandbox))


@pytest.fixture(scope="session")
def kit_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`python -m autograder release` of the kit, made once for the tests that read it (test_release,
    test_classroom)."""
    out = tmp_path_factory.mktemp("release") / "first"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "release", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="session")
def release_clones(kit_release: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A clone of each branch of kit_release: main (the stubs) and solutions."""
    folder = tmp_path_factory.mktemp("clones")
    for branch in ("main", "solutions"):
        subprocess.run(
            ["git", "clone", "--quiet", "--branch", branch, str(kit_release), branch],
            cwd=folder,
            capture_output=True,
            check=True,
        )
    return {branch: folder / branch for branch in ("main", "solutions")}


def need_linux_pieces() -> None:
    """Skip the calling test, naming what is missing, on a machine without every piece of the Linux backend; fail
    instead where KIT_EXPECT_LINUX_PIECES=1 says they are all there (CI)."""
    from autograder.sandbox.choice import missing_pieces

    missing = missing_pieces()
    if missing and os.environ.get(EXPECT_LINUX_PIECES) == "1":
        pytest.fail(f"{EXPECT_LINUX_PIECES}=1 but this machine lacks {', '.join(missing)}")
    if missing:
        pytest.skip(
            f"this machine lacks {', '.join(missing)} of the Linux backend (set {EXPECT_LINUX_PIECES}=1 to fail "
            f"instead)"
        )


Cli = Callable[..., subprocess.CompletedProcess]


class Kept:
    """A sandbox lent to one test's grading: everything as the sandbox's, but close() leaves it open for the next
    test."""

    def __init__(self, sandbox: object) -> None:
        self._sandbox = sandbox

    def __getattr__(self, name: str) -> object:
        return getattr(self._sandbox, name)

    def close(self) -> None:
        """The session closes it."""


@pytest.fixture(scope="session")
def session_sandbox() -> Iterator[object]:
    """One sandbox for the session's in-process grading (its start, torch's import in a new process, is most of a
    check)."""
    from autograder.sandbox import start_sandbox

    sandbox = start_sandbox()
    yield sandbox
    sandbox.close()


@pytest.fixture()
def shared_sandbox(session_sandbox: object, monkeypatch: pytest.MonkeyPatch) -> object:
    """Grading in this test (engine.run.grade_many with no sandbox given, `plot N`) uses the session's sandbox instead
    of starting one."""
    use_session_sandbox(monkeypatch, session_sandbox)
    return session_sandbox


def run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`python -m autograder ARGS` run in this process in cwd: the exit status and what it printed, as subprocess.run
    gives them (grading in a sandbox of its own, or where use_session_sandbox sent it)."""
    from autograder.cli.main import main
    from autograder.i18n import set_language

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as local:
        local.chdir(cwd)
        local.setattr(sys, "stdin", io.StringIO())  # not a terminal, as the subprocesses' stdin is not
        try:
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = main(list(args))
                except SystemExit as stop:  # argparse's --help
                    code = stop.code if isinstance(stop.code, int) else 1
        finally:
            set_language(None)  # --lang holds for the command, never for the next test
    return subprocess.CompletedProcess(["python", "-m", "autograder", *args], code, out.getvalue(), err.getvalue())


def use_session_sandbox(patch: pytest.MonkeyPatch, sandbox: object) -> None:
    """Grading (engine.run.grade_many with no sandbox given) and `plot N` use sandbox, left open, instead of starting
    one."""
    patch.setattr("autograder.engine.run.start_sandbox", lambda: Kept(sandbox))
    patch.setattr("autograder.plots.make.start_sandbox", lambda: Kept(sandbox))


@pytest.fixture()
def cli(shared_sandbox: object) -> Cli:
    """`python -m autograder ARGS` run in this process (cli(cwd, *args)), grading in the session's sandbox: the exit
    status and what it printed, as subprocess.run gives them, without starting a Python, a sandbox and torch again.
    For tests of what the command does, not of the process (encodings, -OO, signals, the interpreter's exit: those
    spawn one)."""
    return run_cli
