"""The portable backend's child: one spawned process per question, on any platform Python runs on.

Run as a script (never imported by the grader): `python -I worker.py`, in its private folder. Its standard input and
output are its channel to the grader, one frame (sandbox/codec.py) at a time. It imports torch and the child's side
of the sandbox at once, says {"ready"}, and waits, warm, for its job: {"package", "module", "preload",
"memory_bytes", "output_bytes", "time_limit"}, then its answer key (the first frame the shared loop reads). Then it
imports what the job preloads, puts up the kernel's walls where it has them (walls.py: Landlock and seccomp, on Linux,
as the Linux backend's children have them), sets the limits the platform has (resource where it exists), says
{"started"} (the question's time counts from here), sends the student's prints to output.txt in its folder, and runs
the shared loop (child/serve.py): guards, the student's module, the requests. The grader enforces the time limit by
killing the whole process tree, and watches the memory too (some kernels take an address-space limit without enforcing
it, some have none)."""
import errno
import gc
import importlib
import io
import os
import runpy
import sys
import time

_boot = runpy.run_path(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "boot.py"))
_boot["extend_path"]()  # torch where the grader found it (a user site, conda, PYTHONPATH)

import torch  # noqa: E402

_child = _boot["load_child"]()
_walls = _boot["load_walls"]()
from _limits import CHILD_FILES, CHILD_SIGNALS, CPU_GRACE_SECONDS  # noqa: E402 - loaded by path with _child

OWN_MODULES = [
    name for name in sys.modules if name in ("_child", "_codec", "_walls", "_limits") or name.startswith("_child.")
]


def _preload(modules: list[str]) -> None:
    """Import modules before the question's time starts (torch imports some lazily, at a cost)."""
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as error:  # noqa: BLE001 - a module this torch build lacks: the child goes on without it
            print(f"preloading {name} failed: {type(error).__name__}: {error}", file=sys.stderr, flush=True)


def _limit(job: dict) -> None:
    """The kernel's limits where this platform has `resource` (memory, file size, core dumps, CPU time, open
    descriptors, queued signals); the grader's watchdog measures the memory too."""
    try:
        import resource  # POSIX only: on Windows the job object and the grader's watchdog limit the child
        import signal
    except ImportError:
        return
    # CPU time counts from this process's start: its import of torch
    cpu = int(time.process_time() + job["time_limit"]) + CPU_GRACE_SECONDS
    limits = {
        "RLIMIT_AS": (job["memory_bytes"],) * 2,
        "RLIMIT_FSIZE": (job["output_bytes"],) * 2,
        "RLIMIT_CORE": (0, 0),
        "RLIMIT_CPU": (cpu, cpu + 1),
        "RLIMIT_NOFILE": (CHILD_FILES, CHILD_FILES),
    }
    for name, values in limits.items():
        try:
            resource.setrlimit(getattr(resource, name), values)
        # a limit this platform does not have or refuses (macOS's address space)
        except (AttributeError, ValueError, OSError):
            pass
    _walls.hold_signals(CHILD_SIGNALS)  # counted per user, Linux only
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a flood of output gets an error instead of a kill


def _wall(landlock: "_walls.Landlock", job: dict, workdir: str) -> None:
    """The kernel's walls where it has them (Linux): Landlock (files: C code's too) and seccomp (no signal to another
    process, no new process, fresh copies of os included), as the Linux backend puts them up; nothing elsewhere."""
    landlock.restrict(landlock.plan(workdir, job["package"], job["hidden"]))
    _walls.seccomp(_walls.seccomp_program())


def _detect_cpu() -> None:
    """Have torch detect the CPU now (cpuinfo, which ATen runs once, at the first operator that picks a kernel for
    the CPU's features): where the kernel refuses what it asks (an arm64 machine under seccomp, a container that
    hides /sys), its C code writes "Error in cpuinfo: ..." to standard error, which must reach the sandbox's log, not
    the student's output."""
    capability = getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", None)
    if capability is not None:
        capability()
    torch.ones(2, 2) @ torch.ones(2, 2)  # noqa: B018 - an operator dispatched by CPU capability, where the call above is missing


def _binary(fd: int) -> int:
    """fd, made binary where descriptors have a text mode (Windows): a frame's bytes must reach the grader unchanged."""
    if hasattr(os, "O_BINARY"):
        import msvcrt  # Windows only

        msvcrt.setmode(fd, os.O_BINARY)
    return fd


class _CappedOutput(io.TextIOWrapper):
    """The student's print() and sys.stdout: refused once the output file holds output_bytes (the error a kernel
    file-size limit gives), where no kernel limit is set; the grader's watchdog stops C code that writes past it."""

    def __init__(self, fd: int, limit: int) -> None:
        super().__init__(io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors="replace", line_buffering=True)
        self.limit = limit

    def write(self, text: str) -> int:
        """Write text, unless the file would outgrow the limit."""
        if os.fstat(self.fileno()).st_size + len(text) > self.limit:
            raise OSError(errno.EFBIG, "File too large")
        return super().write(text)


def _capture_output(limit: int) -> tuple[int, int]:
    """Move the channel off the standard descriptors and send what the student prints (C code included) to output.txt;
    the channel's (requests, answers) descriptors."""
    requests, answers = _binary(os.dup(0)), _binary(os.dup(1))
    null = os.open(os.devnull, os.O_RDONLY)
    output = os.open("output.txt", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(null)
    os.close(output)
    sys.stdin = open(0, closefd=False)
    sys.stdout, sys.stderr = _CappedOutput(1, limit), _CappedOutput(2, limit)
    return requests, answers


def main() -> int:
    """Wait warm for the job, then run it; the exit status (serve.CHILD_FAILED when the child's own loop failed)."""
    serve = _child.serve
    _binary(0), _binary(1)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    _detect_cpu()
    landlock = _walls.Landlock()
    if landlock.abi:
        # what its Landlock plan reads, found while this spare waits for its job
        _walls.root_only(), _walls.python_folders()
    gc.collect()
    serve.write_frame(1, {"ready": True})
    job = serve.read_value(0)
    if job is None:  # the grader closed the sandbox before giving this spare a job
        return 0
    _preload(job["preload"])
    workdir = os.getcwd()
    _wall(landlock, job, workdir)
    _limit(job)  # after the walls: Landlock's rules hold a descriptor each until they are applied
    serve.write_frame(1, {"started": True, "cpu": time.process_time()})
    sys.dont_write_bytecode = True  # no __pycache__ written into the student's package
    requests, answers = _capture_output(job["output_bytes"])
    try:
        serve.run(requests, answers, job["package"], job["module"], workdir, job["hidden"], OWN_MODULES)
    except BaseException:  # noqa: BLE001 - nothing may escape the child
        return serve.CHILD_FAILED
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # no interpreter shutdown: torch's takes half a second, and the student's atexit hooks never run
