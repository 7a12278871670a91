"""Fixtures of the hidden suites, and the `--package` option of a plain `pytest autograder/suites` run."""
from pathlib import Path
from typing import Callable, Iterator

import pytest

from autograder.course.manifest import find_root, load_course
from autograder.engine.plugin import KitPlugin, kit
from autograder.engine.proxy import Student
from autograder.recording.recorded import install
from autograder.sandbox import start_sandbox

install()  # in the student build, before the suites import `reference`: the oracle's names answer from the recordings


def pytest_addoption(parser: pytest.Parser) -> None:
    """--package: the folder graded (exercises, solutions, or any path to a package like them)."""
    parser.addoption(
        "--package", default="exercises", help="the package to grade: exercises (default), solutions, or a path"
    )


def pytest_configure(config: pytest.Config) -> None:
    """In a plain pytest run, register the kit's plugin for the package named by --package."""
    if kit(config) is not None:
        return
    course = load_course(find_root(Path.cwd()))
    package = Path(config.getoption("--package"))
    if not package.is_absolute() and not package.exists():
        package = course.root / package
    sandbox = start_sandbox()  # started before the suites are imported: its import of torch overlaps theirs
    config.pluginmanager.register(KitPlugin(course, package.resolve(), sandbox))
    config.add_cleanup(sandbox.close)


@pytest.fixture(scope="module")
def student(request: pytest.FixtureRequest) -> Iterator[Student]:
    """The student's module for this suite's question, its code running in one sandboxed child."""
    plugin = kit(request.config)
    question = plugin.question_of(request.module)
    proxy = plugin.start(
        question, tuple(name for marker in request.node.iter_markers("preload") for name in marker.args)
    )
    yield proxy
    plugin.finish(question)


@pytest.fixture
def note(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """note(text): a line shown under the question in the report, never graded (for @pytest.mark.ungraded tests)."""
    plugin = kit(request.config)
    return plugin.run_of(plugin.question_of(request.module)).notes.append
