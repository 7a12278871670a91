"""`python -m autograder watch` as a student meets it: each save re-grades, full marks move on, Ctrl-C ends cleanly."""
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from autograder.cli.watch import imported, stamp, wait_for_save
from autograder.course.manifest import load_course

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = len(load_course(ROOT).questions)  # the course's count, whatever it holds
WAIT_SECONDS = 60  # the most one step may take on a loaded machine (a step takes a few seconds here)


@pytest.fixture()
def kit(tmp_path: Path) -> Path:
    """A copy of the kit whose exercises/ are the stubs, but question 1 solved with one bug: the mask is triu, not
    tril."""
    for name in ("autograder", "reference", "solutions", "exercises"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "course.yaml", tmp_path)
    solved = (tmp_path / "solutions" / "q01_causal_mask.py").read_text()
    buggy = solved.replace("dtype=torch.bool).tril()", "dtype=torch.bool).triu()")
    assert buggy != solved
    (tmp_path / "exercises" / "q01_causal_mask.py").write_text(buggy)
    return tmp_path


class Screen:
    """What the watch process prints, read on a thread as it comes."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process, self.text = process, ""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.text += line

    def wait_for(self, *patterns: str, start: int) -> int:
        """Wait until each regular expression matches what was printed after start (a space matches any run of
        white space, line ends included: the lines are wrapped to the terminal); the end of the text then."""
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline and self.process.poll() is None:
            text = self.text
            if all(re.search(pattern.replace(" ", r"\s+"), text[start:]) for pattern in patterns):
                return len(text)
            time.sleep(0.1)
        pytest.fail(f"watch never printed {patterns} (exit status {self.process.poll()}); it printed:\n{self.text}")


def test_watch_follows_the_student_from_question_1_to_2_and_ends_on_ctrl_c(kit: Path):
    process = subprocess.Popen([sys.executable, "-m", "autograder", "watch"], cwd=kit, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        screen = Screen(process)
        seen = screen.wait_for(
            r"Causal mask and prefix averages [\d.]+ / 8 failed",
            rf"\[-+\] 0 / {QUESTIONS} questions at full marks",
            r"Watching question 1: save exercises/q01_causal_mask\.py",
            start=0,
        )
        assert "Scaled dot-product scores" not in screen.text  # question 1 is followed until it is at full marks
        shutil.copy(kit / "solutions" / "q01_causal_mask.py", kit / "exercises")  # tril for triu: the size is the same
        seen = screen.wait_for(
            r"Saved q01_causal_mask\.py",
            r"Causal mask and prefix averages 8 / 8 passed",
            r"Self-test of question 1 unlocked",
            r"on to question 2",
            r"Scaled dot-product scores 0 / 8 not attempted",
            rf"\[#+-+\] 1 / {QUESTIONS} questions at full marks",
            r"Watching question 2: save exercises/q02_scaled_scores\.py",
            start=seen,
        )
        shutil.copy(kit / "solutions" / "q02_scaled_scores.py", kit / "exercises")
        seen = screen.wait_for(
            r"Saved q02_scaled_scores\.py",
            r"Scaled dot-product scores 8 / 8 passed",
            rf"2 / {QUESTIONS} questions at full marks",
            r"Watching question 3: save exercises/q03_attention\.py \(and q01_causal_mask\.py, q02_scaled_scores\.py, "
            r"which it runs\)",
            start=seen,
        )
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()
    errors = process.stderr.read()
    time.sleep(0.2)  # the reader thread takes the last line
    assert screen.text[seen:].strip() == f"Stopped watching: 2 / {QUESTIONS} questions at full marks."
    assert errors == "" and "Traceback" not in screen.text
    assert screen.text.count("Checking question 1 ...") == 2  # once at the start, once for the save


def test_a_question_watches_the_files_of_every_question_it_runs():
    course = load_course(ROOT)
    assert imported(course, 1) == []
    assert imported(course, 3) == [1, 2]
    assert imported(course, 10) == [1, 2, 4, 5]  # question 10 runs question 5, which runs 1, 2 and 4


def test_a_save_that_keeps_the_size_is_seen_and_names_the_file(tmp_path: Path):
    watched, other = tmp_path / "q01.py", tmp_path / "q02.py"
    watched.write_text("x = 1\n")
    other.write_text("y = 1\n")
    before = stamp([watched, other])
    changed: list[list[Path]] = []
    poller = threading.Thread(target=lambda: changed.append(wait_for_save(before, interval=0.01)), daemon=True)
    poller.start()
    watched.write_text("x = 2\n")
    poller.join(timeout=5)
    assert changed == [[watched]]
