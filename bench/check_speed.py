"""Cost of `python -m autograder check 3` against a bare `python -c "import torch"`, and of `check` (all ten), under
each sandbox backend, from medians of interleaved runs in one call.

Usage: python bench/check_speed.py [ROUNDS [ONLY]] (ONLY: run only the commands whose name holds it, or one of its
comma-separated parts, such as "check 3" or "q10,check 10", beside the bare import). First a student build is released
once into a temporary folder (`release`, then its branch main cloned and solutions/ copied into its exercises/, as a
student who wrote every answer). Each round then runs, in turn: the bare import, the two floors and `check 10` and
`check 9 --solutions` under the Linux backend (below), `check 3 --solutions` under the Linux backend and under the
portable one (AUTOGRADER_SANDBOX forces it), `check 3` in the student build (the environment's backend: no `reference/`,
the oracle answered from its recordings), then `check --solutions` under both backends. Interleaved rounds keep the
ratios meaningful on a shared machine whose speed drifts. Targets: check 3 within 1.3x the bare import on each backend,
and within 1.0x on the student build (issue 23); the portable `check` of all ten within 2.5x the Linux one; the Linux
`check` of all ten within 2x the bare import (issue 27).

The two questions whose own work is most of `check`'s are measured against their floors (issue 27), the solutions'
own work in a plain process with no grader (torch on one thread, as in the sandbox's child): `q10 floor` runs the
solution's train_copy_task with the suite's TRAIN_KWARGS, `q9 floor` its time_attention on the suite's TIMINGS and
then on the real clock's note sizes within the note's budget. `check 10 (linux)` and `check 9 (linux)` grade those
questions alone; for each the run prints the floor against the bare import, the check against its floor, and the
grader's overhead, (check - floor) / import torch, all from medians of the same run (ONLY "10" or "q9,check 9" runs
just those, beside the bare import).

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

Printed on 2026-12-03 at 18:12 (`python bench/check_speed.py 5 "check 3"`), load average 9.4 falling to 7.2 (other
engineers' test runs on both cores), the student build measured with its __pycache__ as a student has it (below):

    import torch             median   6.10 s over 5 runs (min 5.00, max 9.17)
    check 3 (linux)          median   9.15 s over 5 runs (min 7.38, max 12.12)
    check 3 (portable)       median   7.59 s over 5 runs (min 6.39, max 8.87)
    check 3 (student build)  median   9.59 s over 5 runs (min 6.21, max 9.94)
    check 3 / import torch (linux): 1.50 (target <= 1.3)
    check 3 / import torch (portable): 1.24 (target <= 1.3)
    check 3 / import torch (student build): 1.57 (target <= 1.0)

The same day, 4 interleaved rounds under a load average of 11.3 to 9.9, `/usr/bin/time` of the student build's
`check 3` before and after issue 23's cuts to its start (psutil, python_folders, the collector off while torch loads),
medians of wall time and of the CPU time of the grader and its children (user + sys), the second of which load
distorts less: the bare import 8.32 s wall, 2.23 s CPU; before, compiled anew at every run as this bench then measured
it, 16.68 s and 4.42 s (4.27 s CPU with its __pycache__); after, with its __pycache__, 13.06 s and 3.69 s (3.70 s CPU
compiled anew).

Printed on 2026-12-03 at 19:13 on a quiet machine (`python bench/check_speed.py 5`, load average 1.3 to 1.8), after
issue 27's cuts (q10 trains 100 steps, not 300; two portable spares) and issue 23's:

    import torch             median   1.81 s over 5 runs (min 1.62, max 2.13)
    q10 floor                median   3.90 s over 5 runs (min 3.69, max 4.19)
    q9 floor                 median   2.05 s over 5 runs (min 1.81, max 2.51)
    check 10 (linux)         median   3.57 s over 5 runs (min 3.27, max 4.41)
    check 9 (linux)          median   2.24 s over 5 runs (min 1.91, max 2.47)
    check 3 (linux)          median   1.94 s over 5 runs (min 1.76, max 2.44)
    check 3 (portable)       median   2.27 s over 5 runs (min 1.72, max 2.42)
    check 3 (student build)  median   2.00 s over 5 runs (min 1.98, max 2.29)
    check all (linux)        median   4.95 s over 5 runs (min 4.34, max 5.45)
    check all (portable)     median  11.37 s over 5 runs (min 10.56, max 12.92)
    check 3 / import torch (student build): 1.10 (target <= 1.0)
    check all, portable / linux: 2.30 (target <= 2.5)
    check all / import torch (linux): 2.74 (target <= 2.0)
    q10 floor / import torch: 2.16; check 10 (linux) / q10 floor: 0.91
    q9 floor / import torch: 1.14; check 9 (linux) / q9 floor: 1.09

A run of 3 rounds 40 minutes earlier (load 1.0 to 1.7) gave import torch 2.07 s, check all 4.87 s (2.35x) and the
student build's check 3 0.98x. Run alone, as `python bench/check_speed.py 10 "check 3"` (10 rounds, load 1.3 to 1.6),
twice at 19:15: the student build's check 3 0.90x and 0.93x (1.67 s and 1.88 s against 1.86 s and 2.02 s), the Linux
backend's 0.92x and 0.95x, the portable one's 0.97x and 1.01x. The bare import's median moves by a tenth from run to
run, which is the size of the margin: read the 10-round figures.

q10's floor alone (import torch, 100 training steps, the optimiser's import of torch._dynamo) is about 2.2x the bare
import, so `check` of all ten cannot be within 2x while it runs q10's training after the other questions on the same
core: what the grader adds around that training is nothing measurable (check 10 / its floor about 0.9, the grader's
sandbox having imported torch._dynamo ahead).

Where `check --solutions` of all ten spends its time after torch's import (issue 27's part "speed", 2026-12-03 at
21:40, load average 6.4 to 8.5, so every figure is inflated; the grader's own CPU time from marks in its process, the
wall time between them): the grader's CPU from its import of torch to the report is about 0.9 s, 0.22 s of it before
the first question (pytest's set-up, collecting the suites) and about 0.65 s over the ten questions' 230 checks; the
questions' wall time (5.5 s under that load, 2.0 s quiet) is the children's work, the grader waiting on one child at a
time. A profile of the grader showed two costs of its own, both gone since: hypothesis reading the constants of every
module loaded from outside site-packages (the kit's ~60, parsed at q6's first draw: about 0.2 s quiet, and q6's
examples changed with any edit of the kit and between a checkout and a student build), and pytest rewriting the
asserts of the eleven suite files at every run (PYTHONDONTWRITEBYTECODE keeps it from caching them; about 0.1 s). Six
interleaved rounds of `check --solutions` from a copy of the tree before those two cuts and from the tree after them,
under a load average of 6.7 to 8.5: the grader's CPU time, median 3.04 s before and 2.54 s after; the CPU time of the
grader and its children 7.83 s and 7.11 s; wall 21.0 s and 17.7 s (load).

What was left between `check` of all ten and 2x the bare import was the children's work in series (q1 to q9, then
q10), while the second core only imported torch._dynamo for q10. Since 2026-12-04 one student's check grades q10 in a
second lane (engine/lanes.py, its suite marked `beside`): a fork of the grader, on a branch of the sandbox (the same
pristine process over a socket of its own, a zygote of its own: the running zygote and its children are left alone),
grades q10 while the grader grades q1 to q9; each child's time is still charged as its own grader's waits on it.

Where the student build's check 3 spends its time (CPU seconds from marks in each process, load average 10 to 13, so
every figure is inflated alike): the grader starts the sandbox 0.15 s after its own start, then imports torch, pytest
and the plugin and collects the suite (torch's import plus 0.2 s); the pristine process, started then, imports torch
and the child's side (torch's import plus 0.1 s), forks the zygote, which forks the question's child; the two are
about even, the grader's side the later. Then the 34 calls of the checks go back and forth, the child about 0.2 s
(the student's calls under the forbidden-work watch are half of it, the Guard's set-up 0.015 s), the grader about
0.1 s, and the sandbox closes. A bare import pays instead Python's teardown of torch: 0.6 s of CPU under that load
(`python -c "import torch"` 2.4 s against 1.8 s ending with os._exit). Torch's import with the garbage collector on
is a tenth longer (full collections over its ~180,000 objects): the grader and the pristine process import it with the
collector off. The student build has no __pycache__ of its own: a student's Python writes it at the first check; with
PYTHONDONTWRITEBYTECODE set, as in the team's environment, every check compiles the build's modules again (about 0.08 s
of the grader's CPU before its first question, and the child's side in the pristine process), so the bench runs the
student build without that variable.

Read the check 3 ratios on a quiet machine only: `check` imports torch twice at once (the grader, and the zygote its
child forks from), so it needs both cores; one other busy process and the two imports share a core (about 1.8x). With
both cores free, a student build's check 3 was measured at 1.71 s beside bare imports of 1.54 to 2.45 s: the grader
skips the interpreter's teardown of torch (0.25 s or more) that the bare import pays, and spends about 0.35 s after its
import of torch (pytest 0.06, collecting the suite 0.07, the 31 checks 0.19, the report 0.02) and 0.16 s before it.

Issue 27's part "check" (2026-12-04, 16:10 to 17:20 UTC, load average 5 to 21 from other engineers' test runs, so
every wall figure is inflated and the ratios are noise: read the CPU ones). What `check` of all ten must do, in CPU:
two imports of torch (the grader's, the pristine process's: about 1.5 s each), q10's torch._dynamo (1.1 to 1.3 s, an
optimiser's first step), the children's work (q1 to q9 about 2.0 s with the grader's turns, q10 0.6 s, its 100 steps
0.45 s) and the grader's own 0.9 s: about 7 s, so on two cores at least 3.5 s however it is scheduled (grading q10
beside q1 to q9 included), 2.25x a 1.55 s import. 2x needs about a second less CPU, which only a grader without torch
or a child without torch._dynamo would give. Cut here: the preloads import with the collector off (torch._dynamo
1.09 s of CPU instead of 1.29 s, medians of 8 alternated rounds); q9 no longer waits for q10's torch._dynamo in the
pristine process (on a busy machine it did: the running zygote imports torch.utils.benchmark itself); one student's
check no longer collapses memory into huge pages (the first zygote's before its second child, on the critical path,
and the pristine process's after the preload: 0.25 to 0.4 s of kernel CPU each, for 7 to 11 ms per child won back).
Ten rounds of `python bench/check_speed.py 1 "all (linux)"` from main's tree and from this one, alternated: the
ratio's median 3.39 before, 3.25 after (rounds from 2.3 to 3.9: noise); the system CPU of the bench's processes
lower in 10 pairs of 10 (medians 1.87 s and 1.58 s), the user CPU within noise. (On a quiet machine the next day,
`/usr/bin/time` of `check --solutions` gave 4.3 to 4.9 CPU s, not 7: those CPU figures were inflated by the load too,
and the bound they gave, 2.25x, did not hold.)

Printed on 2026-12-04 at 20:33 on a quiet machine (load average 0.0 to 1.3), `python bench/check_speed.py 5
"check all (linux),check 10"` from main's tree (q10 after q1 to q9) and from the tree with the second lane and the
cheaper forbidden-work watch (sandbox/child/forbidden.py: q3's watched call 2.7 to 1.0 ms, q5's 5.7 to 2.3 ms),
alternated, two runs each:

    main   import torch 1.41 s, check 10 2.37 s, check all 3.21 s: check all / import torch 2.28
    lanes  import torch 1.38 s, check 10 2.40 s, check all 2.68 s: check all / import torch 1.94 (target <= 2.0)
    main   import torch 1.36 s, check 10 2.40 s, check all 3.15 s: check all / import torch 2.31
    lanes  import torch 1.48 s, check 10 2.60 s, check all 2.81 s: check all / import torch 1.91

check all is now within 0.3 s of check 10 alone: the grader's lane (q1 to q9: 1.4 s of questions after 1.3 s of
start) and q10's (the pristine process's torch._dynamo, then the training) end within a tenth of each other, so
cutting one lane alone no longer shortens `check`.
"""
import ast
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
def suite_constant(suite: str, name: str) -> object:
    """The value of a constant of autograder/suites/<suite>.py, read from its source (the floors import no grader): a
    literal, or a list of case(key=value, ...) as their keyword dicts."""
    tree = ast.parse((ROOT / "autograder" / "suites" / f"{suite}.py").read_text(encoding="utf-8"))
    value = next(node.value for node in tree.body if isinstance(node, ast.Assign) and any(
        isinstance(target, ast.Name) and target.id == name for target in node.targets))
    if isinstance(value, ast.List) and all(isinstance(item, ast.Call) for item in value.elts):
        return [{keyword.arg: ast.literal_eval(keyword.value) for keyword in item.keywords} for item in value.elts]
    return ast.literal_eval(value)


