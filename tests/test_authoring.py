"""docs/authoring.md, followed literally: its question 99, added to a copy of the kit, passes dev-check and grades as
promised.

The guide's code is this test's code. In docs/authoring.md, a line `<!-- test: ACTION -->` governs the
fenced block after it, and the walkthrough below does what it says, in the guide's order, in a copy of
the kit (the working directory of every command, with PYTHONPATH unset: the copy's own autograder package):

    entry PATH                    replace, in PATH (course.yaml), the text from the block's first line to the end of
    that
                                  entry (the next line at that indentation, or the end) with the block
    write PATH                    write the block to PATH
    file PATH                     PATH, as the steps before left it, must equal the block
    run, exit status N            run each line of the block in a shell; each must exit with N
    output                        the last command run printed exactly the block
    output, numbers vary          the same, every number and list of numbers replaced by N on both sides
    proxy N                       the block runs with `student` bound to question N of the kit's solutions/

The module takes 50 s on two idle cores (up to two minutes on a loaded machine): thirteen commands,
each a fresh Python that imports torch, plus dev-check, which grades every question of the kit. The
fixture prints each command's time (shown with -s, or on a failure).
"""
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml

from autograder.course.manifest import load_course
from autograder.engine.plugin import KitPlugin
from autograder.maintainer.stubs import make_stub

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "authoring.md"
COPIED = ("autograder", "reference", "solutions", "exercises", "course.yaml", "pyproject.toml",
          # the kit, and the kit tests the guide runs
          "tests/conftest.py", "tests/test_corpus.py", "tests/test_mistakes.py", "tests/test_code_standards.py")
BLOCK = re.compile(
    r"^<!-- test: (?P<action>[^>]*?) -->\n```(?P<lang>\w*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL
)
NUMBER = 99  # the guide's question: a number no course of this kit will have, so a real question never meets it
SOLUTION = f"solutions/q{NUMBER}_softmax_temperature.py"
STUB = f"exercises/q{NUMBER}_softmax_temperature.py"
SUITE = f"autograder/suites/test_q{NUMBER}_softmax_temperature.py"


@dataclass(frozen=True)
class Block:
    """One marked code block of the guide: what to do with it, its language and its text."""

    action: str
    lang: str
    body: str


def blocks(action: str = "") -> list[Block]:
    """The guide's marked blocks, in order; only those whose action starts with action, when given."""
    found = [
        Block(m["action"].strip(), m["lang"], m["body"]) for m in BLOCK.finditer(GUIDE.read_text(encoding="utf-8"))
    ]
    return [block for block in found if block.action.startswith(action)]


def commands(block: Block) -> list[str]:
    """The shell commands of a run block: its non-empty lines."""
    return [line for line in block.body.splitlines() if line.strip()]


@dataclass
class Walk:
    """What following the guide did: every command with its result, and every mismatch met on the way."""

    kit: Path
    # (command, expected status, result)
    runs: list[tuple[str, int, subprocess.CompletedProcess]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def result(self, command: str) -> subprocess.CompletedProcess:
        """The result of the first run of command (which the guide must hold)."""
        found = [done for line, _, done in self.runs if line == command]
        assert found, f"the guide does not run `{command}`"
        return found[0]


def _copy_kit(target: Path) -> None:
    """The parts of the kit the guide works on, without caches."""
    for name in COPIED:
        source = ROOT / name
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, target / name)


