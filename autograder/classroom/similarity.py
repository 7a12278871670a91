"""Submissions that look alike, per question: a lead for a human to read, never a verdict.

When a student is graded, fingerprints() records in the report, for each question the student attempted, the sha256
of the graded module and its marks: the winnowed hashes of its normalised token 5-grams (comments, blank lines and
strings dropped, the names the student chose all written alike, so renaming a variable or reflowing a line changes
nothing), minus the marks of the released stub (what every student was given is nobody's copy). pairs() then finds,
from the reports alone, the students whose module for a question is byte-identical, and the pairs whose marks
overlap by NEAR or more (Jaccard), as MOSS and Gradescope's similarity do. An answer with fewer than MIN_MARKS
marks of its own is too short to tell a copy from the obvious answer, and is left out.
"""
import builtins
import csv
import functools
import hashlib
import io
import keyword
import re
import tokenize
import zlib
from dataclasses import dataclass
from pathlib import Path

from ..course.manifest import Course
from ..statuses import NOT_ATTEMPTED

GRAM = 5  # tokens per hashed gram
WINDOW = 4  # grams per winnowing window: any run of WINDOW + GRAM - 1 equal tokens shares a mark
MIN_MARKS = 8  # an answer with fewer marks of its own is too short to compare
NEAR = 0.8  # the Jaccard similarity of two answers' marks from which a pair is listed
IDENTICAL, NEAR_IDENTICAL = "identical", "near-identical"
FILE = "similarity.csv"
KEPT_NAMES = frozenset(dir(builtins))  # names a student does not choose
SKIPPED_TOKENS = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def tokens(source: str) -> list[str]:
    """source's tokens, normalised: no comment, layout or string; every name the writer chose is `N` (keywords, builtins
    and attributes, such as torch.tril's `tril`, stay as they are)."""
    found: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in SKIPPED_TOKENS:
                continue
            text = token.string
            if token.type == tokenize.STRING:
                text = "S"
            elif (
                token.type == tokenize.NAME
                and not keyword.iskeyword(text)
                and not (found and found[-1] == ".")
                and text not in KEPT_NAMES
            ):
                text = "N"
            found.append(text)
    except (tokenize.TokenError, IndentationError, SyntaxError):  # a module that does not parse: compared by its words
        found = re.findall(r"\w+|[^\w\s]", source)
    return found


def marks(source: str) -> set[int]:
    """The winnowed hashes of source's normalised token grams: the smallest of each window of WINDOW grams."""
    words = tokens(source)
    grams = [zlib.crc32(" ".join(words[i : i + GRAM]).encode()) for i in range(len(words) - GRAM + 1)]
    if len(grams) <= WINDOW:
        return set(grams)
    return {min(grams[i : i + WINDOW]) for i in range(len(grams) - WINDOW + 1)}


def fingerprints(course: Course, package: Path, questions: list[dict]) -> dict:
    """{question number: {"sha256", "marks"}} for the questions attempted (a report's question entries), from the graded
    package's modules (a notebook's answer cells are modules there too): a report's "similarity"."""
    found = {}
    for question in questions:
        if question.get("status") == NOT_ATTEMPTED:
            continue
        name = Path(course.question(question["number"]).file).name
        try:
            data = (package / name).read_bytes()
        except OSError:
            continue
        own = marks(data.decode("utf-8", "replace")) - _stub_marks(course, question["number"])
        found[str(question["number"])] = {"sha256": hashlib.sha256(data).hexdigest(), "marks": sorted(own)}
    return found


def _stub_marks(course: Course, number: int) -> frozenset[int]:
    """The marks of the stub students were given for the question (course root's exercises/), or none without it."""
    try:
        return _file_marks(course.root / course.question(number).file)
    except KeyError:
        return frozenset()


@functools.lru_cache(maxsize=64)
def _file_marks(path: Path) -> frozenset[int]:
    """The marks of a file read once per process (a stub, the same for every student); none when it cannot be read."""
    try:
        return frozenset(marks(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError):
        return frozenset()


@dataclass(frozen=True)
class Pair:
    """Two students whose answers to a question look alike."""

    question: int
    one: str
    other: str
    kind: str  # IDENTICAL or NEAR_IDENTICAL
    score: float  # the Jaccard similarity of their marks (1 for identical files)


def pairs(reports: dict[str, dict]) -> list[Pair]:
    """Every pair of students whose answers to a question are byte-identical or near-identical, by question, the most
    alike first; answers too short to compare are left out."""
    by_question: dict[int, dict[str, dict]] = {}
    for student in sorted(reports):
        for number, found in (reports[student].get("similarity") or {}).items():
            if len(found.get("marks", ())) >= MIN_MARKS:
                by_question.setdefault(int(number), {})[student] = found
    listed = []
    for number, answers in sorted(by_question.items()):
        students = sorted(answers)
        sets = {student: set(answers[student]["marks"]) for student in students}
        for index, one in enumerate(students):
            for other in students[index + 1 :]:
                if answers[one]["sha256"] == answers[other]["sha256"]:
                    listed.append(Pair(number, one, other, IDENTICAL, 1.0))
                    continue
                score = len(sets[one] & sets[other]) / len(sets[one] | sets[other])
                if score >= NEAR:
                    listed.append(Pair(number, one, other, NEAR_IDENTICAL, round(score, 2)))
    return sorted(listed, key=lambda pair: (pair.question, -pair.score, pair.one, pair.other))


def groups(found: list[Pair]) -> list[tuple[int, list[str]]]:
    """The students whose files are byte-identical, grouped per question: (question, students) for each group."""
    linked: dict[tuple[int, str], set[str]] = {}
    for pair in found:
        if pair.kind == IDENTICAL:
            group = linked.get((pair.question, pair.one), {pair.one}) | linked.get(
                (pair.question, pair.other), {pair.other}
            )
            for student in group:
                linked[(pair.question, student)] = group
    unique = {(number, tuple(sorted(group))) for (number, _student), group in linked.items()}
    return [(number, list(students)) for number, students in sorted(unique)]


def csv_file(found: list[Pair], safe: object) -> bytes:
    """similarity.csv: question, student, other_student, kind, similarity; safe(text) keeps a name from reading as a
    formula."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["question", "student", "other_student", "kind", "similarity"])
    writer.writerows([pair.question, safe(pair.one), safe(pair.other), pair.kind, f"{pair.score:g}"] for pair in found)
    return buffer.getvalue().encode()
