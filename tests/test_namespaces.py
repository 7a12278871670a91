"""The Linux backend's namespaces (autograder/sandbox/linux/namespaces.py) under an ordinary user: each zygote is the
first process of user, PID and mount namespaces of its own, with a /proc of its own, so a question's child sees no
process but its zygote and itself, and cannot name the grader to signal it, change its limits, priority or CPUs,
whatever the seccomp filter does; where the kernel refuses the namespaces, the zygotes run as before.

Run as the ordinary user of tests/test_ordinary_user.py (made with useradd; KIT_TEST_USER_PYTHON for its Python)."""
import json
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest
from test_ordinary_user import ordinary_user  # noqa: F401 - the fixture

from autograder.sandbox.limits import CHILD_THREADS

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"),
    reason="Linux's namespaces, on the architectures whose system calls the kit knows",
)

# The namespace steps alone, no seccomp, no Landlock: the script's own process stands for the grader. Before the steps
# a forked process reaches it (the control: the same calls, which must work); after them, a child of the zygote tries.
STEPS = r"""
import errno, json, os, resource, sys
from autograder.sandbox.linux import namespaces

grader = os.getpid()


def reach(pid):
    '''What each call aimed at pid gives: "ok" or the error's name.'''
    tried = {}
    calls = {
        "kill": lambda: os.kill(pid, 0),
        "prlimit": lambda: resource.prlimit(pid, resource.RLIMIT_FSIZE, resource.prlimit(pid, resource.RLIMIT_FSIZE)),
        "setpriority": lambda: os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, pid)),
        "sched_setaffinity": lambda: os.sched_setaffinity(pid, os.sched_getaffinity(pid)),
    }
    for name, call in calls.items():
        try:
            call()
            tried[name] = "ok"
        except OSError as error:
            tried[name] = errno.errorcode.get(error.errno, str(error.errno))
    return tried


def in_child(work):
    '''Run work in a forked process; its JSON answer.'''
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            os.write(write, json.dumps(work()).encode())
        finally:
            os._exit(0)
    os.close(write)
    answer = b""
    while chunk := os.read(read, 65536):
        answer += chunk
    os.waitpid(pid, 0)
    return json.loads(answer)


def zygote():
    '''The middle process: enter, fork the zygote (it settles, then forks the question's child); its answer.'''
    assert namespaces.enter()
    return in_child(lambda: (namespaces.settle(), in_child(question))[1])


def question():
    seen = sorted(int(entry) for entry in os.listdir("/proc") if entry.isdigit())
    with open("/proc/self/status") as status:
        caps = {line.split(":")[0]: int(line.split()[1], 16) for line in status if line.startswith("Cap")}
    return {"pid": os.getpid(), "seen": seen, "grader": reach(grader), "caps": caps, "uid": os.getuid()}


print(json.dumps({"probe": namespaces.probe(), "control": in_child(lambda: reach(grader)), "uid": os.getuid(),
                  "inside": in_child(zygote)}))
"""

# A question's child of the real sandbox (Linux backend), two students (a zygote each): what it sees and its limits.
LOOK = """import os
import resource
import threading


def look():
    seen = sorted(int(entry) for entry in os.listdir('/proc') if entry.isdigit())
    return [os.getpid(), os.getppid(), seen, resource.getrlimit(resource.RLIMIT_NPROC)[0]]


def threads(most):
    threading.stack_size(1 << 16)
    stop, started = threading.Event(), 0
    try:
        for _ in range(most):
            threading.Thread(target=stop.wait, daemon=True).start()
            started += 1
    except RuntimeError:
        pass
    stop.set()
    return started
"""

SANDBOX = r"""
import json, os, sys
from pathlib import Path
from autograder.sandbox import start_sandbox

package = Path(sys.argv[1])
sandbox = start_sandbox()
found = []
try:
    for student in range(2):
        sandbox.renew()
        child = sandbox.open(package, "q01_causal_mask", 20)
        assert child.first()["ok"]
        answer = child.ask({"op": "call", "target": "look", "args": [], "kwargs": {}})
        started = child.ask({"op": "call", "target": "threads", "args": [int(sys.argv[2])], "kwargs": {}})
        found.append({"look": answer["value"], "pid": child.pid, "zygote": sandbox.process.pid,
                      "namespaces": sandbox.process.namespaces, "threads": started["value"]})
        child.close()
finally:
    sandbox.close()
print(json.dumps(found))
"""

PROBE = "import json; from autograder.sandbox.linux import namespaces; print(json.dumps(namespaces.probe()))"

