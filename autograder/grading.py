"""Turn a question and its checks into a worker job, and the worker's files back into a QuestionResult."""
from pathlib import Path

import torch

from .checks import Check, Note
from .manifest import Question
from .results import (
    CRASHED,
    ERROR,
    FAILED,
    NOT_ATTEMPTED,
    PASSED,
    TIMEOUT,
    CaseResult,
    QuestionResult,
)
from .sandbox import OUTPUT_BYTES, Exit, Job
from .static import forbidden_uses

SIGNALS = {-11: "a segmentation fault", -6: "an abort", -9: "being killed (memory or CPU limit?)", -24: "the CPU time limit", -7: "a bus error", -8: "a floating-point exception"}
OUTPUT_SHOWN = 2000


def make_job(job_id: int, question: Question, checks: list[Check], package_dir: Path, notes: list[Note] = ()) -> Job:
    """The job the worker runs for question: every check's probe and inputs, then the notes' (as extra checks)."""
    spy = sorted({label for check in checks for label in check.forbid})
    payload = {
        "package": str(package_dir),
        "module": question.module,
        "spy": spy,
        "checks": [{"probe": c.probe, "params": c.params} for c in checks] + [{"probe": n.probe, "params": [n.params]} for n in notes],
    }
    return Job(job_id, question.time_limit, payload)


def _where(error: dict) -> str:
    """` (exercises/q03_attention.py line 12: `code`)` for the innermost frame in the student's files."""
    if not error["where"]:
        return ""
    frame = error["where"][-1]
    code = f": {frame['code']}" if frame["code"] else ""
    return f" at {frame['file']} line {frame['line']}{code}"


def explain(error: dict, question: Question) -> str:
    """One line saying what the student's code raised, and where in their own files."""
    kind, message = error["type"], error["message"]
    if kind in ("MissingFunction", "UnsavableResult"):
        return message
    if kind == "NotImplementedError":
        frame = error["where"][-1] if error["where"] else None
        if frame and not frame["file"].endswith(Path(question.file).name):
            return f"uses `{frame['function']}` from {frame['file']}, which is not written yet (raises NotImplementedError)"
        name = frame["function"] if frame else "this function"
        return f"not attempted: `{name}` still raises NotImplementedError"
    if kind == "SystemExit":
        return f"called sys.exit(){_where(error)}; return a value instead"
    if kind == "KeyboardInterrupt":
        return f"raised KeyboardInterrupt{_where(error)}"
    if kind == "MemoryError" or "can't allocate memory" in message:
        return f"ran out of memory (the limit is 4 GiB){_where(error)}"
    if kind == "OSError" and "File too large" in message:
        return f"printed more than {OUTPUT_BYTES >> 20} MiB of output{_where(error)}"
    if kind == "SyntaxError":
        return f"SyntaxError: {message}{_where(error)}"
    first_line = message.strip().splitlines()[0] if message.strip() else ""
    return f"raised {kind}: {first_line}{_where(error)}"


def refusal(what: str) -> str:
    """One line for an action the worker refused (an import of the grader's packages, a file, a process)."""
    if what.startswith("imports "):
        return f"{what}; answers may import only torch, numpy, math and earlier exercises"
    return f"{what}: not allowed in an answer, which may only compute with torch, numpy, math and earlier exercises"


def _not_attempted(error: dict, question: Question) -> bool:
    return error["type"] == "NotImplementedError" and bool(error["where"]) and error["where"][-1]["file"].endswith(Path(question.file).name)


def _load(path: Path) -> object:
    return torch.load(path, weights_only=True)


def _stopped(exit: Exit, question: Question, during: str) -> tuple[str, str]:
    """(status, reason) for a child that ended before writing all its results."""
    if exit.worker_error:
        return ERROR, f"the grader's worker could not run: {exit.worker_error}"
    if exit.timed_out:
        return TIMEOUT, f"stopped after {question.time_limit:g} s {during}: an endless loop, or far too much work?"
    if exit.code is not None and exit.code < 0:
        return CRASHED, f"the process crashed {during} with {SIGNALS.get(exit.code, f'signal {-exit.code}')}"
    return CRASHED, f"the process exited {during} (exit code {exit.code}): do not call sys.exit() or os._exit() in an answer"


def _judge_value(check: Check, params: dict, value: object) -> str | None:
    """check.judge on what the child handed back, which may be any plain data: a malformed value fails the check."""
    try:
        return check.judge(params, value)
    except Exception as error:  # noqa: BLE001 - the child decides the shape of value, not the suite
        return f"returned something the grader cannot read as an answer ({type(error).__name__})"


