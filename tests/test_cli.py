"""The command line as a student meets it: table, JSON, exit codes, and one clear line for bad input."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Cli

from autograder.course.manifest import load_course
from autograder.course.results import missing_file

ROOT = Path(__file__).resolve().parent.parent
COURSE = load_course(ROOT)


@pytest.fixture()
def kit(tmp_path: Path) -> Path:
    """A copy of the kit whose exercises/ a test may edit."""
    for name in ("autograder", "reference", "solutions", "exercises"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "course.yaml", tmp_path)
    return tmp_path


def test_solutions_score_full_marks_as_json(kit: Path, cli: Cli):
    done = cli(kit, "check", "--solutions", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["score"], report["max_score"]) == (COURSE.max_score, COURSE.max_score)
    assert [q["number"] for q in report["questions"]] == COURSE.numbers
    for question in report["questions"]:
        assert question["status"] == "passed" and question["score"] == question["max_score"]
        assert set(question) >= {"number", "title", "score", "max_score", "status", "tests"}
        assert all(set(test) == {"name", "passed", "message"} and test["passed"] for test in question["tests"])


def test_stubs_are_not_attempted_and_exit_1(kit: Path, cli: Cli):
    done = cli(kit, "check", "--json")  # a copy: check remembers its result under the kit's .autograder/
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["score"] == 0
    assert {q["status"] for q in report["questions"]} == {"not attempted"}


def test_table_shows_failures_then_selftests_of_full_marks(kit: Path, cli: Cli):
    shutil.copy(kit / "solutions" / "q01_causal_mask.py", kit / "exercises")
    source = (kit / "solutions" / "q02_scaled_scores.py").read_text().replace("/ math.sqrt(d)", "/ d")
    (kit / "exercises" / "q02_scaled_scores.py").write_text(source)
    done = cli(kit, "check", "1", "2")
    assert done.returncode == 1
    assert "8 / 8  passed" in done.stdout and "failed" in done.stdout
    assert "x scaled_scores divides q k^T by sqrt(d) -- the output: 1 of 1 positions differ" in " ".join(
        done.stdout.split()
    )
    assert "Self-test for question 1" in done.stdout and "Self-test for question 2" not in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize(
    "args, needle",
    [
        (["check", "11"], "there is no question '11': valid numbers are 1-10"),
        (["check", "x"], "there is no question 'x'"),
        (["hint", "0"], "valid numbers are 1-10"),
        (["frobnicate"], "invalid choice"),
        (["chek", "3"], "there is no command 'chek': did you mean `python -m autograder check`?"),
        (["selftets", "2"], "did you mean `python -m autograder selftest`?"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args, needle, cli: Cli):
    done = cli(ROOT, *args)
    assert done.returncode == 2
    assert needle in done.stderr and len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""


def test_renamed_function_costs_only_its_checks(kit: Path, cli: Cli):
    source = (kit / "solutions" / "q01_causal_mask.py").read_text().replace("def causal_mask(", "def causal_mask_(")
    (kit / "exercises" / "q01_causal_mask.py").write_text(source)
    question = json.loads(cli(kit, "check", "1", "--json").stdout)["questions"][0]
    messages = {test["name"]: test for test in question["tests"]}
    assert (
        messages["causal_mask is a bool lower triangle"]["message"]
        == "function `causal_mask` not found in exercises/q01_causal_mask.py"
    )
    assert 0 < question["score"] < question["max_score"]


def test_missing_file_is_an_error_for_that_question_only(kit: Path, cli: Cli):
    shutil.copy(kit / "solutions" / "q01_causal_mask.py", kit / "exercises")
    (kit / "exercises" / "q02_scaled_scores.py").unlink()
    report = json.loads(cli(kit, "check", "1", "2", "--json").stdout)
    first, second = report["questions"]
    assert first["status"] == "passed"
    # as Gradescope words it
    assert second["status"] == "error" and second["reason"] == missing_file("q02_scaled_scores.py", "exercises/")


@pytest.mark.parametrize(
    "edit, needle",
    [
        (("points: 8", "points: eight"), "course.yaml line 27: `questions[0].points` must be a float"),
        (("    slug: causal_mask\n", ""), "`questions[0]` lacks the key `slug`"),
        (("title: \"Attention", "title: [\"Attention"), "course.yaml line 3: not valid YAML"),
    ],
)
def test_malformed_manifest_names_key_and_line(kit: Path, edit, needle, cli: Cli):
    text = (kit / "course.yaml").read_text()
    (kit / "course.yaml").write_text(text.replace(*edit, 1))
    done = cli(kit, "list")
    assert done.returncode == 2 and needle in done.stderr and "Traceback" not in done.stderr


def test_list_hint_and_selftest(kit: Path, cli: Cli):
    """In a copy of the kit: the checkout's .autograder/ (a maintainer's own checks and hints) is not the test's."""
    listing = cli(kit, "list")
    assert (
        listing.returncode == 0 and "not started" in listing.stdout and "100" not in listing.stdout.split("Status")[0]
    )
    hints = cli(kit, "hint", "3")
    assert hints.returncode == 0 and "1. " in hints.stdout
    selftest = cli(kit, "selftest", "2")
    # not at full marks
    assert selftest.returncode == 0 and "Q1." in selftest.stdout and "Model answer:" not in selftest.stdout


