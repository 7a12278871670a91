"""What `check` does before its first question runs stays lean (issue 23: `check 3` within a bare `import torch`): the
modules the grader imports before its sandbox starts, and the sandbox's own work before its first fork."""
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from autograder.sandbox import walls
from autograder.sandbox.choice import LINUX, choose

ROOT = Path(__file__).resolve().parent.parent
# What `check` does not need, whose import would lengthen its start: psutil (the memory warning reads /proc/meminfo on
# Linux), the commands it does not run, the other backend.
NOT_IMPORTED_BY_CHECK = (
    "psutil",
    "autograder.sandbox.portable",
    "autograder.classroom.batch",
    "autograder.maintainer",
    "autograder.nbgrader",
    "autograder.plots.make",
    "hypothesis",
)
# the grader's sys.modules once `check 3` has printed its report
_MODULES_AFTER_CHECK = """
import json, sys
from autograder.cli import main
code = main(["check", "3", "--solutions", "--json"])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


@pytest.mark.skipif(choose().backend != LINUX or not Path("/proc/meminfo").exists(), reason="the Linux backend's path")
def test_check_3_imports_none_of_what_it_does_not_use(tmp_path: Path) -> None:
    """The grader of `check 3` (the Linux backend) never imports psutil, another command's modules or the portable
    backend: each would lengthen the time before its first question (issue 23: check 3 within a bare import torch).
    Its temporary folder holds no stale sandbox folder of a killed grader (whose sweep asks psutil)."""
    env = {key: value for key, value in os.environ.items() if key != "AUTOGRADER_SANDBOX"} | {"TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", _MODULES_AFTER_CHECK], cwd=ROOT, capture_output=True, text=True, env=env, check=False
    )
    said = json.loads(done.stdout.splitlines()[-1])
    report = json.loads(done.stdout.splitlines()[-2])
    assert said["code"] == 0 and report["score"] == report["max_score"], done.stdout[-2000:] + done.stderr[-2000:]
    imported = [
        name
        for name in said["modules"]
        if any(name == lean or name.startswith(lean + ".") for lean in NOT_IMPORTED_BY_CHECK)
    ]
    assert imported == []


def test_python_folders_resolves_links_as_the_realpath_of_each_module_file_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """python_folders resolves each module file's folder once (not each file: 50 ms before the first fork); a folder
    reached through a link, and a module file that is itself a link to another folder, still count where they
    really are."""
    real, linked_to = tmp_path / "real", tmp_path / "elsewhere"
    real.mkdir()
    linked_to.mkdir()
    (real / "plain.py").write_text("")
    (linked_to / "target.py").write_text("")
    (tmp_path / "link").symlink_to(real)  # a sys.path entry that is a link to real/
    entry, files = tmp_path / "entry", tmp_path / "files"
    entry.mkdir()
    files.mkdir()
    (files / "linked.py").symlink_to(linked_to / "target.py")  # a module file that is a link into elsewhere/
    unused = tmp_path / "unused"
    unused.mkdir()
    modules = {
        "_via_link": types.SimpleNamespace(__file__=str(tmp_path / "link" / "plain.py")),
        "_linked_file": types.SimpleNamespace(__file__=str(files / "linked.py")),
    }
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    for folder in (tmp_path / "link", linked_to, unused):
        monkeypatch.syspath_prepend(str(folder))
    found = walls.python_folders.__wrapped__()  # not the cached answer of this process
    assert str(real) in found  # the entry link/ resolved: real/ is where plain.py really is
    assert str(linked_to) in found  # linked.py resolved to elsewhere/target.py: elsewhere/ is used
    assert str(unused) not in found and str(files) not in found  # nothing came from there
    assert all(os.path.realpath(path) == path for path in found)


@pytest.mark.parametrize("backend", ["linux", "portable"])
def test_a_childs_garbage_collector_is_on(backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Linux backend's pristine process imports torch with the collector off (a tenth of the import), then turns
    it back on before forking: a student's code runs with the collector on, under every backend, and frozen objects
    of the sandbox's own (never those the student makes)."""
    if backend == "linux" and not hasattr(os, "pidfd_open"):
        pytest.skip("the Linux backend's zygote")
    from autograder.sandbox import FORCE_VARIABLE, start_sandbox

    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text(
        "import gc\n\n\ndef collector():\n    made = [[] for _ in range(10)]\n"
        "    return [gc.isenabled(), gc.get_freeze_count() > 0, len(made)]\n"
    )
    monkeypatch.setenv(FORCE_VARIABLE, backend)
    sandbox = start_sandbox()
    try:
        child = sandbox.open(package, "q01_causal_mask", 20)
        assert child.first()["ok"]
        enabled, frozen, _made = child.ask({"op": "call", "target": "collector", "args": [], "kwargs": {}})["value"]
        child.close()
    finally:
        sandbox.close()
    assert enabled
    assert frozen or backend == "portable"  # the zygote froze what the pristine process and it made


_COLLECTOR_AFTER_GRADING = """
import gc, json, sys
from pathlib import Path
if sys.argv[1] == "notebook":
    import torch  # a notebook that has torch already: nothing of its own is frozen
from autograder.course.manifest import load_course
from autograder.engine.run import grade
course = load_course(Path.cwd())
report = grade(course, course.root / "solutions", [1])
print(json.dumps([report.all_passed, gc.isenabled(), gc.get_freeze_count()]))
"""


@pytest.mark.parametrize("caller", ["command", "notebook"])
def test_grading_loads_torch_without_collections_then_collects_as_before(caller: str) -> None:
    """grade() imports torch, pytest and the plugin with the collector off, then freezes those objects out of every
    later collection and turns the collector back on; a caller that has torch already (a notebook) is left as it
    was, nothing of its objects frozen."""
    done = subprocess.run(
        [sys.executable, "-c", _COLLECTOR_AFTER_GRADING, caller], cwd=ROOT, capture_output=True, text=True, check=False
    )
    passed, enabled, frozen = json.loads(done.stdout.splitlines()[-1])
    assert passed and enabled, done.stderr[-2000:]
    assert frozen > 100_000 if caller == "command" else frozen == 0


def test_the_check_s_pytest_run_leaves_the_suites_asserts_as_python_runs_them(tmp_path: Path) -> None:
    """`check` runs pytest with the engine's PYTEST_ARGS, which leave assert statements plain: the kit words a
    failure from an assert's own message (the first line of its text either way), and pytest's rewriting of the
    suites' modules, redone at every run where bytecode is not written, cost `check` of all ten 0.1 s (issue 27).
    In a process of its own, as `check` runs it (this session's pytest rewrites every test_*.py it imports)."""
    (tmp_path / "test_plain_asserts_probe.py").write_text("def test_one():\n    assert 1 + 1 == 2, 'arithmetic'\n")
    code = (
        "import contextlib, io, sys, pytest\nfrom autograder.engine.run import PYTEST_ARGS\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = pytest.main([*PYTEST_ARGS, '--collect-only', '-p', 'no:cacheprovider', sys.argv[1]])\n"
        "print(int(status), [name for name in vars(sys.modules['test_plain_asserts_probe']) if name.startswith('@py')])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "test_plain_asserts_probe.py")],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=120,
    )
    assert done.stdout.split() == ["0", "[]"], done.stdout[-1000:] + done.stderr[-2000:]  # rewriting adds @py_builtins