# The floors: the solutions' own work in check 10 and check 9 in a plain process (torch, one thread as in the sandbox's
# child, the solution's module, no grader): q10's train_copy_task with the suite's TRAIN_KWARGS (the optimiser's first
# step imports torch._dynamo, as in the child), and q9's time_attention on the suite's TIMINGS, then on the note's WALL
# sizes on the real clock within its budget (clock.wall_times' loop).
FLOORS = {
    "q10 floor": "import torch; torch.set_num_threads(1)\n"
                 "from solutions.q10_train import train_copy_task\n"
                 f"train_copy_task(**{suite_constant('test_q10_train', 'TRAIN_KWARGS')!r})",
    "q9 floor": "import time, torch; torch.set_num_threads(1)\n"
                "from solutions.q09_timing import time_attention\n"
                f"for timing in {suite_constant('test_q09_timing', 'TIMINGS')!r}: time_attention(**timing)\n"
                f"wall, start = {suite_constant('test_q09_timing', 'WALL')!r}, time.perf_counter()\n"
                "for T in wall['Ts']:\n    if time.perf_counter() - start > wall['budget']: break\n    "
                "time_attention(T, d=wall['d'], repeats=3)",
}
COMMANDS = {  # name -> (command, backend, run in the student build)
    "import torch": ([sys.executable, "-c", "import torch"], None, False),
    **{name: ([sys.executable, "-c", code], None, False) for name, code in FLOORS.items()},
    **{
        f"check {n} (linux)": ([sys.executable, "-m", "autograder", "check", str(n), "--solutions"], "linux", False)
        for n in (10, 9)
    },
    **{
        f"check 3 ({backend})": ([sys.executable, "-m", "autograder", "check", "3", "--solutions"], backend, False)
        for backend in BACKENDS
    },
    STUDENT: ([sys.executable, "-m", "autograder", "check", "3"], None, True),
    **{
        f"check all ({backend})": ([sys.executable, "-m", "autograder", "check", "--solutions"], backend, False)
        for backend in BACKENDS
    },
}