def _judge_outcome(check: Check, params: dict, outcome: dict, question: Question, static: dict[str, tuple[str, str]]) -> str | None:
    """Failure message for one input of one check, or None when it passes."""
    if outcome["refused"]:
        return refusal(outcome["refused"][0])
    banned = [label for label in outcome["spied"] if label in check.forbid]
    if banned:
        return f"calls {banned[0]}, which question {question.number} asks you to do without: write it by hand"
    expected_error = params.get("expect_error")
    if not outcome["ok"]:
        if expected_error and outcome["error"]["type"] == expected_error:
            return None
        return explain(outcome["error"], question)
    if expected_error:
        return _judge_value(check, params, outcome["value"])
    problem = _judge_value(check, params, outcome["value"])
    if problem is None:
        for function in check.functions:
            if function in static and static[function][0] in check.forbid:
                return f"{static[function][1]}, which question {question.number} asks you to do without: write it by hand"
    return problem


def _notes(notes: list[Note], first_index: int, workdir: Path) -> list[str]:
    """The rendered notes whose probe ran to the end; a note that failed or never ran is left out."""
    rendered = []
    for index, note in enumerate(notes, start=first_index):
        try:
            (outcome,) = _load(workdir / f"check_{index}.pt")
            if outcome["ok"]:
                rendered.append(note.render(outcome["value"]))
        except Exception:  # noqa: BLE001 - a note is never worth a failure: missing, unreadable or odd, it is skipped
            continue
    return rendered


def judge_question(question: Question, checks: list[Check], exit: Exit, source: Path, notes: list[Note] = ()) -> QuestionResult:
    """Read the worker's files for question and decide every check; never runs student code."""
    result = QuestionResult(question.number, question.title, question.points, PASSED)
    output_file = exit.workdir / "output.txt"
    if output_file.exists():
        with open(output_file, "rb") as handle:
            result.output = handle.read(OUTPUT_SHOWN).decode("utf-8", "replace")
    if not source.exists():
        result.status, result.reason = ERROR, f"{question.file} is missing: restore it (for example from git) and try again"
        result.tests = [CaseResult(check.name, False, result.reason, check.weight) for check in checks]
        return result
    if exit.orphans or exit.worker_error:  # the whole question, whatever files the child wrote before
        result.status = ERROR
        if exit.orphans:
            result.reason = f"started {exit.orphans} process(es) still running when it ended (the grader killed them): an answer may not start processes"
        else:
            result.reason = f"the grader's worker could not run: {exit.worker_error}"
        result.tests = [CaseResult(check.name, False, result.reason, check.weight) for check in checks]
        return result
    try:
        imported = _load(exit.workdir / "import.pt")
    except FileNotFoundError:
        imported = None
    if imported is None or imported["error"] or imported["refused"]:
        if imported is None:
            result.status, result.reason = _stopped(exit, question, "while importing your module")
        elif imported["refused"]:
            result.status = ERROR
            result.reason = refusal(imported["refused"][0])
        else:
            result.status, result.reason = ERROR, explain(imported["error"], question)
        result.tests = [CaseResult(check.name, False, result.reason, check.weight) for check in checks]
        return result
    static = forbidden_uses(source.read_text(encoding="utf-8", errors="replace"), question.functions, tuple({l for c in checks for l in c.forbid}))
    all_stubs, stopped = True, None
    for index, check in enumerate(checks):
        if stopped:
            result.tests.append(CaseResult(check.name, False, "not run: the process had stopped during an earlier check", check.weight))
            continue
        try:
            outcomes = _load(exit.workdir / f"check_{index}.pt")
        except FileNotFoundError:
            stopped = _stopped(exit, question, f"during the check `{check.name}`")
            result.status, result.reason = stopped
            result.tests.append(CaseResult(check.name, False, result.reason, check.weight))
            all_stubs = False
            continue
        except Exception as error:  # noqa: BLE001 - anything torch.load refuses is the student's object
            result.tests.append(CaseResult(check.name, False, f"returned an object the grader cannot read ({type(error).__name__})", check.weight))
            all_stubs = False
            continue
        problem = None
        for params, outcome in zip(check.params, outcomes):
            all_stubs &= not outcome["ok"] and _not_attempted(outcome["error"], question)
            problem = _judge_outcome(check, params, outcome, question, static)
            if problem:
                about_input = outcome["ok"] or outcome["error"]["type"] not in ("NotImplementedError", "MissingFunction")
                if about_input and len(check.params) > 1 and check.show(params):
                    problem += f" [smallest failing input: {check.show(params)}]"
                break
        result.tests.append(CaseResult(check.name, problem is None, problem or "", check.weight))
    if stopped:
        return result
    result.notes = _notes(notes, len(checks), exit.workdir)
    if all_stubs:
        result.status, result.reason = NOT_ATTEMPTED, "not attempted yet: every function still raises NotImplementedError"
    elif not all(test.passed for test in result.tests):
        result.status = FAILED
    return result