def _run(kit: Path, command: str) -> subprocess.CompletedProcess:
    """command in a shell in the copy, with that copy's autograder package and a fixed report width."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    # `python` is this venv's
    env.update(COLUMNS="100", PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    start = time.monotonic()
    done = subprocess.run(
        command, shell=True, cwd=kit, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    print(f"{time.monotonic() - start:6.1f} s  {command}")  # shown with -s or on a failure: where the minute goes
    return done


def _numbers(text: str) -> str:
    """text with each number, and each list of numbers (`[1, 2, 99]`), written N: the counts of the kit's questions
    vary."""
    return re.sub(r"\d+(, \d+)*", "N", text)


def _replace_entry(text: str, entry: str) -> str:
    """text with the list entry that begins with entry's first line (a comment above the `- ` line, say) replaced by
    entry: up to the first line after its `- ` line that is not blank and not indented deeper."""
    first = entry.splitlines()[0]
    start = text.index(first + "\n")
    indent = first[: len(first) - len(first.lstrip())]
    lines = text[start:].splitlines(keepends=True)
    end = next(index for index, line in enumerate(lines) if line.startswith(indent + "- ")) + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > len(indent)):
        end += 1
    while not lines[end - 1].strip():  # the blank lines before the next entry stay with it
        end -= 1
    return text[:start] + entry + "".join(lines[end:])


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> Walk:
    """A copy of the kit taken through the guide, block by block."""
    kit = tmp_path_factory.mktemp("kit")
    _copy_kit(kit)
    done = Walk(kit)
    last: subprocess.CompletedProcess | None = None
    for block in blocks():
        verb, _, argument = block.action.partition(" ")
        if verb == "entry":
            if block.body.splitlines()[0] not in (kit / argument).read_text(encoding="utf-8"):
                done.problems.append(
                    f"{argument} holds no line {block.body.splitlines()[0]!r} for the guide's entry to replace"
                )
            else:
                (kit / argument).write_text(
                    _replace_entry((kit / argument).read_text(encoding="utf-8"), block.body), encoding="utf-8"
                )
        elif verb == "write":
            (kit / argument).parent.mkdir(parents=True, exist_ok=True)
            (kit / argument).write_text(block.body, encoding="utf-8")
        elif verb == "file":
            have = (kit / argument).read_text(encoding="utf-8") if (kit / argument).exists() else "(missing)"
            if have != block.body:
                done.problems.append(f"{argument} is not what the guide shows:\n{have}")
        elif verb == "run,":
            status = int(block.action.rsplit(" ", 1)[1])
            for command in commands(block):
                last = _run(kit, command)
                done.runs.append((command, status, last))
        elif verb in ("output", "output,"):
            printed = last.stdout if last is not None else ""
            same = _numbers if block.action.endswith("numbers vary") else str
            if same(printed.rstrip("\n")) != same(block.body.rstrip("\n")):
                done.problems.append(
                    f"after `{done.runs[-1][0]}` the guide shows\n{block.body}but it printed\n{printed}"
                )
        elif verb != "proxy":
            done.problems.append(f"unknown action {block.action!r}")
    return done


def test_the_guide_has_every_step() -> None:
    """The blocks the walkthrough needs are there, and each code block parses."""
    actions = [block.action for block in blocks()]
    for wanted in ("entry course.yaml", f"write {SOLUTION}", f"file {STUB}", f"write {SUITE}", "proxy 5", "output"):
        assert wanted in actions, f"docs/authoring.md has no `<!-- test: {wanted} -->` block"
    assert len(blocks(f"write tests/corpus/wrong/q{NUMBER}_")) >= 3 and blocks(f"write tests/corpus/right/q{NUMBER}_")
    assert NUMBER not in load_course(ROOT).numbers, (
        "the kit has a question of the guide's number: the walkthrough would meet it"
    )
    assert f"python -m autograder new {NUMBER} softmax_temperature" in commands(blocks("run")[0])[0], (
        "the guide starts with `new`"
    )
    for block in blocks():
        if block.lang == "python":
            ast.parse(block.body, block.action)
        elif block.lang == "yaml":
            assert isinstance(yaml.safe_load(block.body), list)
    fences = re.findall(r"^```", GUIDE.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(fences) == 2 * len(blocks()), (
        "a code block without a `<!-- test: ... -->` line just above it, which nothing checks"
    )


def test_every_step_does_what_the_guide_says(walk: Walk) -> None:
    """Every command exits as its block says, and every file and output shown is the real one."""
    wrong = [
        f"`{command}` exited {done.returncode}, the guide says {status}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        for command, status, done in walk.runs
        if done.returncode != status
    ]
    assert not wrong and not walk.problems, "\n\n".join(wrong + walk.problems)


def test_the_stub_is_the_tools_work(walk: Walk) -> None:
    """exercises/q99 is the stub tool's output for the solution, and the stub tool left the other stubs alone."""
    assert (walk.kit / STUB).read_text() == make_stub((walk.kit / SOLUTION).read_text())
    for path in (ROOT / "exercises").glob("q*.py"):
        assert (walk.kit / "exercises" / path.name).read_text() == path.read_text(), path.name


