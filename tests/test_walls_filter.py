"""The seccomp filter of sandbox/walls.py, applied to a bare process: what it refuses with an errno, by system call and
by argument. The attacks of tests/attacks/ meet the same filter inside the sandbox; here each answer of the kernel is
read directly, before and after the filter, so that a refusal is the filter's and not the machine's."""
import errno
import json
import os
import platform
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"),
    reason="the seccomp filter knows the system calls of Linux on x86_64 and aarch64",
)

# Each call by its number (from the kernel's headers, not from the filter's own table), through libc's syscall: the
# errno it got, or "ok". A pipe's size is read back after each F_SETPIPE_SZ that passed.
PROBE = r"""
import ctypes, errno, json, os, platform, sys
from autograder.sandbox import walls

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
numbers = {
    "x86_64": {"inotify_init": 253, "inotify_init1": 294, "fanotify_init": 300, "fcntl": 72, "ioctl": 16, "prctl": 157,
               "fallocate": 285, "io_setup": 206, "io_destroy": 207},
    "aarch64": {"inotify_init1": 26, "fanotify_init": 262, "fcntl": 25, "ioctl": 29, "prctl": 167, "fallocate": 47,
                "io_setup": 0, "io_destroy": 1},
}[platform.machine()]
if sys.argv[1] == "filtered" and not walls.seccomp(walls.seccomp_program()):
    raise SystemExit("the filter could not be put up")
seen = {}

def call(label, name, *args):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(numbers[name]), *(ctypes.c_ulong(a) for a in args))
    seen[label] = "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]
    return result

for label, name, args in (("inotify_init", "inotify_init", ()), ("inotify_init1", "inotify_init1", (0,)),
                          ("fanotify_init", "fanotify_init", (0, 0))):
    if name in numbers:
        fd = call(label, name, *args)
        if fd >= 0:
            os.close(fd)
read_end, write_end = os.pipe()
for label, size in (("shrink to one page", 4096), ("the default", 65536), ("one byte past the default", 65537),
                    ("1 MiB", 1 << 20), ("a page with the high half set", (1 << 32) | 4096)):
    if call(label, "fcntl", write_end, 1031, size) >= 0:
        seen[label] += f" {libc.syscall(ctypes.c_long(numbers['fcntl']), write_end, 1032)}"
call("F_GETPIPE_SZ", "fcntl", write_end, 1032)
call("ioctl with the same number", "ioctl", write_end, 1031, 1 << 20)
call("PR_SET_DUMPABLE 0", "prctl", 4, 0, 0, 0, 0)
seen["dumpable"] = libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
call("PR_SET_NAME", "prctl", 15, ctypes.addressof(ctypes.create_string_buffer(b"probe")), 0, 0, 0)
with open(sys.argv[2], "wb") as handle:
    call("fallocate KEEP_SIZE", "fallocate", handle.fileno(), 1, 0, 1 << 20)  # FALLOC_FL_KEEP_SIZE, 1 MiB
    seen["blocks kept"] = os.fstat(handle.fileno()).st_blocks * 512
    os.posix_fallocate(handle.fileno(), 0, 3 << 16)
    seen["posix_fallocate"] = [os.fstat(handle.fileno()).st_size, os.fstat(handle.fileno()).st_blocks * 512]
context = ctypes.c_ulong(0)
if call("io_setup", "io_setup", 1, ctypes.addressof(context)) >= 0:
    libc.syscall(ctypes.c_long(numbers["io_destroy"]), context)
print(json.dumps(seen))
"""


def probe(mode: str, scratch: Path) -> dict[str, str]:
    """The kernel's answers in a fresh process, with the filter put up (mode "filtered") or not ("bare"); scratch: a
    folder for the file it allocates blocks to."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode, str(scratch / f"{mode}.bin")],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_per_user_kernel_objects_and_large_pipes_are_refused_with_eperm(tmp_path: Path):
    """inotify and fanotify instances (counted per user) and a pipe grown past its default size (pipe buffers are
    counted per user too) fail with EPERM under the filter, where the same process without it gets them; a pipe set
    to its default size or smaller keeps working, as does reading its size, and an ioctl of the same number is not
    judged by fcntl's rule."""
    bare, filtered = probe("bare", tmp_path), probe("filtered", tmp_path)
    assert bare["inotify_init1"] == "ok" and bare["1 MiB"] == f"ok {1 << 20}", bare
    refused = ["inotify_init", "inotify_init1", "fanotify_init", "one byte past the default", "1 MiB"]
    refused.append("a page with the high half set")
    for label in refused:
        if label in filtered:  # aarch64 has no inotify_init
            assert filtered[label] == "EPERM", (label, filtered)
    assert filtered["shrink to one page"] == "ok 4096", filtered
    assert filtered["the default"] == "ok 65536", filtered
    assert filtered["F_GETPIPE_SZ"] == "ok", filtered
    assert filtered["ioctl with the same number"] == bare["ioctl with the same number"] != "EPERM", (bare, filtered)


