"""`python -m autograder new N SLUG`: a new question's files in one command, refused cleanly, and the question it makes
works once its placeholders are filled in (suite, dev-check, `check N`), in a copy of the kit."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import run_cli

from autograder.course.manifest import load_course
from autograder.maintainer.devcheck import check_placeholders
from autograder.maintainer.new import PLACEHOLDER, NewQuestionError, planned, write_question
from autograder.maintainer.stubs import make_stub, write_stubs

ROOT = Path(__file__).resolve().parent.parent
COURSE = load_course(ROOT)
NUMBER = max(COURSE.numbers) + 1  # a number the course does not have yet, whatever it holds
SLUG = "new_question_example"  # a slug no course will have (a real question 11 may well be padded_attention)
MODULE = f"q{NUMBER:02d}_{SLUG}"
WRITTEN = {"course.yaml", f"solutions/{MODULE}.py", f"exercises/{MODULE}.py", f"reference/{SLUG}.py",
           f"autograder/suites/test_{MODULE}.py", f"autograder/suites/mistakes/q{NUMBER:02d}.py"}


def run(kit: Path, *args: str) -> subprocess.CompletedProcess:
    """`python -m autograder ARGS` in kit, with that copy's own autograder package (whose suites/ holds the new
    question's suite: a command that grades it needs the copy's package). `new` itself runs in this process
    (run_cli): it writes the same files from either package."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=kit, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def copy_kit(target: Path) -> Path:
    """The grader, the oracle, both packages and the manifest, copied to target."""
    for name in ("autograder", "reference", "solutions", "exercises"):
        shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "course.yaml", target)
    return target


def snapshot(kit: Path) -> dict[str, bytes]:
    """Every file of kit but caches, by relative path."""
    return {
        p.relative_to(kit).as_posix(): p.read_bytes()
        for p in kit.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def fill_in(kit: Path) -> None:
    """What an author does after `new`: a tiny real answer (a softmax over the last axis) in the solution and the
    oracle, every other placeholder replaced by text, and the stub made again by the stub tool."""
    for relative in WRITTEN - {f"exercises/{MODULE}.py"}:
        path = kit / relative
        text = re.sub(
            r'raise NotImplementedError\("FILL IN: the (solution|oracle) of question \d+"\)',
            "return x.softmax(dim=-1)",
            path.read_text(encoding="utf-8"),
        )
        path.write_text(text.replace(f"{PLACEHOLDER}: ", "").replace(f"{PLACEHOLDER} ", ""), encoding="utf-8")
    write_stubs(kit / "solutions", kit / "exercises")


@pytest.fixture(scope="module")
def added(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes], subprocess.CompletedProcess]:
    """A copy of the kit, the files it held before, and the result of `new NUMBER SLUG` in it."""
    kit = copy_kit(tmp_path_factory.mktemp("kit"))
    before = snapshot(kit)
    return kit, before, run_cli(kit, "new", str(NUMBER), SLUG)


def test_new_writes_the_questions_files_and_its_entry_last(
    added: tuple[Path, dict[str, bytes], subprocess.CompletedProcess],
) -> None:
    kit, before, done = added
    assert done.returncode == 0, done.stdout + done.stderr
    after = snapshot(kit)
    changed = {path for path in after if before.get(path) != after[path]}
    assert changed == WRITTEN and set(before) <= set(after)
    assert all(path in done.stdout for path in WRITTEN) and "dev-check" in done.stdout
    course = load_course(kit)
    assert course.numbers == COURSE.numbers + [NUMBER] and course.questions[:-1] == COURSE.questions
    question = course.questions[-1]
    assert (question.slug, question.file, question.functions) == (
        SLUG,
        f"exercises/{MODULE}.py",
        (SLUG,),
    )
    assert PLACEHOLDER in question.hints[0] and len(question.selftest) == 2
    assert (kit / f"exercises/{MODULE}.py").read_text() == make_stub((kit / f"solutions/{MODULE}.py").read_text())
    assert "@pytest.mark.points(1)" in (kit / f"autograder/suites/test_{MODULE}.py").read_text()
    assert (kit / "course.yaml").read_text().startswith(before["course.yaml"].decode().rstrip("\n") + "\n\n  # ---")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["1", SLUG], "question 1 already exists"),
        ([str(NUMBER), "causal_mask"], "the slug 'causal_mask' is taken by question 1"),
        ([str(NUMBER), "Padded-Attention"], "is not a slug"),
        ([str(NUMBER), "class"], "is not a slug"),
        (["0", SLUG], "must be 1 or more"),
        (["eleven", SLUG], "invalid int value"),
    ],
)
def test_new_refuses_a_taken_number_or_slug_and_a_bad_slug_writing_nothing(
    tmp_path: Path, args: list[str], needle: str
) -> None:
    kit = copy_kit(tmp_path)
    before = snapshot(kit)
    done = run_cli(kit, "new", *args)
    assert done.returncode == 2 and needle in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert snapshot(kit) == before