def student_build(folder: Path) -> Path:
    """A student build released from this kit into folder, every exercise answered with its solution; its path."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    for command, where in (
        ([sys.executable, "-m", "autograder", "release", str(folder / "release")], ROOT),
        (["git", "clone", "--quiet", "--branch", "main", str(folder / "release"), str(folder / "student")], folder),
    ):
        done = subprocess.run(command, cwd=where, check=False, capture_output=True, env=env)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    for path in (ROOT / "solutions").glob("q*.py"):
        shutil.copy(path, folder / "student" / "exercises" / path.name)
    return folder / "student"


def seconds(command: list[str], backend: str | None, cwd: Path = ROOT) -> float:
    """Wall time of one run of command from cwd (the kit's folder by default), under backend (None: the environment's
    choice)."""
    # the student build's own grader, not ours
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if cwd != ROOT:
        # as a student runs it: their Python writes the build's __pycache__ (ignored by its .gitignore) at the first
        # check and reads it at every later one; PYTHONDONTWRITEBYTECODE in our environment would make every run
        # compile the build's ~70 modules again (torch, which the bare import loads, is compiled at its install)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    if backend:
        env["AUTOGRADER_SANDBOX"] = backend
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, check=False, capture_output=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} under {backend} failed ({done.returncode}): {done.stderr.decode()[-500:]}"
        )
    return elapsed


def main(rounds: int = 5, only: str = "") -> None:
    """Run every command (those whose name holds `only` or one of its comma-separated parts, and the bare import) in
    turn, `rounds` times; print medians and the ratios against their baselines."""
    commands = {
        name: value
        for name, value in COMMANDS.items()
        if any(part in name for part in only.split(",")) or name == "import torch"
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory(prefix="check-speed-") as folder:
        student = student_build(Path(folder)) if STUDENT in commands else ROOT
        for _ in range(rounds):
            for name, (command, backend, in_student) in commands.items():
                times[name].append(seconds(command, backend, student if in_student else ROOT))
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"load average at the end: {', '.join(f'{load:.2f}' for load in os.getloadavg())}")
    for name, value in median.items():
        print(
            f"{name:<24} median {value:6.2f} s over {rounds} runs (min {min(times[name]):.2f}, max "
            f"{max(times[name]):.2f})"
        )
    ratios = [
        (f"check 3 / import torch ({backend})", f"check 3 ({backend})", "import torch", 1.3) for backend in BACKENDS
    ]
    ratios += [
        ("check 3 / import torch (student build)", STUDENT, "import torch", 1.0),
        ("check all, portable / linux", "check all (portable)", "check all (linux)", 2.5),
        ("check all / import torch (linux)", "check all (linux)", "import torch", 2.0),
    ]
    for label, measured, baseline, target in ratios:
        if measured in median:
            print(f"{label}: {median[measured] / median[baseline]:.2f} (target <= {target})")
    # what the grader adds around the solution's own work, against that floor and the bare import
    for number in (10, 9):
        check, floor = f"check {number} (linux)", f"q{number} floor"
        if check in median and floor in median:
            print(
                f"{floor} / import torch: {median[floor] / median['import torch']:.2f}; {check} / {floor}: "
                f"{median[check] / median[floor]:.2f}; the grader's overhead around it, ({check} - {floor}) / import "
                f"torch: {(median[check] - median[floor]) / median['import torch']:.2f}"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5, sys.argv[2] if len(sys.argv) > 2 else "")