def test_a_child_cannot_make_itself_not_dumpable(tmp_path: Path):
    """prctl(PR_SET_DUMPABLE, 0) fails with EPERM under the filter and the process stays dumpable: a child that is not
    dumpable would hide its /proc/<pid>/fd from a grader run by an ordinary user, and with it the files it holds
    open that no folder lists (base.held_unlisted). Other prctl options (a thread's name, as torch sets) still work."""
    bare, filtered = probe("bare", tmp_path), probe("filtered", tmp_path)
    assert bare["PR_SET_DUMPABLE 0"] == "ok" and bare["dumpable"] == 0, bare
    assert filtered["PR_SET_DUMPABLE 0"] == "EPERM" and filtered["dumpable"] == 1, filtered
    assert bare["PR_SET_NAME"] == filtered["PR_SET_NAME"] == "ok", (bare, filtered)


def test_blocks_taken_without_writing_are_refused_as_unsupported(tmp_path: Path):
    """fallocate, which takes a file's blocks without writing them (gigabytes a second; with FALLOC_FL_KEEP_SIZE past
    the output limit, which reads the file's size), fails with EOPNOTSUPP under the filter, as on a file system
    without it, where the same process without it gets the blocks; posix_fallocate still gives the file its blocks
    (the C library writes them itself)."""
    bare, filtered = probe("bare", tmp_path), probe("filtered", tmp_path)
    assert bare["fallocate KEEP_SIZE"] == "ok" and bare["blocks kept"] >= 1 << 20, bare
    unsupported = errno.errorcode[errno.EOPNOTSUPP]
    assert filtered["fallocate KEEP_SIZE"] == unsupported and filtered["blocks kept"] == 0, filtered
    assert filtered["posix_fallocate"][0] == 3 << 16 and filtered["posix_fallocate"][1] >= 3 << 16, filtered


def test_a_count_the_whole_machine_shares_is_not_implemented(tmp_path: Path):
    """io_setup, whose contexts draw on fs.aio-max-nr, one count for every process of the machine (16 calls took it
    all), fails with ENOSYS under the filter, as on a kernel without native AIO, where the same process without it
    gets a context."""
    bare, filtered = probe("bare", tmp_path), probe("filtered", tmp_path)
    assert bare["io_setup"] == "ok", bare
    assert filtered["io_setup"] == "ENOSYS", filtered


LEASE = r"""
import ctypes, fcntl, os, sys
from autograder.sandbox import walls

path = sys.argv[2]
fd = os.open(path, os.O_RDONLY)
if sys.argv[1] == "filtered" and not walls.seccomp(walls.seccomp_program()):
    raise SystemExit("the filter could not be put up")
libc = ctypes.CDLL(None, use_errno=True)
print(libc.fcntl(fd, 1024, fcntl.F_RDLCK), flush=True)  # F_SETLEASE past Python's fcntl: no audit event
"""


def test_a_lease_on_a_file_kills_the_process(tmp_path: Path):
    """fcntl(F_SETLEASE), which the kernel allows on a file its caller owns and which makes every other process's open
    of it wait up to lease-break-time (45 s), kills the process under the filter (SIGSYS), where the same process
    without it takes the lease."""
    path = tmp_path / "owned.txt"
    path.write_text("the caller's own file")
    done = {}
    for mode in ("bare", "filtered"):
        done[mode] = subprocess.run(
            [sys.executable, "-c", LEASE, mode, str(path)],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done["bare"].returncode == 0 and done["bare"].stdout.strip() == "0", done["bare"]
    assert done["filtered"].returncode == -signal.SIGSYS and not done["filtered"].stdout, done["filtered"]
