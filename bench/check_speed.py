"""Cost of `python -m autograder check 3` against a bare `python -c "import torch"`, and of `check` (all ten), under each
sandbox backend, from medians of interleaved runs in one call.

Usage: python bench/check_speed.py [ROUNDS [ONLY]] (ONLY: run only the commands whose name holds it, such as
"check 3", beside the bare import). First a student build is released once into a temporary folder (`release`,
then its branch main cloned and solutions/ copied into its exercises/, as a student who wrote every answer). Each round
then runs, in turn: the bare import, `check 3 --solutions` under the Linux backend and under the portable one
(AUTOGRADER_SANDBOX forces it), `check 3` in the student build (the environment's backend: no `reference/`, the oracle
answered from its recordings), then `check --solutions` under both backends. Interleaved rounds keep the ratios
meaningful on a shared machine whose speed drifts. Targets: check 3 within 1.3x the bare import on each backend, and
within 1.0x on the student build (issue 23); the portable `check` of all ten within 2.5x the Linux one.

Printed on 2026-12-01 (3 rounds) on the team's shared 2-core machine, under a load average of about 12 (other
engineers' test runs), so every median is slow and noisy; the ratios are what to read:

    import torch           median   9.22 s over 3 runs (min 5.96, max 9.75)
    check 3 (linux)        median  11.85 s over 3 runs (min 10.10, max 14.83)
    check 3 (portable)     median   7.96 s over 3 runs (min 6.63, max 9.42)
    check all (linux)      median  23.75 s over 3 runs (min 22.96, max 34.00)
    check all (portable)   median  50.82 s over 3 runs (min 49.85, max 56.29)
    check 3 / import torch (linux): 1.29 (target <= 1.3)
    check 3 / import torch (portable): 0.86 (target <= 1.3)
    check all, portable / linux: 2.14 (target <= 2.5)

Printed on 2026-12-03 (`python bench/check_speed.py 5 "check 3"`), load average 1.3 to 2.3 (other engineers' runs):

    import torch             median   1.74 s over 5 runs (min 1.70, max 2.06)
    check 3 (linux)          median   3.24 s over 5 runs (min 2.98, max 3.71)
    check 3 (portable)       median   2.74 s over 5 runs (min 2.66, max 2.76)
    check 3 (student build)  median   3.02 s over 5 runs (min 2.79, max 3.38)
    check 3 / import torch (linux): 1.87 (target <= 1.3)
    check 3 / import torch (portable): 1.58 (target <= 1.3)
    check 3 / import torch (student build): 1.74 (target <= 1.0)

Read the check 3 ratios on a quiet machine only: `check` imports torch twice at once (the grader, and the zygote its
child forks from), so it needs both cores; one other busy process and the two imports share a core (about 1.8x). With
both cores free, a student build's check 3 was measured at 1.71 s beside bare imports of 1.54 to 2.45 s: the grader
skips the interpreter's teardown of torch (0.25 s or more) that the bare import pays, and spends about 0.35 s after its
import of torch (pytest 0.06, collecting the suite 0.07, the 31 checks 0.19, the report 0.02) and 0.16 s before it.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ("linux", "portable")
STUDENT = "check 3 (student build)"
COMMANDS = {  # name -> (command, backend, run in the student build)
    "import torch": ([sys.executable, "-c", "import torch"], None, False),
    **{f"check 3 ({backend})": ([sys.executable, "-m", "autograder", "check", "3", "--solutions"], backend, False) for backend in BACKENDS},
    STUDENT: ([sys.executable, "-m", "autograder", "check", "3"], None, True),
    **{f"check all ({backend})": ([sys.executable, "-m", "autograder", "check", "--solutions"], backend, False) for backend in BACKENDS},
}


def student_build(folder: Path) -> Path:
    """A student build released from this kit into folder, every exercise answered with its solution; its path."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    for command, where in (([sys.executable, "-m", "autograder", "release", str(folder / "release")], ROOT),
                           (["git", "clone", "--quiet", "--branch", "main", str(folder / "release"), str(folder / "student")], folder)):
        done = subprocess.run(command, cwd=where, check=False, capture_output=True, env=env)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    for path in (ROOT / "solutions").glob("q*.py"):
        shutil.copy(path, folder / "student" / "exercises" / path.name)
    return folder / "student"


def seconds(command: list[str], backend: str | None, cwd: Path = ROOT) -> float:
    """Wall time of one run of command from cwd (the kit's folder by default), under backend (None: the environment's choice)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}  # the student build's own grader, not ours
    if backend:
        env["AUTOGRADER_SANDBOX"] = backend
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, check=False, capture_output=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} under {backend} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def main(rounds: int = 5, only: str = "") -> None:
    """Run every command (those whose name holds `only`, and the bare import) in turn, `rounds` times; print medians and
    the ratios against their baselines."""
    commands = {name: value for name, value in COMMANDS.items() if only in name or name == "import torch"}
    times: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory(prefix="check-speed-") as folder:
        student = student_build(Path(folder)) if STUDENT in commands else ROOT
        for _ in range(rounds):
            for name, (command, backend, in_student) in commands.items():
                times[name].append(seconds(command, backend, student if in_student else ROOT))
    median = {name: statistics.median(values) for name, values in times.items()}
    for name, value in median.items():
        print(f"{name:<24} median {value:6.2f} s over {rounds} runs (min {min(times[name]):.2f}, max {max(times[name]):.2f})")
    ratios = [(f"check 3 / import torch ({backend})", f"check 3 ({backend})", "import torch", 1.3) for backend in BACKENDS]
    ratios += [("check 3 / import torch (student build)", STUDENT, "import torch", 1.0),
               ("check all, portable / linux", "check all (portable)", "check all (linux)", 2.5)]
    for label, measured, baseline, target in ratios:
        if measured in median:
            print(f"{label}: {median[measured] / median[baseline]:.2f} (target <= {target})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5, sys.argv[2] if len(sys.argv) > 2 else "")