def test_hint_gives_the_next_hint_on_each_asking_and_all_with_all(kit: Path, cli: Cli):
    """`hint 3` shows the first hint and says how to get more; asked again, the first two; `--all` every one; the
    count is kept under .autograder/ as the last check is."""
    first, second = cli(kit, "hint", "3"), cli(kit, "hint", "3")
    assert (
        first.returncode == 0
        and "1. " in first.stdout
        and "\n  2. " not in first.stdout
        and "hint 1 of " in first.stdout
    )
    assert "\n  2. " in second.stdout and "hint 2 of " in second.stdout
    every = cli(kit, "hint", "3", "--all")
    assert "\n  3. " in every.stdout and " of " not in every.stdout.splitlines()[-1]
    assert (kit / ".autograder" / "hints.json").exists()
    assert "hint 1 of " in cli(kit, "hint", "4").stdout  # each question counts on its own


def test_printed_output_names_the_call_it_came_from_and_where_the_rest_is(kit: Path, cli: Cli):
    """Code that prints: the report's line names the call during which it printed first, with its inputs, and the
    file under .autograder/ that holds all of it."""
    source = (kit / "solutions" / "q01_causal_mask.py").read_text(encoding="utf-8")
    source = source.replace(
        '    return scores.masked_fill(~mask, float("-inf"))',
        '    print("DEBUG", tuple(scores.shape))\n    return scores.masked_fill(~mask, float("-inf"))',
        1,
    )
    # and a bug, so that the report shows it
    source = source.replace("weights / weights.sum(dim=-1, keepdim=True)", "weights / T", 1)
    assert 'print("DEBUG"' in source and "weights / T" in source
    (kit / "exercises" / "q01_causal_mask.py").write_text(source, encoding="utf-8")
    done = cli(kit, "check", "1")
    text = " ".join(done.stdout.split())
    assert "the first, during mask_scores(float32 (" in text and ": DEBUG (" in text, done.stdout
    kept = kit / ".autograder" / "output-q01.txt"
    assert ".autograder/output-q01.txt" in text and kept.read_text(encoding="utf-8").count("DEBUG") > 1


def test_list_remembers_the_last_check_until_the_file_changes(kit: Path, cli: Cli):
    shutil.copy(kit / "solutions" / "q01_causal_mask.py", kit / "exercises")
    assert cli(kit, "check", "1").returncode == 0
    assert "8 / 8 passed at the last check" in cli(kit, "list").stdout
    with open(kit / "exercises" / "q01_causal_mask.py", "a") as source:
        source.write("# an edit\n")
    assert "changed since the last check: run `check 1`" in cli(kit, "list").stdout


def test_real_timings_are_shown_in_the_table_but_never_graded(kit: Path, cli: Cli):
    table = cli(kit, "check", "9", "--solutions")
    assert table.returncode == 0 and "real clock (not graded): T=256:" in " ".join(table.stdout.split())
    question = json.loads(cli(kit, "check", "9", "--solutions", "--json").stdout)["questions"][0]
    assert "notes" not in question and question["score"] == question["max_score"]


def test_a_failed_question_points_to_the_failed_answers_it_runs(kit: Path, cli: Cli):
    shutil.copy(kit / "solutions" / "q01_causal_mask.py", kit / "exercises")
    source = (kit / "solutions" / "q02_scaled_scores.py").read_text().replace("/ math.sqrt(d)", "/ d")
    (kit / "exercises" / "q02_scaled_scores.py").write_text(source)
    source = (
        (kit / "solutions" / "q03_attention.py")
        .read_text()
        .replace("dim=-1)  # (..., Tq, Tk), each row", "dim=-2)  # (..., Tq, Tk), each row")
    )
    (kit / "exercises" / "q03_attention.py").write_text(source)
    assert cli(kit, "check", "2").returncode == 1  # remembered: question 2 is not at full marks
    done = cli(kit, "check", "3")
    assert done.returncode == 1 and "runs your code from question(s) 2: `check 2` first" in " ".join(
        done.stdout.split()
    )