def test_dev_check_passes_with_the_new_question(walk: Walk) -> None:
    done = walk.result("python -m autograder dev-check")
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        f"numbers {load_course(ROOT).numbers + [NUMBER]}" in lines[0]
        and "ok      filled in: nothing left" in done.stdout
    )
    assert all(line.startswith("ok ") for line in lines[:-1]) and lines[-1].endswith("checks passed")


def test_check_gives_the_solution_full_marks(walk: Walk) -> None:
    done = walk.result(f"python -m autograder check {NUMBER} --solutions --json")
    report = json.loads(done.stdout)
    (question,) = report["questions"]
    assert (question["number"], question["status"], question["score"], question["max_score"]) == (
        NUMBER,
        "passed",
        4,
        4,
    ), question
    assert [test["name"] for test in question["tests"]] == [
        "softmax_with_temperature is the softmax of scores / temperature",
        "softmax_with_temperature stays finite on large scores",
    ]
    assert done.returncode == 0


def test_check_calls_the_stub_not_attempted(walk: Walk) -> None:
    done = walk.result(f"python -m autograder check {NUMBER} --json")
    (question,) = json.loads(done.stdout)["questions"]
    assert (question["status"], question["score"]) == ("not attempted", 0), question
    assert done.returncode == 1


def test_plain_pytest_passes_the_solution_and_fails_the_stub(walk: Walk) -> None:
    passed = walk.result(f"python -m pytest {SUITE} --package solutions -p no:cacheprovider")
    failed = walk.result(f"python -m pytest {SUITE} --package exercises -p no:cacheprovider")
    assert passed.returncode == 0 and re.search(r"\b15 passed in\b", passed.stdout), passed.stdout
    assert failed.returncode == 1 and re.search(r"\b15 failed in\b", failed.stdout), failed.stdout
    first = walk.result(f"python -m pytest {SUITE} --package exercises -p no:cacheprovider -x")
    assert (
        re.search(r"\b1 failed in\b", first.stdout)
        and "E       autograder.engine.proxy.StudentError: not attempted" in first.stdout
    )


def test_plain_pytest_options_select_and_report(walk: Walk) -> None:
    """-k, -vv and --junitxml as the guide uses them: a few float64 inputs of the first check, each listed and
    reported."""
    (command,) = [command for command, _, _ in walk.runs if "--junitxml" in command]
    done = walk.result(command)
    listed = re.findall(r"^\S+::(\S+)\[(.*)\] PASSED", done.stdout, re.MULTILINE)
    assert listed and all(name == "test_softmax_with_temperature" and "float64" in ids for name, ids in listed), (
        done.stdout
    )
    assert re.search(rf"\b{len(listed)} passed, {15 - len(listed)} deselected in\b", done.stdout), done.stdout
    suite = ElementTree.parse(walk.kit / f"q{NUMBER}-report.xml").getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == (str(len(listed)), "0", "0")


def test_the_corpus_judges_the_new_files(walk: Walk) -> None:
    done = walk.result(
        f"python -m pytest tests/test_corpus.py tests/test_mistakes.py tests/test_code_standards.py -k q{NUMBER} -p "
        f"no:cacheprovider"
    )
    wrong, right = len(blocks("write tests/corpus/wrong/")), len(blocks("write tests/corpus/right/"))
    assert done.returncode == 0 and f"{3 * (wrong + right) + 4} passed" in done.stdout, done.stdout + done.stderr


@pytest.fixture(scope="module")
def solutions_plugin(session_sandbox: object) -> KitPlugin:
    """The kit's plugin grading the kit's own solutions/, in the session's sandbox, shared by the guide's fragments."""
    return KitPlugin(load_course(ROOT), ROOT / "solutions", session_sandbox)


@pytest.mark.parametrize("block", blocks("proxy"), ids=lambda block: block.action)
def test_proxy_fragments_run_against_the_solutions(solutions_plugin: KitPlugin, block: Block) -> None:
    """Each `student` fragment of the guide runs, its asserts holding, on that question of the kit's solutions/."""
    question = solutions_plugin.course.question(int(block.action.split()[1]))
    student = solutions_plugin.start(question)
    try:
        exec(compile(block.body, f"docs/authoring.md ({block.action})", "exec"), {"student": student})
    finally:
        solutions_plugin.finish(question)