# A seccomp filter that refuses unshare (EPERM), as a container's profile or a kernel that forbids unprivileged user
# namespaces would: installed by the script on itself, inherited by the sandbox it starts.
NO_UNSHARE = r"""
import ctypes, platform, struct
number = {"x86_64": 272, "aarch64": 97}[platform.machine()]
program = [(0x20, 0, 0, 0), (0x15, 0, 1, number), (0x06, 0, 0, 0x00050000 | 1), (0x06, 0, 0, 0x7FFF0000)]
filters = ctypes.create_string_buffer(b"".join(struct.pack("=HBBI", *instruction) for instruction in program))
fprog = ctypes.create_string_buffer(struct.pack("@HP", len(program), ctypes.addressof(filters)))
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0 and libc.prctl(22, 2, fprog, 0, 0) == 0  # no new privileges; the filter
"""


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder of the temporary folder the ordinary user may read (pytest's tmp_path is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="kit-namespaces-"))
    try:
        folder.chmod(0o755)
        yield folder
    finally:
        shutil.rmtree(folder)


def _as_user(user: tuple[int, int, dict], script: str, *args: str, folder: Path) -> object:
    """The JSON that script prints, run by the ordinary user's Python in folder."""
    uid, gid, env = user
    done = subprocess.run(
        [env["KIT_TEST_PYTHON"], "-c", script, *args],
        user=uid,
        group=gid,
        extra_groups=[],
        env={**env, "HOME": str(folder), "AUTOGRADER_SANDBOX": "linux"},
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _namespaces_or_skip(user: tuple[int, int, dict], folder: Path) -> None:
    """Skip where this kernel does not let an ordinary user make the namespaces (then the zygotes run as before)."""
    if not _as_user(user, PROBE, folder=folder):
        pytest.skip("this kernel refuses unprivileged user namespaces (or a fresh /proc in them)")


def test_a_child_in_the_namespaces_sees_and_reaches_no_other_process(
    ordinary_user: tuple[int, int, dict],  # noqa: F811 - the fixture
    shared_folder: Path,
) -> None:
    """The namespace steps alone (no seccomp filter, no Landlock): a process of the same user reaches the grader
    (signal, limits, priority, CPUs: the control), a child of a zygote that entered the namespaces cannot name it
    (ESRCH: no such process in its namespace), lists in its /proc only its zygote (pid 1) and itself, has no
    capability, and keeps the user's own id."""
    _namespaces_or_skip(ordinary_user, shared_folder)
    found = _as_user(ordinary_user, STEPS, folder=shared_folder)
    assert found["probe"] is True
    assert found["control"] == dict.fromkeys(("kill", "prlimit", "setpriority", "sched_setaffinity"), "ok")
    inside = found["inside"]
    assert inside["grader"] == dict.fromkeys(("kill", "prlimit", "setpriority", "sched_setaffinity"), "ESRCH")
    assert inside["pid"] == 2 and inside["seen"] == [1, 2]
    assert inside["caps"]["CapEff"] == inside["caps"]["CapPrm"] == inside["caps"]["CapInh"] == 0
    assert inside["uid"] == found["uid"] == ordinary_user[0]


def _look_package(folder: Path) -> Path:
    """A package whose question 1 says what its child sees."""
    package = folder / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text(LOOK)
    return package


def test_each_zygote_of_an_ordinary_users_sandbox_has_namespaces_of_its_own(
    ordinary_user: tuple[int, int, dict],  # noqa: F811 - the fixture
    shared_folder: Path,
) -> None:
    """The sandbox run by an ordinary user: each student's zygote is pid 1 of its own namespaces, so a question's
    child lists only its zygote and itself; the grader still knows each child's and zygote's pid as it sees them (the
    zygote says the child's through the grader's /proc); a child may run CHILD_THREADS threads more than its namespace
    runs, a bound of the question's own, which its 64 threads all fit in (the middle process that made the namespaces,
    which the kernel counts until it is reaped, is not in the zygote's user namespace)."""
    _namespaces_or_skip(ordinary_user, shared_folder)
    package = _look_package(shared_folder)
    found = _as_user(ordinary_user, SANDBOX, str(package), str(CHILD_THREADS + 10), folder=shared_folder)
    assert len({student["zygote"] for student in found}) == 2
    for student in found:
        pid, parent, seen, threads = student["look"]
        assert student["namespaces"] is True
        assert parent == 1 and seen == [1, pid] and student["pid"] not in (None, pid)
        assert threads == 2 + CHILD_THREADS  # the zygote's task and the child's, then its own 64
        assert student["threads"] == CHILD_THREADS  # all of them, and no more (the Guard counts, and the kernel)


def test_where_the_kernel_refuses_the_namespaces_the_zygotes_run_as_before(
    ordinary_user: tuple[int, int, dict],  # noqa: F811 - the fixture
    shared_folder: Path,
) -> None:
    """A grader whose kernel refuses unshare (here a seccomp filter the test puts on it): the probe says no, the
    zygotes are forked as before (no namespace: the child sees the machine's processes, among them the grader), and
    the questions are graded."""
    package = _look_package(shared_folder)
    found = _as_user(ordinary_user, NO_UNSHARE + SANDBOX, str(package), "1", folder=shared_folder)
    for student in found:
        pid, parent, seen, _threads = student["look"]
        assert student["namespaces"] is False and student["pid"] == pid
        assert parent == student["zygote"] and len(seen) > 2 and student["zygote"] in seen