def test_a_failing_report_in_french_says_the_exception_and_the_stop_in_french(kit: Path, cli: Cli):
    source = (kit / "solutions" / "q01_causal_mask.py").read_text()
    source = source.replace("    T = x.shape[-2]\n", "    raise ValueError('boom')\n", 1)  # prefix_average raises
    # causal_mask ends the process
    source = source.replace("    return torch.ones(T, T, dtype=torch.bool).tril()", "    import os; os._exit(3)", 1)
    (kit / "exercises" / "q01_causal_mask.py").write_text(source)
    question = json.loads(cli(kit, "check", "1", "--lang", "fr", "--json").stdout)["questions"][0]
    # split(): no-break spaces too
    raised, exited, after = (" ".join(test["message"].split()) for test in question["tests"])
    assert raised.startswith("a levé ValueError : boom dans exercises/q01_causal_mask.py, ligne ")
    assert (
        question["reason"]
        == "le processus s'est terminé (code de sortie 3)\u00a0: n'appelez pas sys.exit() ni os._exit() dans une "
           "réponse"
    )
    assert exited == " ".join(question["reason"].split()) and question["status"] == "crashed"
    # mask_scores, right, runs in a fresh child: the crash costs only its own check
    assert after == "" and question["tests"][2]["passed"]


def _printing_answer(kit: Path) -> None:
    """Question 1's solution, but mask_scores prints a check mark and a rocket and returns the scores unmasked."""
    source = (kit / "solutions" / "q01_causal_mask.py").read_text()
    source = source.replace("def mask_scores(", "def mask_scores_(") + (
        "\n\ndef mask_scores(scores, mask):\n    print(\"\u2713 ... \U0001f680\")\n    return scores.clone()\n"
    )
    (kit / "exercises" / "q01_causal_mask.py").write_text(source, encoding="utf-8")


@pytest.mark.parametrize(
    ("environment", "args"),
    [
        ({"PYTHONIOENCODING": "cp1252"}, ["check", "1"]),
        ({"PYTHONIOENCODING": "cp1252"}, ["check", "1", "--json"]),
        ({"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}, ["check", "1", "--lang", "fr"]),
    ],
)
def test_the_report_is_written_whatever_the_output_encoding(kit: Path, environment: dict, args: list):
    """A stdout that cannot show the student's ✓ and 🚀 (a Windows pipe: cp1252) or French letters (LC_ALL=C): the whole
    report all the same, what the encoding lacks replaced."""
    _printing_answer(kit)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONIOENCODING", "PYTHONUTF8", "LANG", "LC_ALL", "LANGUAGE")
    }
    done = subprocess.run(
        [sys.executable, "-m", "autograder", *args],
        cwd=kit,
        capture_output=True,
        timeout=120,
        env={**env, **environment},
    )
    out, err = done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    assert done.returncode == 1, err
    if "--json" in args:
        assert json.loads(out)["score"] == 5 and "\\u2713 ... \\ud83d\\ude80" in out
    else:
        assert "5 / 8" in out and "? ... ?" in out and "Traceback" not in out + err and "UnicodeEncodeError" not in err


def test_checks_keep_their_names_under_OO(kit: Path, cli: Cli):
    """`python -OO` strips docstrings; the checks' names, read from the suites' source, stay what they are (those of
    a run with docstrings: this process's)."""
    assert sys.flags.optimize < 2, "this process must keep its docstrings to compare with"
    names = [[test["name"] for test in json.loads(cli(kit, "check", "1", "--solutions", "--json").stdout)
              ["questions"][0]["tests"]]]
    done = subprocess.run(
        [sys.executable, "-OO", "-m", "autograder", "check", "1", "--solutions", "--json"],
        cwd=kit,
        capture_output=True,
        text=True,
        timeout=120,
    )
    names.append([test["name"] for test in json.loads(done.stdout)["questions"][0]["tests"]])
    assert names[0] == names[1] and "causal_mask is a bool lower triangle" in names[1]


def test_no_bytecode_written_into_the_kit_when_the_user_asks_for_none(kit: Path):
    """PYTHONDONTWRITEBYTECODE=1: the sandbox's isolated children (-I drops that variable) write no __pycache__
    either."""
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "check", "1", "--solutions"],
        cwd=kit,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert not list((kit / "autograder").rglob("__pycache__")), list((kit / "autograder").rglob("__pycache__"))


def test_the_call_that_printed_never_shows_a_generators_seed() -> None:
    """A generator argument is named as such: its seed comes from the course secret in class grading."""
    from autograder.engine.proxy import _shown

    assert _shown({"__generator__": 12345}) == "generator" and "12345" not in _shown({"__generator__": 12345})
    assert _shown(3) == "3" and _shown([16, 32]) == "[16, 32]" and _shown([{"__generator__": 1}]) == "list"
