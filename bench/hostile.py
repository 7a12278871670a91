"""Untrusted code, measured: the fault-and-cheat corpus, an endless loop under `check 1 2`, and a memory hog.

Usage: python bench/hostile.py [--limit SECONDS]

1. Grades every file of tests/hostile/ once (each replacing one module of a copy of solutions/, graded
   with a neighbouring correct question, all in one sandbox, questions 1 and 2 limited to --limit s,
   default 3) and prints the number of cases, how many got the expected status with the neighbour at
   full marks, and the total time.
2. Times `python -m autograder check 1 2` in a temporary copy of the kit whose q01 loops forever,
   against q01's time limit in course.yaml (unchanged: the real limit).
3. Grades the growing memory hog (tests/hostile/memory_hog_gradual.py) with the course's own limits in a
   fresh process and prints the peak resident memory of that grader process and of its children
   (resource.getrusage: RUSAGE_SELF and RUSAGE_CHILDREN, ru_maxrss).
"""
import argparse
import dataclasses
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
sys.path.insert(0, str(ROOT))


def corpus() -> list[dict]:
    """Every fault file with its expectation, from its two header lines."""
    cases = []
    for path in sorted(HOSTILE.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        expect = re.search(r"^# expect: module=(\S+) status=(\S+) match=(.*)$", text, re.M)
        cases.append(
            {
                "name": path.stem,
                "module": expect.group(1),
                "statuses": expect.group(2).split("|"),
                "match": expect.group(3).strip(),
            }
        )
    return cases


def package_with(folder: Path, name: str | None, module: str | None) -> Path:
    """A copy of solutions/ in folder/exercises with module replaced by the fault file name."""
    package = folder / "exercises"
    shutil.copytree(ROOT / "solutions", package, ignore=shutil.ignore_patterns("__pycache__"))
    if name:
        shutil.copy(HOSTILE / f"{name}.py", package / f"{module}.py")
    return package


def run_corpus(limit: float, scratch: Path) -> None:
    """Part 1: grade the corpus; print each case's status and line, then the totals."""
    from autograder.course.manifest import load_course
    from autograder.engine.run import grade_many

    course = load_course(ROOT)
    course = dataclasses.replace(
        course,
        questions=tuple(
            dataclasses.replace(q, time_limit=limit) if q.number in (1, 2) else q for q in course.questions
        ),
    )
    cases = corpus()
    # (faulty, neighbour)
    numbers = [(int(case["module"][1:3]), 2 if case["module"].startswith("q01") else 1) for case in cases]
    submissions = [
        (package_with(scratch / case["name"], case["name"], case["module"]), sorted(pair))
        for case, pair in zip(cases, numbers)
    ]
    start = time.monotonic()
    reports = grade_many(course, submissions)
    seconds = time.monotonic() - start
    right = 0
    for case, report, (question, other) in zip(cases, reports, numbers):
        by_number = {q.number: q for q in report.questions}
        faulty, neighbour = by_number[question], by_number[other]
        lines = [line for line in [faulty.reason] + [t.message for t in faulty.tests if not t.passed] if line]
        ok = (
            faulty.status in case["statuses"]
            and faulty.score < faulty.max_score
            and neighbour.score == neighbour.max_score
            and any(case["match"] in line for line in lines)
            and not any("\n" in line or "Traceback" in line for line in lines)
        )
        right += ok
        print(
            f"  {'ok ' if ok else 'BAD'} {case['name']:<32} {faulty.status:<8} {faulty.score:>4g}/{faulty.max_score:g} "
            f" {(lines or [''])[0][:110]}"
        )
    print(
        f"corpus: {len(cases)} cases, {right} handled right, {seconds:.1f} s in all (limit {limit:g} s for questions 1 "
        f"and 2)"
    )


def time_endless_check(scratch: Path) -> None:
    """Part 2: wall time of `check 1 2` with an endless loop in q01, against q01's limit."""
    from autograder.course.manifest import load_course

    kit = scratch / "kit"
    for name in ("autograder", "reference", "solutions"):
        shutil.copytree(ROOT / name, kit / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "course.yaml", kit)
    package_with(kit, "loop_forever", "q01_causal_mask")
    limit = load_course(kit).question(1).time_limit
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "check", "1", "2", "--json"],
        cwd=kit,
        capture_output=True,
        text=True,
        timeout=limit + 120,
    )
    seconds = time.monotonic() - start
    statuses = [(q["number"], q["status"]) for q in json.loads(done.stdout)["questions"]]
    print(
        f"check 1 2 with q01 looping forever: {seconds:.1f} s wall, q01's time limit {limit:g} s, over by "
        f"{seconds - limit:.1f} s; {statuses}"
    )


def memory_probe() -> None:
    """Part 3, in a fresh process: grade the growing memory hog with the course's limits; print peak memory."""
    from autograder.course.manifest import load_course
    from autograder.engine.run import grade

    with tempfile.TemporaryDirectory() as folder:
        package = package_with(Path(folder), "memory_hog_gradual", "q01_causal_mask")
        start = time.monotonic()
        report = grade(load_course(ROOT), package, [1, 2])
        seconds = time.monotonic() - start
    q1 = report.questions[0]
    line = q1.reason or next((t.message for t in q1.tests if not t.passed), "")
    mine = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"memory hog: q01 {q1.status} ({line[:90]}), q02 {report.questions[1].status}, {seconds:.1f} s")
    print(
        f"peak resident memory: grader process {mine:.0f} MiB, largest child (zygote or question) {children:.0f} MiB; "
        f"limit per question 4096 MiB of address space"
    )


def main() -> None:
    """Run the three parts and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=3.0, help="time limit of questions 1 and 2 for the corpus (s)")
    parser.add_argument("--memory-probe", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_probe:
        memory_probe()
        return
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        run_corpus(args.limit, Path(folder))
        time_endless_check(Path(folder))
    subprocess.run([sys.executable, __file__, "--memory-probe"], check=True)
    print(f"bench total {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
