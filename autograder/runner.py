"""Grade questions: start the sandbox first, then import torch and the suites while it warms up."""
from pathlib import Path

from .manifest import Course
from .results import Report
from .sandbox import Exit, Sandbox


def grade_many(course: Course, submissions: list[tuple[Path, list[int]]], parallel: int = 2, notes: bool = False,
               sandbox: Sandbox | None = None) -> list[Report]:
    """Grade several packages (exercises/-like folders), each on its question numbers, in one sandbox.

    notes: also run the suites' ungraded notes (real timings, which differ from run to run).
    sandbox: one the caller started early, so that its import of torch overlaps the caller's work; closed here.
    """
    sandbox = sandbox or Sandbox(parallel)  # before torch: the worker's import of torch overlaps ours
    try:
        import torch

        from .grading import judge_question, make_job
        from .suites import checks_for, notes_for

        torch.set_num_threads(1)  # the oracle works on tiny tensors: a thread pool only adds waiting
        planned = [(package, course.question(n)) for package, numbers in submissions for n in numbers]
        checks = {q.number: checks_for(q) for _, q in planned}
        extras = {q.number: notes_for(q) if notes else [] for _, q in planned}
        results = {}

        def judge(job_id: int, exit: Exit) -> None:
            package, question = planned[job_id]
            results[job_id] = judge_question(question, checks[question.number], exit, package / Path(question.file).name, extras[question.number])

        exits = sandbox.run([make_job(i, q, checks[q.number], package, extras[q.number]) for i, (package, q) in enumerate(planned)], judge)
        for job_id in sorted(set(exits) - set(results)):  # children lost with a worker that died: judged from what is left
            judge(job_id, exits[job_id])
    finally:
        sandbox.close()
    reports, start = [], 0
    for _, numbers in submissions:
        reports.append(Report([results[i] for i in range(start, start + len(numbers))]))
        start += len(numbers)
    return reports


def grade(course: Course, package_dir: Path, numbers: list[int], parallel: int = 2, notes: bool = False) -> Report:
    """Run the questions' checks on the package in package_dir (exercises/ or solutions/) and judge them."""
    return grade_many(course, [(package_dir, numbers)], parallel, notes)[0]
