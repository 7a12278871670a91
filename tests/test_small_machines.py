"""Small machines and shared servers: a question that cannot run for want of memory or processes says so, under each
backend.

A limit on the address space set on the grader (`ulimit -v`, as a small server sets one) is kept by the Linux backend's
children instead of failing them; a limit on processes (tests/simulate/few_processes.py: `ulimit -u` or a container's
pids.max reached) and a sandbox whose import of torch runs out of memory (tests/simulate/small_memory.py) give every
question they stop a reason that names what the machine lacks and what the kit needs, never the student's code, the
grader's own failure or a reinstallation.
"""
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox.base import MEMORY_NEEDED, PROCESSES_NEEDED, could_not_start
from autograder.sandbox.limits import MEMORY_BYTES
from autograder.sandbox.choice import missing_pieces
from test_portable import _simulated_interpreter

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(bool(missing_pieces()), reason="both backends run only where the Linux one can")
BACKENDS = ("linux", "portable")


def _check(python: str | Path, backend: str, *numbers: str, preexec_fn: object = None) -> dict:
    """check NUMBERS --solutions --json's report, the given backend forced."""
    env = os.environ | {"AUTOGRADER_SANDBOX": backend}
    done = subprocess.run(
        [str(python), "-m", "autograder", "check", *numbers, "--solutions", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=preexec_fn,
    )
    assert done.stdout, done.stderr[-3000:]
    return json.loads(done.stdout)


def _blames_the_machine(reason: str) -> None:
    assert "not of your code" in reason and "this machine" in reason, reason
    assert (
        "grader itself failed" not in reason and "does the answer kill it" not in reason and "Reinstall" not in reason
    ), reason


def test_an_address_space_limit_on_the_grader_is_kept_by_the_linux_backends_children() -> None:
    def limit() -> None:
        lower = MEMORY_BYTES // 2  # below the limit a child asks for: the lower one stays
        resource.setrlimit(resource.RLIMIT_AS, (lower, lower))

    report = _check(sys.executable, "linux", "1", preexec_fn=limit)
    assert report["sandbox"]["backend"] == "linux"
    assert [question["status"] for question in report["questions"]] == ["passed"], report["questions"][0].get("reason")


@pytest.mark.parametrize("starts", [0, 1], ids=["none-left", "one-left"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_limit_on_processes_is_named(backend: str, starts: int, tmp_path: Path) -> None:
    python, _ = _simulated_interpreter(tmp_path / "interpreter", ("few_processes",), {"STARTS": starts})
    report = _check(python, backend, "1", "2")
    statuses = [question["status"] for question in report["questions"]]
    assert statuses == ["passed", "error"] if starts else ["error", "error"]  # with one start each: the first child
    for question in report["questions"][starts:]:
        assert question["score"] == 0
        _blames_the_machine(question["reason"])
        assert (
            "limit on processes" in question["reason"]
            and f"{PROCESSES_NEEDED[backend]} processes" in question["reason"]
        )


@pytest.mark.parametrize("backend", BACKENDS)
def test_too_little_memory_is_named_with_what_the_kit_needs(backend: str, tmp_path: Path) -> None:
    python, _ = _simulated_interpreter(tmp_path / "interpreter", ("small_memory",))
    report = _check(python, backend, "1")
    question = report["questions"][0]
    assert question["status"] == "error" and question["score"] == 0
    _blames_the_machine(question["reason"])
    assert "ran out of memory" in question["reason"] and f"{MEMORY_NEEDED[backend] >> 20} MB" in question["reason"]
    assert "AUTOGRADER_SANDBOX" not in question["reason"]


def test_a_sandbox_killed_before_it_said_anything_ran_out_of_memory(tmp_path: Path) -> None:
    """The kernel's answer to a machine out of memory is SIGKILL: a process killed before its first word said
    nothing."""
    errors = tmp_path / "worker-errors.txt"
    errors.write_bytes(b"")
    killed = could_not_start(errors, "portable", killed=True)
    assert (
        killed.environment
        and "ran out of memory" in killed.reason
        and f"{MEMORY_NEEDED['portable'] >> 20} MB" in killed.reason
    )
    assert "ran out of memory" not in could_not_start(errors, "portable").reason


def test_the_memory_left_counts_the_containers_limit(tmp_path: Path) -> None:
    from autograder.sandbox.machine import available_memory

    membership = tmp_path / "cgroup"
    (tmp_path / "v2" / "hub").mkdir(parents=True)  # cgroup v2, the notebook server's cgroup: 512 MB, 200 MB used
    (tmp_path / "v2" / "hub" / "memory.max").write_text(f"{512 << 20}\n")
    (tmp_path / "v2" / "hub" / "memory.current").write_text(f"{200 << 20}\n")
    membership.write_text("0::/hub\n")
    assert available_memory(tmp_path / "v2", membership) == 312 << 20
    (tmp_path / "v1" / "memory").mkdir(parents=True)  # cgroup v1 as a container sees it: its own cgroup at the root
    (tmp_path / "v1" / "memory" / "memory.limit_in_bytes").write_text(f"{350 << 20}\n")
    (tmp_path / "v1" / "memory" / "memory.usage_in_bytes").write_text(f"{50 << 20}\n")
    membership.write_text("4:memory:/docker/abc\n1:cpu:/\n")
    assert available_memory(tmp_path / "v1", membership) == 300 << 20
    (tmp_path / "v1" / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # no limit
    assert available_memory(tmp_path / "v1", membership) > 300 << 20


def test_the_systems_memory_is_read_from_meminfo_without_psutil(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On Linux the system's figure is /proc/meminfo's MemAvailable (what psutil reads), so that `check` does not pay
    psutil's import before its sandbox starts; without that file, psutil's figure."""
    import types

    from autograder.sandbox.machine import available_memory

    meminfo, membership = tmp_path / "meminfo", tmp_path / "cgroup"
    membership.write_text("0::/\n")  # no cgroup limit under tmp_path
    meminfo.write_text("MemTotal:        8000000 kB\nMemFree:          100000 kB\nMemAvailable:     409600 kB\n")
    fake = types.SimpleNamespace(virtual_memory=lambda: types.SimpleNamespace(available=123 << 20))
    monkeypatch.setitem(sys.modules, "psutil", fake)
    assert available_memory(tmp_path, membership, meminfo) == 400 << 20
    assert available_memory(tmp_path, membership, tmp_path / "none") == 123 << 20  # no meminfo: psutil's figure
    meminfo.write_text("MemTotal:        8000000 kB\n")  # an old kernel without MemAvailable: psutil's figure
    assert available_memory(tmp_path, membership, meminfo) == 123 << 20


def test_a_machine_short_of_memory_is_warned_before_grading(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from autograder.sandbox import machine, start_sandbox

    monkeypatch.setattr(machine, "available_memory", lambda: 300 << 20)
    start_sandbox().close()
    warning = capsys.readouterr().err
    assert "only 300 MB of memory are available" in warning and f"{MEMORY_NEEDED['linux'] >> 20} MB" in warning
    monkeypatch.setattr(machine, "available_memory", lambda: 4 << 30)
    start_sandbox().close()
    assert capsys.readouterr().err == ""
