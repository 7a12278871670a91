"""The class-entry report (course/class_report.py): OUT/<student>.json read back and written again is the same bytes,
in the key order the kit has always written; every builder of a class report gives one."""
import json
from pathlib import Path

import pytest

from autograder.course.class_report import GRADED, GRADER_ERROR, LATE, UNREADABLE, EntryReport
from autograder.classroom.intake import Contents, Entry
from autograder.classroom.work import failed_report, unreadable_report
from autograder.course.manifest import load_course

ROOT = Path(__file__).resolve().parent.parent
QUESTION = {"number": 1, "title": "Causal mask", "score": 8, "max_score": 8, "status": "passed",
            "tests": [{"name": "shape", "passed": True, "message": ""}]}
# OUT/<student>.json as `grade --deadline` wrote them before the report was typed, keys in the order written then
GRADED_LATE = {
    "score": 8,
    "max_score": 8,
    "questions": [QUESTION],
    "sandbox": {"backend": "linux"},
    "student": "ann",
    "source": {"kind": "repository", "path": "/class/ann", "graded": "exercises/"},
    "commit": "ab" * 20,
    "sha256": "cd" * 32,
    "committed_at": "2026-12-02T10:00:00+00:00",
    "late_hours": 0.0,
    "commits_after_deadline": 0,
    "grader_version": "1.0+0123456789ab",
    "graded_at": "2026-12-03T10:00:00+00:00",
    "similarity": {"1": {"sha256": "ef" * 32, "marks": [1, 2]}},
    "weak_isolation": ["seccomp"],
    "in_a_killed_run": True,
}
FAILED = {
    "score": 0,
    "max_score": 8,
    "questions": [QUESTION | {"score": 0, "status": "error", "reason": "boom", "tests": []}],
    "student": "bob",
    "source": {"kind": "folder", "path": "/class/bob", "graded": ""},
    "sha256": "00" * 32,
    "grader_version": "1.0+0123456789ab",
    "graded_at": "2026-12-03T10:00:00+00:00",
    "problem": "boom",
    "grader_error": True,
    "traceback": "Traceback ...\nOSError: boom",
}


@pytest.mark.parametrize("written", [GRADED_LATE, FAILED], ids=["graded-late", "grader-error"])
def test_a_report_read_back_is_written_again_byte_for_byte(written):
    text = json.dumps(written, indent=1) + "\n"
    assert json.dumps(EntryReport.from_dict(json.loads(text)).to_dict(), indent=1) + "\n" == text


def test_a_key_this_version_does_not_know_is_kept_and_the_worker_never_written():
    report = EntryReport.from_dict(FAILED | {"from_a_newer_kit": [1]})
    report.worker = 1234
    assert report.to_dict()["from_a_newer_kit"] == [1] and "worker" not in report.to_dict()


@pytest.mark.parametrize("data", [[], {"score": 1}, {"questions": "none"}])
def test_what_is_not_a_report_is_refused(data):
    with pytest.raises(ValueError):
        EntryReport.from_dict(data)


def test_the_status_of_an_entry():
    assert EntryReport.from_dict(GRADED_LATE).status == GRADED  # 0 hours late: on time
    assert EntryReport.from_dict(GRADED_LATE | {"late_hours": 2.5}).status == LATE
    assert EntryReport.from_dict(FAILED).status == GRADER_ERROR
    assert EntryReport.from_dict(FAILED | {"grader_error": False}).status == UNREADABLE


def test_the_builders_give_typed_reports_with_the_keys_written_before(tmp_path):
    course = load_course(ROOT)
    entry = Entry("cid", tmp_path / "cid", "folder")
    unreadable = unreadable_report(course, entry, Contents(problem="an empty folder"))
    failed = failed_report(course, entry, Contents(), "Traceback\nOSError: disk full")
    assert isinstance(unreadable, EntryReport) and isinstance(failed, EntryReport)
    assert list(unreadable.to_dict()) == [
        "score",
        "max_score",
        "questions",
        "student",
        "source",
        "sha256",
        "grader_version",
        "graded_at",
        "problem",
    ]
    assert (
        list(failed.to_dict())[-3:] == ["problem", "grader_error", "traceback"]
        and "OSError: disk full" in failed.problem
    )
    assert all(q["score"] == 0 and q["reason"] == "an empty folder" for q in unreadable.questions)
