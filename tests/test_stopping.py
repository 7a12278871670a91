"""SIGTERM stops `grade DIR` as Ctrl-C does, and no sandbox process outlives the grader by more than a second.

One student whose first question loops forever (question 1's time limit is 20 s): the run is stopped while that
question's child runs, then the test looks for the grader's traces: the exit status, the log's `interrupted` line
naming the signal, the lock on OUT (a new run must get it), the temporary folder of copies, and every process of
the sandbox (the zygote and its children, found by their command line).
"""
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

KIT = Path(__file__).resolve().parent.parent
LOOP = "    while True:\n        pass\n"


def _sandbox_processes(kit: Path = KIT, under: int | None = None) -> dict[int, int]:
    """pid -> parent pid of every sandbox process of the kit at kit (worker.py: the pristine process, its zygotes and
    their children); only those descending from the process `under` when given (other tests, in another xdist worker,
    grade with the same kit meanwhile)."""
    found, parents = {}, {}
    worker = str(kit / "autograder" / "sandbox").encode()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                command = Path(f"/proc/{name}/cmdline").read_bytes()
                parent = int(Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            parents[int(name)] = parent
            if worker in command and b"worker.py" in command:
                found[int(name)] = parent

    def descends(pid: int) -> bool:
        while pid > 1 and pid != under:
            pid = parents.get(pid, 0)
        return pid == under

    return {pid: parent for pid, parent in found.items() if under is None or descends(pid)}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigterm_stops_a_run_cleanly_and_kills_the_running_question(tmp_path: Path) -> None:
    """Exit 143, `interrupted` logged with SIGTERM, lock free, no copies left, every sandbox process gone within a
    second."""
    student = tmp_path / "class" / "looper" / "exercises"
    shutil.copytree(KIT / "solutions", student)
    module = student / "q01_causal_mask.py"
    text = module.read_text()
    head = "def prefix_average(x: Tensor) -> Tensor:\n"
    assert head in text
    module.write_text(text.replace(head, head + LOOP, 1))
    out = tmp_path / "out"
    before = set(_sandbox_processes())
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            str(tmp_path / "class"),
            "--out",
            str(out),
            "--jobs",
            "1",
            "--quiet",
        ],
        cwd=KIT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        # until a child of a new zygote runs the loop (pristine process, zygote, child)
        while time.monotonic() < deadline:
            mine = {pid: parent for pid, parent in _sandbox_processes(under=run.pid).items() if pid not in before}
            # a question's child: its zygote's parent is ours too
            if any(mine.get(parent) in mine for parent in mine.values()):
                break
            assert run.poll() is None, run.communicate()
            time.sleep(0.1)
        else:
            pytest.fail("the looping question never started")
        time.sleep(0.5)
        run.send_signal(signal.SIGTERM)
        _stdout, stderr = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    ended = time.monotonic()
    while set(mine) & set(_sandbox_processes()) and time.monotonic() - ended < 1.0:
        time.sleep(0.02)
    assert not set(mine) & set(_sandbox_processes()), "sandbox processes outlived the grader by more than a second"
    assert run.returncode == 128 + signal.SIGTERM, stderr
    assert "interrupted" in stderr and "run the same command again" in stderr
    last = json.loads((out / "grading.log").read_text().splitlines()[-1])
    assert last["event"] == "interrupted" and last["signal"] == "SIGTERM"
    with open(out / ".grading.lock", "a") as handle:  # released: a new run may take it
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    assert not list(Path(tempfile.gettempdir()).glob(f"autograder-class-{run.pid}-*"))
    assert not (out / "looper.json").exists()  # not graded: the next run grades it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_grader_killed_outright_takes_its_sandbox_with_it(tmp_path: Path) -> None:
    """SIGKILL skips every cleanup of the grader: the zygote, seeing its input close, kills its children and exits,
    and a child whose zygote dies is killed by the kernel (its parent-death signal). Nothing is left a second
    later."""
    kit = tmp_path / "kit"
    shutil.copytree(KIT, kit, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", ".autograder", "plots"))
    module = kit / "exercises" / "q01_causal_mask.py"
    module.write_text(
        (KIT / "solutions" / "q01_causal_mask.py")
        .read_text()
        .replace("def prefix_average(x: Tensor) -> Tensor:\n", "def prefix_average(x: Tensor) -> Tensor:\n" + LOOP, 1)
    )
    before = set(_sandbox_processes(kit))
    run = subprocess.Popen(
        [sys.executable, "-m", "autograder", "check", "1"],
        cwd=kit,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ | {"AUTOGRADER_SANDBOX": "linux"},
    )
    try:
        deadline = time.monotonic() + 120
        # until a child of the new zygote runs the loop (pristine process, zygote, child)
        while time.monotonic() < deadline:
            mine = {pid: parent for pid, parent in _sandbox_processes(kit).items() if pid not in before}
            # a question's child: its zygote's parent is ours too
            if any(mine.get(parent) in mine for parent in mine.values()):
                break
            assert run.poll() is None
            time.sleep(0.1)
        else:
            pytest.fail("the looping question never started")
    finally:
        run.kill()
        run.wait()
    ended = time.monotonic()
    while set(mine) & set(_sandbox_processes(kit)) and time.monotonic() - ended < 1.0:
        time.sleep(0.02)
    assert not set(mine) & set(_sandbox_processes(kit)), (
        "sandbox processes outlived a killed grader by more than a second"
    )
