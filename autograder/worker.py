"""The sandbox: a zygote process that imports torch once and forks one child per graded question.

Run as a script (never imported by the grader): `python -I worker.py PROBES_DIR`. It reads one JSON job
per line on stdin and answers JSON lines on stdout: {"id", "pid"} when a child starts, {"id", "exit",
"signal"} when it ends. Each child runs the student's code with resource limits, in its own process
group and temporary folder, and writes one result file per check with torch.save. The grader, in
another process, reads them back with torch.load(weights_only=True) and decides the score.
"""
import importlib.abc
import importlib.util
import json
import os
import resource
import select
import signal
import sys
import traceback

import torch

REFUSED_PACKAGES = ("reference", "solutions", "autograder")


def _load_package(name: str, folder: str) -> None:
    """Import the package in folder under name, without putting its parent on sys.path."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


class RefusedImport(importlib.abc.MetaPathFinder):
    """Refuses the grader's own packages and records every attempt."""

    def __init__(self, attempts: list) -> None:
        self.attempts = attempts

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top in REFUSED_PACKAGES:
            self.attempts.append(fullname)
            raise ImportError(f"importing `{fullname}` is not allowed in an answer: only torch, numpy, math and earlier exercise modules")
        return None


def _limit(job: dict) -> None:
    """Resource limits, process group, working folder and captured output for a child."""
    os.setsid()
    for name, value in (("RLIMIT_AS", job["memory_bytes"]), ("RLIMIT_FSIZE", job["output_bytes"]), ("RLIMIT_CORE", 0)):
        resource.setrlimit(getattr(resource, name), (value, value))
    cpu = int(job["time_limit"]) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a flood of output gets an error instead of a kill
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(job["workdir"])
    null = os.open(os.devnull, os.O_RDONLY)
    output = os.open("output.txt", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    for fd in [null, output, *job.pop("close_fds")]:  # the zygote's pidfds of sibling children stay out of reach
        os.close(fd)
    sys.stdin = open(0, closefd=False)
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)


def _save(value: object, name: str) -> None:
    """torch.save to name atomically, so a half-written file is never read."""
    torch.save(value, name + ".tmp")
    os.replace(name + ".tmp", name)


def _describe(error: BaseException, package_dir: str) -> dict:
    """Plain description of an exception: type, message, and the frames that are in the student's files."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.startswith(package_dir)]
    if isinstance(error, SyntaxError) and error.filename and error.filename.startswith(package_dir):
        frames.append(traceback.FrameSummary(error.filename, error.lineno or 0, "<module>", line=(error.text or "").strip()))
    where = [
        {"file": os.path.relpath(f.filename, os.path.dirname(package_dir)), "line": f.lineno, "function": f.name, "code": (f.line or "").strip()}
        for f in frames
    ]
    message = error.msg if isinstance(error, SyntaxError) else str(error)
    return {"type": type(error).__name__, "message": message[:500], "where": where}


def _run_child(job: dict) -> None:
    """Body of a forked child: limits, guards, import of the student's module, one result file per check."""
    _limit(job)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    attempts: list[str] = []
    sys.meta_path.insert(0, RefusedImport(attempts))
    sys.addaudithook(lambda event, args: event == "import" and str(args[0]).partition(".")[0] in REFUSED_PACKAGES and attempts.append(str(args[0])))
    probes = sys.modules["_probes"]
    spied = probes.spies.install(job["spy"])
    package_dir = job["package"]
    try:
        _load_package("exercises", package_dir)
        module = importlib.import_module("exercises." + job["module"])
    except BaseException as error:  # the student's import may raise anything, SystemExit included
        _save({"error": _describe(error, package_dir), "refused": list(attempts)}, "import.pt")
        return
    _save({"error": None, "refused": list(attempts)}, "import.pt")
    for index, check in enumerate(job["checks"]):
        outcomes = []
        for params in check["params"]:
            spied.clear()
            try:
                value = probes.PROBES[check["probe"]](module, params)
                outcomes.append({"ok": True, "value": probes.plain.plain(value), "spied": sorted(set(spied)), "refused": list(attempts)})
            except BaseException as error:  # noqa: B036 - the student may raise SystemExit or KeyboardInterrupt
                outcomes.append({"ok": False, "error": _describe(error, package_dir), "spied": sorted(set(spied)), "refused": list(attempts)})
        _save(outcomes, f"check_{index}.pt")


def _fork(job: dict) -> int:
    """Start a child for job; return its pid."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _run_child(job)
        except BaseException:  # noqa: B036 - nothing may escape the child
            code = 70
        finally:
            os._exit(code)
    return pid


def _say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve(probes_dir: str) -> None:
    """Zygote loop: fork a child per job line, report each child's pid and exit."""
    _load_package("_probes", probes_dir)
    _say({"ready": True})
    children: dict[int, tuple[object, int]] = {}  # pidfd -> (job id, pid)
    stdin, pending, open_input = sys.stdin.fileno(), b"", True
    while open_input or children:
        readable, _, _ = select.select(([stdin] if open_input else []) + list(children), [], [])
        for fd in readable:
            if fd == stdin:
                chunk = os.read(stdin, 1 << 16)
                open_input = bool(chunk)
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    job = json.loads(line)
                    job["close_fds"] = list(children)
                    pid = _fork(job)
                    children[os.pidfd_open(pid)] = (job["id"], pid)
                    _say({"id": job["id"], "pid": pid})
            else:
                job_id, pid = children.pop(fd)
                os.close(fd)
                _, status = os.waitpid(pid, 0)
                _say({"id": job_id, "exit": os.waitstatus_to_exitcode(status)})


if __name__ == "__main__":
    serve(sys.argv[1])
