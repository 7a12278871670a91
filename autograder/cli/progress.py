"""What `list` shows without running anything: stubs untouched, or the last score while the file is unchanged."""
import ast
import hashlib
import json
from pathlib import Path

from ..course.manifest import Course, Question
from ..course.results import PASSED, Report
from ..i18n import _, number_text

LAST_CHECK_FILE = Path(".autograder") / "last-check.json"  # under the kit's folder, ignored by git
OUTPUT_FILE = ".autograder/output-q{number:02d}.txt"  # what a question's code printed at the last check, whole as kept
HINTS_SEEN = Path(".autograder") / "hints.json"  # how many hints of each question `hint N` has shown


def hints_to_show(course: Course, question: Question, everything: bool) -> int:
    """How many of question's hints `hint N` shows now: one more than last time (all with everything), remembered under
    .autograder/; a memory that cannot be read or written starts again at the first hint."""
    path = course.root / HINTS_SEEN
    try:
        seen = json.loads(path.read_text())
    except (OSError, ValueError):
        seen = {}
    seen = seen if isinstance(seen, dict) else {}
    before = seen.get(str(question.number))
    before = before if type(before) is int and before > 0 else 0
    shown = len(question.hints) if everything else min(before + 1, len(question.hints))
    seen[str(question.number)] = shown
    try:
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(seen, indent=1))
    except OSError:
        pass
    return shown


def _is_stub(body: list[ast.stmt]) -> bool:
    """True for a body that is only a docstring, a super().__init__() call and `raise NotImplementedError`."""
    statements = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    statements = [s for s in statements if not (isinstance(s, ast.Expr) and "super()" in ast.unparse(s))]
    return (
        len(statements) == 1
        and isinstance(statements[0], ast.Raise)
        and "NotImplementedError" in ast.unparse(statements[0])
    )


def _fingerprint(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""


def _memory(course: Course) -> dict:
    """The stored last checks by question number (as text); empty when missing, unreadable or damaged."""
    try:
        memory = json.loads((course.root / LAST_CHECK_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return {key: entry for key, entry in memory.items() if isinstance(entry, dict)} if isinstance(memory, dict) else {}


def keep_output(course: Course, report: Report) -> None:
    """Write what each graded question's code printed to OUTPUT_FILE (remove the file of one that printed nothing), so
    that the report can point to all of it."""
    for result in report.questions:
        path = course.root / OUTPUT_FILE.format(number=result.number)
        try:
            if result.output.strip():
                path.parent.mkdir(exist_ok=True)
                path.write_text(result.output, encoding="utf-8")
            else:
                path.unlink(missing_ok=True)
        except OSError:
            pass  # the report then shows the first line only


def remember(course: Course, report: Report) -> None:
    """Store each graded question's score with a fingerprint of its file, for `list`, and whether its self-test is open.

    A self-test opens for good: once a question has been at full marks, a later regression keeps its answers readable.
    """
    memory_file = course.root / LAST_CHECK_FILE
    memory = _memory(course)
    try:
        for result in report.questions:
            path = course.root / course.question(result.number).file
            opened = memory.get(str(result.number), {}).get("opened") is True or result.status == PASSED
            memory[str(result.number)] = {
                "score": result.score,
                "max": result.max_score,
                "status": result.status,
                "file": _fingerprint(path),
                "opened": opened,
            }
        memory_file.parent.mkdir(exist_ok=True)
        memory_file.write_text(json.dumps(memory, indent=1))
    except (OSError, ValueError):
        pass  # a read-only memory only costs `list` its last scores, and `check` its choice of self-tests to show


def last_statuses(course: Course) -> dict[int, str]:
    """The status of each question at its last check of exercises/ (questions never checked are left out)."""
    return {int(key): entry.get("status", "") for key, entry in _memory(course).items() if key.isdigit()}


def opened(course: Course) -> set[int]:
    """The questions whose self-test answers are open: those at full marks at some check of exercises/, even if not
    since."""
    return {
        int(key)
        for key, entry in _memory(course).items()
        if key.isdigit() and (entry.get("opened") is True or entry.get("status") == PASSED)
    }


def last_status(course: Course, question: Question) -> str | None:
    """The question's status at the last check while its file is unchanged since; None when that is unknown."""
    last = _memory(course).get(str(question.number))
    return last.get("status") if last and last.get("file") == _fingerprint(course.root / question.file) else None


def at_full_marks(course: Course, question: Question) -> bool:
    """True when the question was at full marks at its last check and its file has not changed since."""
    return last_status(course, question) == PASSED


def status_of(course: Course, question: Question) -> str:
    """`not started`, the last check's score while the file is unchanged, `changed since ...`, or a file problem."""
    path = course.root / question.file
    if not path.exists():
        return _("missing file")
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError as error:
        return _("cannot be parsed (line {line})").format(line=error.lineno)
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    if functions and all(_is_stub(f.body) for f in functions):
        return _("not started")
    last = _memory(course).get(str(question.number))
    if last and last["file"] == _fingerprint(path):
        return _("{score} / {max} {status} at the last check").format(
            score=number_text(last['score']), max=number_text(last['max']), status=_(last["status"])
        )
    if last:
        return _("changed since the last check: run `check {number}`").format(number=question.number)
    return _("in progress: run `check {number}`").format(number=question.number)
