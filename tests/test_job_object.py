"""The Windows Job Object of the portable backend, without Windows: its structure's layout and the calls made to
kernel32.

The layout is checked against the size Windows gives JOBOBJECT_EXTENDED_LIMIT_INFORMATION on 64 bits (fixed-width
fields make it the same here); the calls are recorded by a stand-in kernel32, the one thing only a Windows runner of
.github/workflows/student-path.yml can run for real.
"""
import ctypes
import subprocess
import sys

import pytest

from autograder.sandbox.portable.job_object import (
    EXTENDED_LIMIT_INFORMATION,
    KILLED,
    LIMIT_JOB_MEMORY,
    LIMIT_KILL_ON_JOB_CLOSE,
    ExtendedLimits,
    for_child,
)

MEMORY = 4 << 30


class Kernel32:
    """Records each call; returns handle numbers, and fails the call named in refuse."""

    def __init__(self, refuse: str = "") -> None:
        self.calls: list[tuple] = []
        self.refuse = refuse

    def __getattr__(self, name: str) -> object:
        def call(*args: object) -> int:
            if name == "SetInformationJobObject":
                limits = args[2]._obj  # what ctypes.byref points at
                args = (args[0], args[1], limits.BasicLimitInformation.LimitFlags, limits.JobMemoryLimit, args[3])
            self.calls.append((name, *args))
            if name == self.refuse:
                return 0
            return {"CreateJobObjectW": 11, "OpenProcess": 22}.get(name, 1)

        return call


class Child:
    pid = 4242


@pytest.mark.skipif(ctypes.sizeof(ctypes.c_void_p) != 8, reason="the size checked is the 64-bit one")
def test_the_limits_structure_has_windows_layout() -> None:
    assert ctypes.sizeof(ExtendedLimits) == 144
    assert ExtendedLimits.JobMemoryLimit.offset == 120 and ExtendedLimits.IoInfo.offset == 64


def test_the_child_is_placed_in_a_job_that_caps_its_trees_memory_and_kills_it() -> None:
    kernel32 = Kernel32()
    job = for_child(Child(), MEMORY, kernel32)
    assert kernel32.calls == [
        ("CreateJobObjectW", None, None),
        ("OpenProcess", 0x0101, False, 4242),
        (
            "SetInformationJobObject",
            11,
            EXTENDED_LIMIT_INFORMATION,
            LIMIT_JOB_MEMORY | LIMIT_KILL_ON_JOB_CLOSE,
            MEMORY,
            ctypes.sizeof(ExtendedLimits),
        ),
        ("AssignProcessToJobObject", 11, 22),
        ("CloseHandle", 22),
    ]
    kernel32.calls.clear()
    job.kill()
    job.close()
    job.close()  # twice: the handle is closed once
    assert kernel32.calls == [("TerminateJobObject", 11, KILLED), ("CloseHandle", 11)]


@pytest.mark.parametrize(
    "refused", ["CreateJobObjectW", "OpenProcess", "SetInformationJobObject", "AssignProcessToJobObject"]
)
def test_a_refused_job_leaves_the_watchdog_alone_and_no_handle_open(refused: str) -> None:
    kernel32 = Kernel32(refuse=refused)
    assert for_child(Child(), MEMORY, kernel32) is None
    opened = {11} if refused != "CreateJobObjectW" else set()
    opened |= {22} if refused not in ("CreateJobObjectW", "OpenProcess") else set()
    assert {call[1] for call in kernel32.calls if call[0] == "CloseHandle"} == opened


def test_a_real_job_kills_the_child_or_there_is_none() -> None:
    """Where the platform has jobs (a Windows runner), a real child is placed in one and killed through it; elsewhere
    none."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        job = for_child(child, MEMORY)
        if not hasattr(ctypes, "WinDLL"):
            assert job is None
            return
        assert job is not None
        job.kill()
        assert child.wait(timeout=30) == KILLED
        job.close()
    finally:
        child.kill()
        child.wait()