def test_new_refuses_when_one_of_its_files_exists_writing_nothing(tmp_path: Path) -> None:
    kit = copy_kit(tmp_path)
    (kit / "reference" / f"{SLUG}.py").write_text('"""Someone else\'s oracle."""\n')
    before = snapshot(kit)
    done = run_cli(kit, "new", str(NUMBER), SLUG)
    assert done.returncode == 2 and f"reference/{SLUG}.py already exists" in done.stderr, done.stderr
    assert snapshot(kit) == before


def test_a_failed_write_leaves_the_kit_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kit = copy_kit(tmp_path)
    before, files = snapshot(kit), planned(load_course(kit), NUMBER, SLUG)
    write_text = Path.write_text

    def full_disk_at_the_bank(path: Path, *args: object, **kwargs: object) -> int:
        if path.name == f"q{NUMBER:02d}.py":
            raise OSError(28, "No space left on device")
        return write_text(path, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_disk_at_the_bank)
    with pytest.raises(NewQuestionError, match=f"mistakes/q{NUMBER:02d}.py could not be written .*nothing was written"):
        write_question(kit, files)
    monkeypatch.undo()
    assert snapshot(kit) == before


def test_an_entry_goes_in_learner_order_between_two_questions(tmp_path: Path) -> None:
    kit = copy_kit(tmp_path)
    manifest = yaml.safe_load((kit / "course.yaml").read_text())
    manifest["questions"] = [q for q in manifest["questions"] if q["number"] != 7 and 7 not in q.get("requires", [])]
    (kit / "course.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    # question 7's bank would be taken by the new question 7
    (kit / "autograder" / "suites" / "mistakes" / "q07.py").unlink()
    course = load_course(kit)
    files = planned(course, 7, "sharper_weights", title="Sharper weights", points=2.5)
    (kit / "course.yaml").write_text(files["course.yaml"])
    numbers = load_course(kit).numbers
    assert numbers == sorted(numbers) and 7 in numbers and load_course(kit).question(7).points == 2.5
    with pytest.raises(NewQuestionError, match="more than 0 points"):
        planned(course, 7, "sharper_weights", points=0)


def test_dev_check_lists_what_is_left_to_fill_in(
    added: tuple[Path, dict[str, bytes], subprocess.CompletedProcess],
) -> None:
    kit, _before, _done = added
    passed, detail = check_placeholders(load_course(kit))
    assert (
        not passed
        and f"solutions/{MODULE}.py lines" in detail
        and f"autograder/suites/test_{MODULE}.py lines" in detail
    )
    assert (
        "course.yaml lines" in detail
        and f"reference/{SLUG}.py lines" in detail
        and f"mistakes/q{NUMBER:02d}.py line 1" in detail
    )
    assert check_placeholders(COURSE) == (True, "nothing left for the author to fill in")


@pytest.fixture(scope="module")
def filled(added: tuple[Path, dict[str, bytes], subprocess.CompletedProcess]) -> Path:
    """The copy after `new`, filled in as an author would."""
    kit, _before, done = added
    assert done.returncode == 0, done.stderr
    fill_in(kit)
    return kit


def test_the_filled_in_question_passes_dev_check(filled: Path) -> None:
    done = run(filled, "dev-check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"numbers {COURSE.numbers + [NUMBER]}" in done.stdout and "ok      filled in: nothing left" in done.stdout


def test_check_grades_the_new_question(filled: Path) -> None:
    solution, stub = (
        run(filled, "check", str(NUMBER), "--solutions", "--json"),
        run(filled, "check", str(NUMBER), "--json"),
    )
    (answer,), (attempt,) = json.loads(solution.stdout)["questions"], json.loads(stub.stdout)["questions"]
    assert (solution.returncode, answer["status"], answer["score"], answer["max_score"]) == (0, "passed", 10, 10), (
        answer
    )
    assert (stub.returncode, attempt["status"], attempt["score"]) == (1, "not attempted", 0), attempt
    (filled / f"exercises/{MODULE}.py").write_text(
        (filled / f"solutions/{MODULE}.py").read_text().replace("x.softmax(dim=-1)", "x.softmax(dim=0)")
    )
    try:
        wrong = run(filled, "check", str(NUMBER), "--json")
    finally:
        write_stubs(filled / "solutions", filled / "exercises")
    (result,) = json.loads(wrong.stdout)["questions"]
    assert (wrong.returncode, result["status"], result["score"]) == (1, "failed", 0), result


def test_the_new_suite_is_plain_pytest(filled: Path) -> None:
    suite = f"autograder/suites/test_{MODULE}.py"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    passed, failed = (
        subprocess.run(
            [sys.executable, "-m", "pytest", suite, "--package", package, "-p", "no:cacheprovider", "-q"],
            cwd=filled,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        for package in ("solutions", "exercises")
    )
    assert passed.returncode == 0 and re.search(r"\b8 passed\b", passed.stdout), passed.stdout + passed.stderr
    assert failed.returncode == 1 and re.search(r"\b8 failed\b", failed.stdout), failed.stdout + failed.stderr


NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]


def test_no_readme_or_guide_writes_the_courses_count_or_total() -> None:
    """Adding a question changes no prose: README.md, docs/ and the release README template name neither the number of
    questions nor the course total (the release README gets its total from course.yaml)."""
    count, total = len(COURSE.questions), f"{COURSE.max_score:g}"
    said = [
        rf"\b({count}|{NUMBER_WORDS[count] if count < len(NUMBER_WORDS) else count}) (graded )?questions\b",
        rf"\b{total} / {total}\b",
        rf"\b{total} points\b",
        rf"\({total} for this kit\)",
    ]
    pages = [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        ROOT / "autograder" / "maintainer" / "release_readme.md",
    ]
    found = [
        f"{page.relative_to(ROOT)}: {match.group(0)!r}"
        for page in pages
        for pattern in said
        for match in re.finditer(pattern, _prose(page.read_text(encoding="utf-8")), re.IGNORECASE)
    ]
    assert not found, found


def _prose(text: str) -> str:
    """text without the output blocks whose numbers the guide declares varying (its worked example's dev-check)."""
    return re.sub(r"<!-- test: output, numbers vary -->\s*```.*?```", "", text, flags=re.DOTALL)


def test_an_example_output_whose_numbers_vary_is_not_prose() -> None:
    """A kit of the guide's example's count (11 questions once it is added) still passes the check above."""
    page = "say 11 questions.\n<!-- test: output, numbers vary -->\n```text\nok 11 questions\n```\nafter"
    assert _prose(page) == "say 11 questions.\n\nafter"


def test_the_release_readme_gives_the_courses_own_total() -> None:
    from dataclasses import replace

    from autograder.maintainer.release import _readme

    two = replace(COURSE, questions=COURSE.questions[:2])
    total = f"{two.max_score:g}"
    readme = _readme(two)
    assert f"python -m autograder check                                 # {total} / {total}" in readme
    assert f"Total: {total} points." in readme and f"{COURSE.max_score:g} / " not in readme


def test_new_writes_the_markers_but_holds_no_marker_line_itself() -> None:
    """The release refuses a shipped file with a solution marker line, and autograder/ ships whole: `new`'s templates
    must make the markers without holding one at the start of a line."""
    from autograder.maintainer.stubs import BEGIN, END

    for path in sorted((ROOT / "autograder").rglob("*.py")):
        marked = [
            n
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if BEGIN.match(line) or END.match(line)
        ]
        assert not marked, (
            f"{path.relative_to(ROOT)} lines {marked} are solution markers: the release would refuse to ship it"
        )
    solution = planned(COURSE, NUMBER, SLUG)[f"solutions/{MODULE}.py"]
    assert sum(bool(BEGIN.match(line) or END.match(line)) for line in solution.splitlines()) == 2
