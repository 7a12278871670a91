"""The result model: one check, one question, one report, each with to_dict() for --json."""
from dataclasses import dataclass, field

from ..i18n import N_, _
from ..statuses import CRASHED, ERROR, FAILED, FLAGGED, NOT_ATTEMPTED, PASSED, TIMEOUT  # noqa: F401 - its statuses
# TRANSLATORS: followed by a colon and the input; end it with a no-break space where the colon needs one
# how a failure names its input: ` [smallest failing input: ...]`, translated where written
INPUT_NOTE = N_("smallest failing input")


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one check of a question."""

    name: str
    passed: bool
    message: str = ""
    weight: float = 1.0
    mistake: str = ""  # the known mistake the message names, as an id: "q03.softmax_query_axis"
    values: str = ""  # the end of message showing small results next to the expected ones, which feedback may leave out

    def to_dict(self) -> dict:
        """The contract's test entry: name, passed, message, and the named mistake's id and the values when there are
        some."""
        entry = {"name": self.name, "passed": self.passed, "message": self.message}
        return (
            entry
            | ({"mistake": self.mistake} if self.mistake else {})
            | ({"values": self.values} if self.values else {})
        )


def without_input(message: str) -> str:
    """A failure's message without the input it names (and what follows it): the same error met on different inputs.

    The message was written in the current language, so the note is looked for in it too."""
    return message.split(f" [{_(INPUT_NOTE)}: ", 1)[0]


def missing_file(file: str, where: str) -> str:
    """The one line for an exercise module that is not there, in every path (check, grade DIR, nbgrader, Gradescope)."""
    return _("{file} is missing from {where}: put it there (for example from git) and grade again").format(
        file=file, where=where
    )


def number(value: float) -> int | float:
    """value as an int when it is whole (10, not 10.0), as the contract's JSON writes points."""
    return int(value) if float(value).is_integer() else value


def question_score(points: float, cases: list[CaseResult]) -> float:
    """Points times the weighted share of passing checks, rounded to 0.01."""
    total = sum(case.weight for case in cases)
    if total == 0:
        return 0.0
    return round(points * sum(case.weight for case in cases if case.passed) / total, 2)


@dataclass
class QuestionResult:
    """Every check of one question, its status and a one-line reason when it did not run to the end."""

    number: int
    title: str
    max_score: float
    status: str
    tests: list[CaseResult] = field(default_factory=list)
    reason: str = ""
    output: str = ""
    notes: list[str] = field(default_factory=list)
    output_from: str = ""  # the call during which the code printed first: `causal_mask(T=3)`

    @property
    def score(self) -> float:
        """Score resolved from the checks by question_score."""
        return question_score(self.max_score, self.tests)

    def to_dict(self) -> dict:
        """The contract's question entry, plus the reason, captured output and ungraded notes when there are any."""
        entry = {
            "number": self.number,
            "title": self.title,
            "score": number(self.score),
            "max_score": number(self.max_score),
            "status": self.status,
            "tests": [test.to_dict() for test in self.tests],
        }
        if self.reason:
            entry["reason"] = self.reason
        if self.output:
            entry["output"] = self.output
        if self.output_from:
            entry["output_from"] = self.output_from
        if self.notes:
            entry["notes"] = self.notes
        return entry


def question_from_dict(entry: dict) -> QuestionResult:
    """A question entry of a report read back (OUT/<student>.json): its checks, with weights that give its recorded
    score."""
    tests = [
        (
            test.get("name", ""),
            bool(test.get("passed")),
            test.get("message", ""),
            test.get("mistake", ""),
            test.get("values", ""),
        )
        for test in entry.get("tests", [])
    ]
    score, points = float(entry.get("score", 0)), float(entry.get("max_score", 0))
    passed, failed = sum(t[1] for t in tests), sum(not t[1] for t in tests)
    # each passed check's
    weight = score * failed / (passed * (points - score)) if passed and failed and points > score else 1.0
    result = QuestionResult(
        int(entry.get("number", 0)),
        entry.get("title", ""),
        points,
        entry.get("status", ERROR),
        reason=entry.get("reason", ""),
        output=entry.get("output", ""),
        notes=list(entry.get("notes", [])),
        output_from=str(entry.get("output_from", "")),
    )
    result.tests = [
        CaseResult(name, ok, message, weight if ok else 1.0, mistake, values)
        for name, ok, message, mistake, values in tests
    ]
    return result


@dataclass
class Report:
    """The results of one grading run."""

    questions: list[QuestionResult]
    sandbox: dict = field(default_factory=dict)  # which sandbox backend graded (sandbox.Sandbox.about), when known

    @property
    def score(self) -> float:
        """Sum of the question scores."""
        return round(sum(q.score for q in self.questions), 2)

    @property
    def max_score(self) -> float:
        """Sum of the points of the graded questions."""
        return sum(q.max_score for q in self.questions)

    @property
    def all_passed(self) -> bool:
        """True when every graded question is at full marks."""
        return all(q.status == PASSED for q in self.questions)

    def to_dict(self) -> dict:
        """The contract's JSON report."""
        entry = {
            "score": number(self.score),
            "max_score": number(self.max_score),
            "questions": [q.to_dict() for q in self.questions],
        }
        if self.sandbox:
            entry["sandbox"] = self.sandbox
        return entry
