"""Parent side of the sandbox: start the zygote (worker.py), run one child per question with a time limit."""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

MEMORY_BYTES = 4 << 30  # address-space limit of a child
OUTPUT_BYTES = 8 << 20  # largest file a child may write, its captured output included
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "SYSTEMROOT")


@dataclass
class Job:
    """One question to run: its id, wall-clock limit, and the payload the child reads."""

    id: int
    time_limit: float
    payload: dict


@dataclass
class Exit:
    """How a child ended: its exit code (negative: killed by that signal), whether the grader killed it."""

    code: int | None
    timed_out: bool
    workdir: Path
    seconds: float
    worker_error: str = ""
    orphans: int = 0  # processes the child started that were still running when it ended (all killed)


class Sandbox:
    """A zygote process that has imported torch, forking a limited child for each job."""

    def __init__(self, parallel: int = 2) -> None:
        """Start the zygote at once, so its import of torch overlaps the grader's."""
        self.parallel = parallel
        self.folder = Path(tempfile.mkdtemp(prefix="autograder-"))
        self.errors = open(self.folder / "worker-errors.txt", "w+b")
        self.process = self._start()

    def _start(self) -> subprocess.Popen:
        """Start a zygote: worker.py, which imports torch and then reads jobs on its stdin."""
        env = {key: os.environ[key] for key in KEPT_ENV if key in os.environ}
        env.update(HOME=str(self.folder), TMPDIR=str(self.folder), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        here = Path(__file__).resolve().parent
        return subprocess.Popen(
            [sys.executable, "-I", str(here / "worker.py"), str(here / "probes")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            cwd=self.folder,
            env=env,
        )

    def _worker_error(self) -> str:
        """The last line the zygote wrote on stderr, or a generic one."""
        self.errors.seek(0)
        lines = self.errors.read().decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else "the grading worker stopped unexpectedly"

    def run(self, jobs: list[Job], done: Callable[[int, Exit], None] | None = None) -> dict[int, Exit]:
        """Run every job, at most `parallel` at a time, longest limit first; kill each child at its time limit.

        done(job id, exit), when given, is called as each child ends, so its results can be read while others run.
        """
        queue, running, exits = sorted(jobs, key=lambda job: -job.time_limit), {}, {}
        pending, stdout = b"", self.process.stdout.fileno()
        alone: set[int] = set()  # jobs running when a zygote died: each runs again by itself, to find the culprit
        while queue or running:
            while queue and len(running) < (1 if alone & ({j.id for j in queue} | set(running)) else self.parallel):
                job = queue.pop(0)
                workdir = self.folder / f"job{job.id}"
                shutil.rmtree(workdir, ignore_errors=True)  # a job run again starts from an empty folder
                workdir.mkdir()
                payload = job.payload | {"id": job.id, "workdir": str(workdir), "time_limit": job.time_limit,
                                         "memory_bytes": MEMORY_BYTES, "output_bytes": OUTPUT_BYTES}
                try:
                    self.process.stdin.write((json.dumps(payload) + "\n").encode())
                    self.process.stdin.flush()
                except BrokenPipeError:  # the zygote has just died: select sees it next, and the job waits its turn
                    queue.insert(0, job)
                    break
                running[job.id] = {"job": job, "workdir": workdir, "pid": None, "start": None, "killed": False}
            started = [r for r in running.values() if r["start"] is not None and not r["killed"]]
            wait = min((r["start"] + r["job"].time_limit - time.monotonic() for r in started), default=None)
            ready, _, _ = select.select([stdout], [], [], None if wait is None else max(wait, 0))
            if ready:
                chunk = os.read(stdout, 1 << 16)
                if not chunk:  # the zygote itself died
                    self.process.wait()
                    for pipe in (self.process.stdin, self.process.stdout):
                        try:
                            pipe.close()
                        except OSError:
                            pass
                    suspects = list(running.values())
                    for entry in suspects:
                        if entry["pid"] is not None:
                            self._kill(entry["pid"])
                    if len(suspects) != 1 and not alone >= {e["job"].id for e in suspects}:
                        alone |= {e["job"].id for e in suspects}  # more than one was running: each again, alone
                        queue[:0] = [e["job"] for e in suspects]
                    else:  # one question was running (or none: the zygote cannot start): it is lost
                        for entry in suspects:
                            exits[entry["job"].id] = Exit(None, False, entry["workdir"], 0.0, "it stopped while this question ran (does the answer kill it?)")
                        if not suspects:
                            for job in queue:
                                exits[job.id] = Exit(None, False, self.folder, 0.0, self._worker_error())
                            return exits
                    running, pending = {}, b""
                    if queue:
                        self.process = self._start()
                        stdout = self.process.stdout.fileno()
                    continue
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    message = json.loads(line)
                    entry = running.get(message.get("id"))
                    if entry is None:
                        continue
                    if "pid" in message:
                        entry["pid"], entry["start"] = message["pid"], time.monotonic()
                    else:
                        self._kill(entry["pid"])  # whatever the child left behind in its group goes too
                        exits[message["id"]] = Exit(message["exit"], entry["killed"], entry["workdir"], time.monotonic() - entry["start"],
                                                    orphans=message.get("orphans", 0))
                        del running[message["id"]]
                        if done:
                            done(message["id"], exits[message["id"]])
            now = time.monotonic()
            for entry in running.values():
                if entry["start"] is not None and not entry["killed"] and now >= entry["start"] + entry["job"].time_limit:
                    entry["killed"] = True
                    self._kill(entry["pid"])
        return exits

    @staticmethod
    def _kill(pid: int) -> None:
        """SIGKILL the process group of pid, if it still exists."""
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def close(self) -> None:
        """Stop the zygote (killed: its children are all reaped, and a clean exit of torch costs half a second)."""
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout, self.errors):
            pipe.close()
        shutil.rmtree(self.folder, ignore_errors=True)
