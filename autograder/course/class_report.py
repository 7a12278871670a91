"""The report of one student's entry in class grading: check --json's object plus who, what, when and how it went.

EntryReport is what work.py and cluster.py build, what OUT/<student>.json holds (to_dict, written with its keys in one
order: the check --json object's first, then those the class adds), what the gradebooks, grades.csv and nbgrader's
gradebook read back (from_dict), and what a worker sends its driver. The questions stay the contract's question
entries (course/results.py's QuestionResult.to_dict()). A key this version does not know is kept as read (extra).
"""
from dataclasses import dataclass, field, fields

from ..statuses import GRADED, GRADER_ERROR, LATE, UNREADABLE
from .results import Report

ALWAYS = ("score", "max_score", "questions", "student", "source")  # written even when empty
UNWRITTEN = ("extra", "worker")


@dataclass
class EntryReport:
    """One student's report; an empty field (but score, max_score, questions, student and source) is not written."""

    score: float
    max_score: float
    questions: list[dict]
    sandbox: dict = field(default_factory=dict)  # which sandbox backend graded
    student: str = ""
    source: dict = field(default_factory=dict)  # kind, path, graded (where in the entry), left_out
    commit: str = ""  # a repository's graded commit
    sha256: str = ""  # of the graded files: with commit, the fingerprint that decides whether to grade again
    committed_at: str = ""  # with --deadline: the graded commit's date, how late it was, how many commits came after
    late_hours: float | None = None
    commits_after_deadline: int | None = None
    grader_version: str = ""
    graded_at: str = ""
    similarity: dict | None = None  # question -> {"sha256", "marks"} of the graded answers (similarity.py)
    problem: str = ""  # why the entry could not be graded: every question 0
    grader_error: bool = False  # the grader's own failure, graded again by the next run
    traceback: str = ""
    weak_isolation: list[str] = field(default_factory=list)  # the kernel walls missing where it was graded
    in_a_killed_run: bool = False  # being graded when an earlier run was killed
    extra: dict = field(default_factory=dict)  # keys of a report this version does not know, kept as read
    worker: object = None  # which worker graded it (a pid, a Dask address): the log's, never written in the report

    @classmethod
    def from_check(cls, report: Report, **about: object) -> "EntryReport":
        """The entry report of a check report (Report) and what the class adds (student, source, ...)."""
        written = report.to_dict()
        return cls(written["score"], written["max_score"], written["questions"], written.get("sandbox", {}), **about)

    @classmethod
    def from_dict(cls, data: object) -> "EntryReport":
        """A report read back (OUT/<student>.json); ValueError when it is not one (no list of questions)."""
        if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
            raise ValueError("not a class report: no list of questions")
        known = {f.name for f in fields(cls)} - set(UNWRITTEN)
        return cls(**{key: value for key, value in data.items() if key in known and key not in ("score", "max_score")},
                   score=data.get("score", 0), max_score=data.get("max_score", 0),
                   extra={key: value for key, value in data.items() if key not in known})

    def to_dict(self) -> dict:
        """The report as OUT/<student>.json holds it, its keys always in the same order."""
        written = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if (
                item.name in ALWAYS
                or (item.name not in UNWRITTEN and not _empty(value))
                or (item.name == "similarity" and value is not None)
            ):
                written[item.name] = value
        return written | self.extra

    @property
    def status(self) -> str:
        """What the report is: graded, late (graded, its commit after the deadline), unreadable, or grader_error."""
        if self.grader_error:
            return GRADER_ERROR
        if self.problem:
            return UNREADABLE
        return LATE if float(self.late_hours or 0) > 0 else GRADED

    def scores(self) -> dict[int, float]:
        """Question number -> score."""
        return {q.get("number"): q.get("score", 0) for q in self.questions}


def _empty(value: object) -> bool:
    """True for what a report leaves out: no value, False, an empty text, list or dict (0 is a value: 0 hours late)."""
    return value is None or value is False or (isinstance(value, (str, list, dict)) and not value)
