"""The kit's own test suite: the README's command runs the fast set, `-m slow` the end-to-end paths, and every slow test
names a fast test, which exists, that runs the same code."""
import ast
import re
import shlex
from pathlib import Path
from types import SimpleNamespace

import conftest
import pytest
from conftest import MOST_WORKERS, SLOW_FIXTURES, SLOW_TESTS, pytest_xdist_auto_num_workers, pytest_xdist_make_scheduler

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"


def _defined(module: str) -> set[str]:
    """The names of the functions a test module defines at its top level."""
    tree = ast.parse((TESTS / module).read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_the_readmes_command_leaves_the_slow_set_out() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    addopts = shlex.split(re.search(r'^addopts = "([^"]*)"', pyproject, re.MULTILINE).group(1))
    assert addopts[addopts.index("-m") + 1] == "not slow"
    assert re.search(r'^ +"slow: ', pyproject, re.MULTILINE), "the slow marker is not registered"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert (
        "\npython -m pytest\n" in readme
        and "`python -m pytest -m slow`" in readme
        and '`python -m pytest -m "slow or not slow"`' in readme
    )
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^timed .* python -m pytest$", ci, re.MULTILINE) and re.search(
        r"^timed .* python -m pytest -m slow$", ci, re.MULTILINE
    )


@pytest.mark.parametrize("entry", [*SLOW_TESTS, *SLOW_FIXTURES], ids=str)
def test_each_slow_test_names_fast_tests_that_exist(entry: str | tuple[str, str]) -> None:
    module, name = entry.split("::") if isinstance(entry, str) else entry
    assert name in _defined(module), f"{module} has no {name}"
    covered = SLOW_TESTS[entry] if isinstance(entry, str) else SLOW_FIXTURES[entry]
    named = re.findall(r"(test_\w+\.py)(?:::(\w+))?", covered)
    assert named, f"{entry}: names no fast test"
    for other, function in named:
        assert (TESTS / other).is_file(), f"{entry}: {other} is not a test module"
        assert not function or function in _defined(other), f"{entry}: {other} has no {function}"
        assert f"{other}::{function}" not in SLOW_TESTS, f"{entry}: {other}::{function} is slow too"


def test_the_readmes_command_runs_on_the_cores_unless_told_otherwise() -> None:
    for given, ran in (
        ((None, "no"), ("auto", "loadgroup")),  # `python -m pytest`
        ((0, "no"), (0, "no")),  # `-n 0`: in this process
        ((3, "no"), (3, "no")),  # `-n 3`: xdist's own `load`
        ((None, "loadfile"), (None, "loadfile")),
    ):
        config = SimpleNamespace(option=SimpleNamespace(numprocesses=given[0], dist=given[1]))
        conftest.pytest_cmdline_main(config)
        assert (config.option.numprocesses, config.option.dist) == ran, given
    worker = SimpleNamespace(option=SimpleNamespace(numprocesses=None, dist="no"), workerinput={})
    conftest.pytest_cmdline_main(worker)
    assert (worker.option.numprocesses, worker.option.dist) == (None, "no"), "a worker would start workers of its own"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    addopts = shlex.split(re.search(r'^addopts = "([^"]*)"', pyproject, re.MULTILINE).group(1))
    assert "-n" not in addopts and "--dist" not in addopts, "the student build ships pyproject.toml, without xdist"


def test_auto_starts_a_worker_a_core_up_to_a_few_and_none_on_one_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    for cores, workers in ((1, 0), (2, 2), (3, 3), (64, MOST_WORKERS)):
        monkeypatch.setattr(conftest, "usable_cores", lambda cores=cores: cores)
        assert pytest_xdist_auto_num_workers(None) == workers, cores
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "3")
    assert pytest_xdist_auto_num_workers(None) is None  # xdist's own hook reads it


class _Worker:
    """A stand-in for an xdist worker: the node ids it was sent, and whether it was told to stop."""

    shutting_down = False

    def __init__(self, collection: list[str], name: str) -> None:
        self.collection, self.sent, self.gateway = collection, [], SimpleNamespace(id=name)

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent += [self.collection[index] for index in indices]

    def shutdown(self) -> None:
        self.shutting_down = True


def test_each_module_and_each_shared_session_fixtures_modules_run_whole_on_one_worker_in_the_collected_order() -> None:
    modules = ["test_hostile.py", "test_corpus.py", "test_codec.py", "test_mistakes.py", "test_i18n.py"]
    collection = [f"tests/{module}::test_{i}" for module in modules for i in range(1 if module == modules[0] else 4)]
    options = {"dist": "loadgroup", "tx": ["popen", "popen"]}
    config = SimpleNamespace(getvalue=options.__getitem__, option=SimpleNamespace(loadscopereorder=True))
    scheduler = pytest_xdist_make_scheduler(config, None)
    workers = [_Worker(collection, "gw0"), _Worker(collection, "gw1")]
    for worker in workers:
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    done = [0, 0]
    while any(done[i] < len(worker.sent) for i, worker in enumerate(workers)):  # each worker runs what it was sent
        for i, worker in enumerate(workers):
            if done[i] < len(worker.sent):
                scheduler.mark_test_complete(worker, collection.index(worker.sent[done[i]]))
                done[i] += 1
    where = {nodeid: i for i, worker in enumerate(workers) for nodeid in worker.sent}
    assert sorted(where) == sorted(collection) and sum(len(worker.sent) for worker in workers) == len(collection)
    for module in modules:
        assert len({where[nodeid] for nodeid in collection if f"/{module}::" in nodeid}) == 1, module
    shared = [nodeid for nodeid in collection if "corpus" in nodeid or "mistakes" in nodeid]  # both use `graded`
    assert len({where[nodeid] for nodeid in shared}) == 1, where
    assert workers[0].sent[0] == collection[0], workers[0].sent  # the first collected first, not the most tests
