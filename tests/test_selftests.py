"""Which self-test answers `check` prints: those of the questions named, and of those that have just reached full marks;
`selftest N` shows them from the first time question N reached full marks on."""
import shutil
from pathlib import Path

import pytest
from conftest import Cli

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def kit(tmp_path: Path) -> Path:
    """A kit of two questions (`check` grades only those): question 1 solved, question 2 dividing by d, not sqrt(d).
    The commands run in-process (the cli fixture): what they print and remember is tested, not the process."""
    for name in ("solutions", "exercises"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = (ROOT / "course.yaml").read_text()
    (tmp_path / "course.yaml").write_text(manifest[: manifest.index("\n  - number: 3\n")] + "\n")
    shutil.copy(tmp_path / "solutions" / "q01_causal_mask.py", tmp_path / "exercises")
    source = (tmp_path / "solutions" / "q02_scaled_scores.py").read_text()
    (tmp_path / "exercises" / "q02_scaled_scores.py").write_text(source.replace("/ math.sqrt(d)", "/ d"))
    return tmp_path


def test_answers_show_once_at_full_marks_then_when_named(kit: Path, cli: Cli):
    first = cli(kit, "check")
    assert first.returncode == 1 and "Self-test for question 1" in first.stdout and "unlocked" not in first.stdout
    locked = cli(kit, "selftest", "2")
    assert locked.returncode == 0 and "Q1." in locked.stdout and "Model answer:" not in locked.stdout
    assert "their model answers open once `python -m autograder check 2` gives full marks" in " ".join(
        locked.stdout.split()
    )

    shutil.copy(kit / "solutions" / "q02_scaled_scores.py", kit / "exercises")
    second = cli(kit, "check")
    assert second.returncode == 0 and "Self-test for question 2" in second.stdout
    assert "Self-test for question 1" not in second.stdout  # at full marks at the previous check too: one line instead
    assert "Self-test of question 1 unlocked: `python -m autograder selftest 1` opens it." in second.stdout
    assert second.stdout.count("Self-test for question") == 1 and second.stdout.count("A1. ") == 1
    unlocked = cli(kit, "selftest", "2")
    assert unlocked.returncode == 0 and unlocked.stdout.count("Model answer:") == unlocked.stdout.count("\nQ")

    source = (kit / "solutions" / "q02_scaled_scores.py").read_text()  # a regression: question 2 falls below full marks
    (kit / "exercises" / "q02_scaled_scores.py").write_text(source.replace("/ math.sqrt(d)", "/ d"))
    regressed = cli(kit, "check", "2")
    assert regressed.returncode == 1 and "Self-test for question 2" not in regressed.stdout
    still = cli(kit, "selftest", "2")  # the answers, once earned, stay open
    assert still.returncode == 0 and still.stdout.count("Model answer:") == still.stdout.count("\nQ") > 0
    assert "open once" not in still.stdout

    (kit / ".autograder").rename(kit / "memory")  # a memory that can be neither read nor written
    (kit / ".autograder").write_text("")
    named = cli(kit, "check", "1")
    assert named.returncode == 0 and "Self-test for question 1" in named.stdout and named.stderr == ""
