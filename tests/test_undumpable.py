"""The grader's own processes are not dumpable (sandbox/walls.py's set_dumpable): where the kernel refuses the
namespaces that hide them (linux/namespaces.py), a question's child runs under the grader's own user, and /proc would
otherwise let it list the descriptors of the grader, the pristine process and its zygote, and (without Landlock,
whose ptrace scope also refuses it) read their environment and memory map. Run as the ordinary user of
tests/test_ordinary_user.py, with namespaces and Landlock both refused by a seccomp filter the test puts on the grader
(as a container's profile or an older kernel would)."""
import platform
import sys
from pathlib import Path

import pytest
from test_namespaces import _as_user, shared_folder  # noqa: F401 - the fixture
from test_ordinary_user import ordinary_user  # noqa: F401 - the fixture

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"),
    reason="Linux's /proc and prctl, on the architectures whose system calls the kit knows",
)

# A seccomp filter that refuses unshare (EPERM: no namespace) and landlock_create_ruleset (ENOSYS: no Landlock),
# installed by the script on itself, inherited by the sandbox it starts.
NO_NAMESPACES_NOR_LANDLOCK = r"""
import ctypes, platform, struct
unshare = {"x86_64": 272, "aarch64": 97}[platform.machine()]
program = [(0x20, 0, 0, 0), (0x15, 0, 1, unshare), (0x06, 0, 0, 0x00050000 | 1), (0x15, 0, 1, 444),
           (0x06, 0, 0, 0x00050000 | 38), (0x06, 0, 0, 0x7FFF0000)]
filters = ctypes.create_string_buffer(b"".join(struct.pack("=HBBI", *instruction) for instruction in program))
fprog = ctypes.create_string_buffer(struct.pack("@HP", len(program), ctypes.addressof(filters)))
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0 and libc.prctl(22, 2, fprog, 0, 0) == 0  # no new privileges; the filter
"""

# Question 1's module: what its child may read of the grader's processes and of itself in /proc.
PEEK = '''import os


def _parent(pid):
    with open(f"/proc/{pid}/stat") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[1])


def _try(read):
    try:
        read()
        return "ok"
    except OSError as error:
        return type(error).__name__


def _look(pid):
    found = {"fd": _try(lambda: os.listdir(f"/proc/{pid}/fd"))}
    for name in ("environ", "maps", "status", "stat", "limits", "cmdline"):
        found[name] = _try(lambda: open(f"/proc/{pid}/{name}", "rb").read())
    return found


def peek():
    zygote = os.getppid()
    pristine = _parent(zygote)
    grader = _parent(pristine)
    mine = _look("self")
    mine["fd"] = _try(lambda: os.listdir(f"/proc/{os.getpid()}/fd"))
    return {"grader": _look(grader), "pristine": _look(pristine), "zygote": _look(zygote), "self": mine,
            "pids": [grader, pristine, zygote]}
'''

SANDBOX = r"""
import json, os, sys
from pathlib import Path
from autograder.sandbox import start_sandbox, missing_walls

package = Path(sys.argv[1])
sandbox = start_sandbox()
try:
    child = sandbox.open(package, "q01_causal_mask", 20)
    assert child.first()["ok"]
    answer = child.ask({"op": "call", "target": "peek", "args": [], "kwargs": {}})["value"]
    answer["namespaces"] = sandbox.process.namespaces
    answer["missing"] = missing_walls()
    answer["me"] = os.getpid()
    answer["child fd"] = len(os.listdir(f"/proc/{child.pid}/fd"))  # the grader still lists the child's descriptors
    child.close()
finally:
    sandbox.close()
print(json.dumps(answer))
"""

SHOWN = ("status", "stat", "limits", "cmdline")  # what /proc shows any process of the machine: still readable


def test_a_child_under_the_graders_user_cannot_look_into_the_graders_processes(
    ordinary_user: tuple[int, int, dict],  # noqa: F811 - the fixture
    shared_folder: Path,  # noqa: F811 - the fixture
) -> None:
    """No namespace, no Landlock, the same user: a question's child cannot list the descriptors of the grader, the
    pristine process or its zygote, nor read their environment or memory map (PermissionError: they are not
    dumpable); what /proc shows of every process (status, stat, limits, cmdline) stays readable, the child still reads
    its own /proc/self (maps, its descriptors), and the grader still lists the child's descriptors (the disk check
    counts the files it holds open)."""
    package = shared_folder / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text(PEEK)
    found = _as_user(ordinary_user, NO_NAMESPACES_NOR_LANDLOCK + SANDBOX, str(package), folder=shared_folder)
    assert found["namespaces"] is False and "Landlock" in found["missing"], found
    assert found["pids"][0] == found["me"]
    for process in ("grader", "pristine", "zygote"):
        seen = found[process]
        assert {name: seen[name] for name in ("fd", "environ", "maps")} == dict.fromkeys(
            ("fd", "environ", "maps"), "PermissionError"
        ), (process, seen)
        assert {name: seen[name] for name in SHOWN} == dict.fromkeys(SHOWN, "ok"), (process, seen)
    assert {name: found["self"][name] for name in ("fd", "maps", "status")} == dict.fromkeys(
        ("fd", "maps", "status"), "ok"
    ), found["self"]
    assert found["child fd"] > 0
