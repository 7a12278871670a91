"""Every limit README.md and docs/ quote is the code's, and is quoted in one doc file: a changed limit is a change in
its home (sandbox/limits.py, course.yaml) and in the one doc file whose sentences this test then names.

QUOTES lists each phrasing that quotes a limit, with the figure of the code it quotes and that figure's value: each
must be found, every number it quotes must be the value, and all the phrasings of one figure must be in one doc file
(the other pages point to it by name). Every size in GiB or MiB the docs write must sit in one of them, so that a new
sentence quoting a limit cannot skip the check.
"""

import re
from pathlib import Path

import pytest

from autograder.classroom import cluster, gradescope, intake
from autograder.course.manifest import DEFAULT_TIME_LIMIT, load_course
from autograder.maintainer import github_classroom
from autograder.sandbox import limits
from autograder.sandbox.base import MEMORY_NEEDED, PROCESSES_NEEDED

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COURSE = load_course(ROOT)
GIB, MIB = 1 << 30, 1 << 20
WORDS = {"twice": 2, "three times": 3, "a quarter": 0.25, "half": 0.5}  # numbers the docs write as words
NUMBER = r"(\d[\d,]*(?:\.\d+)?|twice|three times|a quarter|half)"

# (the figure of the code quoted, named as the code names it; the phrasing, a regular expression where # stands for
# the quoted number; the value the code gives it)
QUOTES = [
    # memory (limits.MEMORY_BYTES)
    ("MEMORY_BYTES", r"Memory, # GiB", limits.MEMORY_BYTES / GIB),
    # output and disk (OUTPUT_BYTES, OUTPUT_KILLED_BYTES, DISK_BYTES, DISK_ENTRIES)
    ("OUTPUT_BYTES", r"Output, # MiB", limits.OUTPUT_BYTES / MIB),
    ("OUTPUT_BYTES", r"refused past # MiB", limits.OUTPUT_BYTES / MIB),
    ("OUTPUT_BYTES", r"C code writing past # MiB is killed", limits.OUTPUT_KILLED_BYTES / MIB),
    ("DISK_BYTES", r"# MiB and [\d,]+ files for the whole question", limits.DISK_BYTES / MIB),
    ("DISK_ENTRIES", r"MiB and # files for the whole question", limits.DISK_ENTRIES),
    # threads (CHILD_THREADS)
    ("CHILD_THREADS", r"# \(`RLIMIT_NPROC` of its own user\)", limits.CHILD_THREADS),
    ("CHILD_THREADS", r"the whole machine runs at its fork plus #", limits.CHILD_THREADS),
    ("CHILD_THREADS", r"# more than its namespace runs", limits.CHILD_THREADS),
    ("CHILD_THREADS", r"# Python threads besides its main one", limits.CHILD_THREADS),
    ("CHILD_THREADS", r"refuses the #th start", limits.CHILD_THREADS + 1),
    # open descriptors (CHILD_FILES), and the pipes they allow
    ("CHILD_FILES", r"Open files and pipes, # at once", limits.CHILD_FILES),
    ("CHILD_FILES", r"holds them to # \(below\)", limits.CHILD_FILES // 2),
    ("CHILD_FILES", r"child's pipes of the default size to # \(", limits.CHILD_FILES // 2),
    ("CHILD_FILES", r"at most # pipes, [\d,]+ pages", limits.CHILD_FILES // 2),
    ("CHILD_FILES", r"at most [\d,]+ pipes, # pages", limits.CHILD_FILES // 2 * 16),
    # queued signals (CHILD_SIGNALS)
    ("CHILD_SIGNALS", r"Queued signals, # more than its user had queued", limits.CHILD_SIGNALS),
    ("CHILD_SIGNALS", r"under root its own user's, so #", limits.CHILD_SIGNALS),
    # time (course.yaml's time_limit, WALL_FACTOR, CPU_GRACE_SECONDS, POLL_SECONDS, STARTUP_SECONDS, CELL_MARGIN)
    ("DEFAULT_TIME_LIMIT", r"\| no, default `#` \| Seconds the grader waits", DEFAULT_TIME_LIMIT),
    ("course.yaml: question 10's time_limit", r"question 10 has `#`", COURSE.question(10).time_limit),
    ("WALL_FACTOR", r"the wall clock reaches # it", limits.WALL_FACTOR),
    ("WALL_FACTOR", r"or the wall clock # it \(a sleeping child\)", limits.WALL_FACTOR),
    ("WALL_FACTOR", r"stops a child at # its limit", limits.WALL_FACTOR),
    ("CPU_GRACE_SECONDS", r"at the limit \+ # s, is a `timeout`", limits.CPU_GRACE_SECONDS),
    ("POLL_SECONDS", r"holding more, within # of a second", limits.POLL_SECONDS),
    ("STARTUP_SECONDS", r"# s for the sandbox's start", limits.STARTUP_SECONDS),
    ("CELL_MARGIN", r"row \"Time limit\"\), plus # s", limits.CELL_MARGIN),
    ("cell_timeout", r"\(# s for this course\)", limits.cell_timeout(max(q.time_limit for q in COURSE.questions))),
    ("MARGIN", r"Its `timeout` is the question's `time_limit` plus # minutes", github_classroom.MARGIN / 60),
    # what the sandbox needs of the machine (sandbox/base.py), which the messages quote too
    ("PROCESSES_NEEDED", r"the kit needs # processes of its own at once", PROCESSES_NEEDED["linux"]),
    (
        "PROCESSES_NEEDED",
        r"or under the portable backend #, the grader, a child and its warm spare",
        PROCESSES_NEEDED["portable"],
    ),
    ("MEMORY_NEEDED", r"grading the solutions holds at most # MB with the Linux backend", MEMORY_NEEDED["linux"] >> 20),
    ("MEMORY_NEEDED", r"MB with the Linux backend and # MB with the portable one", MEMORY_NEEDED["portable"] >> 20),
    # left-behind folders (STALE_SECONDS), and the class's own size limits
    ("STALE_SECONDS", r"the folder has been untouched for # minutes", limits.STALE_SECONDS / 60),
    ("GIT_BYTES", r"objects over # GiB", intake.GIT_BYTES / GIB),
    ("COPY_LIMIT", r"An entry larger than # MiB compressed", cluster.COPY_LIMIT / MIB),
    ("MODULE_BYTES", r"files over # MiB are ignored", gradescope.MODULE_BYTES / MIB),
]


def _text(path: Path) -> str:
    """path's text with every run of white space made one space: a sentence may wrap anywhere."""
    return " ".join(path.read_text(encoding="utf-8").split())


def _pattern(phrasing: str) -> str:
    return phrasing.replace("#", NUMBER)


def _number(quoted: str) -> float:
    return WORDS[quoted] if quoted in WORDS else float(quoted.replace(",", ""))


@pytest.mark.parametrize(("phrasing", "value"), [q[1:] for q in QUOTES], ids=[phrasing for _, phrasing, _ in QUOTES])
def test_every_limit_the_docs_quote_is_the_codes(phrasing, value):
    """The phrasing is in the docs, and each time it quotes the code's value."""
    found = [(path, match) for path in DOCS for match in re.finditer(_pattern(phrasing), _text(path))]
    assert found, f"no doc says `{phrasing}` any more: update QUOTES in tests/test_limits_docs.py"
    wrong = [
        f"{path.relative_to(ROOT)}: `{match.group(0)}`" for path, match in found if _number(match.group(1)) != value
    ]
    assert not wrong, f"the code's value is {value:g}, these sentences quote another: {wrong}"


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_size_the_docs_quote_is_checked(path):
    """Each `N GiB` and `N MiB` of the docs (a limit: measurements are in MB and GB) is within a phrasing of QUOTES."""
    text = _text(path)
    covered = [match.span() for _, phrasing, _ in QUOTES for match in re.finditer(_pattern(phrasing), text)]
    unchecked = [
        text[max(0, m.start() - 40) : m.end() + 20]
        for m in re.finditer(r"\d[\d,.]* (?:GiB|MiB)\b", text)
        if not any(start <= m.start() and m.end() <= end for start, end in covered)
    ]
    assert not unchecked, f"{path.name} quotes sizes no test checks (add them to QUOTES): {unchecked}"


@pytest.mark.parametrize("figure", sorted({figure for figure, _, _ in QUOTES}))
def test_every_limit_is_quoted_in_one_doc_file(figure):
    """A figure of the code is written in one doc file: the others point to it, so changing it changes one doc."""
    quoting = {
        str(path.relative_to(ROOT))
        for quoted, phrasing, _ in QUOTES
        if quoted == figure
        for path in DOCS
        if re.search(_pattern(phrasing), _text(path))
    }
    assert len(quoting) <= 1, (
        f"{figure} is quoted in {sorted(quoting)}: keep its figure in one, the others pointing to it"
    )
