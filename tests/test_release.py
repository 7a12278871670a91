"""`python -m autograder release`: the learner repository, its two branches, no leaked answers, reproducible."""
import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from autograder.course.manifest import decode_answer, load_course
from autograder.maintainer.release import solution_files, strip_markers
from autograder.maintainer.stubs import BEGIN, END, make_stub, solution_bodies
from answer_scan import ALLOWED, answers, leaks

ROOT = Path(__file__).resolve().parent.parent
TOP_LEVEL = {".github", ".gitignore", "README.md", "autograder", "course.yaml", "exercises", "pyproject.toml"}
# the banks, and the code that records them
UNSHIPPED = ("autograder/suites/mistakes/", "autograder/recording/record.py")
# Solution lines the leak test may find on main without any leak, and why:
MIN_LENGTH = 12  # shorter lines are `return out`, `if causal:`, `times = []`, `return x, y`: they name a variable
#                  or open a block, and say nothing the signature and docstring do not (each region keeps longer lines)
# a seeded generator: the grader makes one in the sandbox too
IDIOMS = {"generator = torch.Generator().manual_seed(seed)"}


def git(repo: Path, *args: str) -> str:
    """Stdout of a git command in repo (fails the test on error)."""
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


def autograder(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`python -m autograder ARGS` in cwd, with that folder's own autograder package."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def branch_files(repo: Path, branch: str) -> dict[str, str]:
    """Path -> text of every file committed on branch."""
    paths = git(repo, "ls-tree", "-r", "--name-only", branch).splitlines()
    return {
        path: subprocess.run(
            ["git", "show", f"{branch}:{path}"], cwd=repo, capture_output=True, text=True, errors="replace", check=True
        ).stdout
        for path in paths
    }


def code(line: str) -> str:
    """A source line without indentation and trailing comment."""
    return line.split("  #")[0].strip()


def regions(source: str) -> list[list[str]]:
    """The non-blank code lines of each solution region, region by region."""
    found, current = [], None
    for line in source.splitlines():
        if BEGIN.match(line):
            current = []
        elif END.match(line):
            found.append(current)
            current = None
        elif current is not None and line.strip():
            current.append(line.strip())
    return found


@pytest.fixture(scope="module")
def release(kit_release: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The kit released twice, into two new folders (the first shared with test_classroom): a second release, the
    whole recording again, for the slow test that compares them only (the others read kit_release)."""
    out = tmp_path_factory.mktemp("release") / "second"
    done = autograder(ROOT, "release", str(out))
    assert done.returncode == 0, done.stderr
    return kit_release, out


@pytest.fixture(scope="module")
def checkouts(release_clones: dict[str, Path]) -> dict[str, Path]:
    """A clone of each branch of the first release."""
    return release_clones


def test_main_holds_the_student_files_only(kit_release: Path) -> None:
    files = branch_files(kit_release, "main")
    assert {path.split("/")[0] for path in files} == TOP_LEVEL
    assert {p for p in files if p.startswith("exercises/")} == {
        f"exercises/{p.name}" for p in (ROOT / "solutions").glob("*.py")
    }
    shipped = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "autograder").rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and p.suffix not in (".pyc", ".po")
        and not p.name.startswith(".")
    }
    recordings = {f"autograder/recordings/q{n:02d}.rec" for n in load_course(ROOT).numbers} | {
        "autograder/recordings/index.json"
    }
    assert {p for p in files if p.startswith("autograder/")} == {
        p for p in shipped if not p.startswith(UNSHIPPED)
    } | recordings
    assert {p for p in shipped if p.startswith(UNSHIPPED)} and not {
        p for p in files if p.startswith(("reference/", *UNSHIPPED))
    }
    assert {f"autograder/suites/{p.name}" for p in (ROOT / "autograder" / "suites").glob("test_q*.py")} <= set(files)
    for name in (ROOT / "solutions").glob("*.py"):
        assert files[f"exercises/{name.name}"] == make_stub(name.read_text())
    assert git(kit_release, "rev-list", "--count", "main") == "1"
    assert git(kit_release, "branch", "--show-current") == "main"
    readme = files["README.md"]
    for words in (
        "pip install -e .",
        "download.pytorch.org/whl/cpu",
        "from autograder import check",
        "check",
        "hint",
        "selftest",
        "git checkout solutions",
        "git diff origin/solutions~1 origin/solutions",
    ):
        assert words in readme


def test_no_solution_text_on_main(kit_release: Path) -> None:
    files = branch_files(kit_release, "main")
    where: dict[str, set[str]] = {}  # code line -> the files of main that hold it
    for name, text in files.items():
        for line in text.splitlines():
            where.setdefault(code(line), set()).add(name)
    assert not [path for path, text in files.items() if any(BEGIN.match(x) or END.match(x) for x in text.splitlines())]
    for path in sorted((ROOT / "solutions").glob("*.py")):
        source = path.read_text()
        assert [x for region in regions(source) for x in region] == solution_bodies(source)
        for region in regions(source):  # the rule below never leaves a whole answer unchecked
            assert any(len(code(x)) >= MIN_LENGTH and code(x) not in IDIOMS for x in region), (path.name, region)
        checked = {code(x) for x in solution_bodies(source)} - IDIOMS
        leaked = sorted((x, name) for x in checked if len(x) >= MIN_LENGTH for name in where.get(x, ()))
        assert not leaked, f"solution lines of {path.name} found on branch main: {leaked}"


def test_no_solution_expression_in_any_shipped_file(kit_release: Path) -> None:
    """Every expression and statement of the solution regions, local names abstracted, against every .py file on
    main: the line test above missed `mask = torch.ones(T, T, dtype=torch.bool).tril()` in q1's suite
    (causal_mask's answer)."""
    shipped = branch_files(kit_release, "main")
    assert sum(path.endswith(".py") for path in shipped) > 50
    assert not leaks(ROOT / "solutions", shipped)


def test_the_answer_scan_finds_an_answer_under_other_names_and_allows_only_answers() -> None:
    pasted = textwrap.dedent("""\
        import torch

        def draw(n):
            "A mask."
            pattern = torch.ones(n, n, dtype=torch.bool).tril()  # the causal pattern
            other = torch.ones(n, n, dtype=torch.bool).triu()
            return pattern, other
        """)
    found = leaks(ROOT / "solutions", {"autograder/suites/test_x.py": pasted, "README.md": pasted})
    assert found and all(line.startswith("autograder/suites/test_x.py:5 holds `") for line in found), found
    assert any(
        "torch.ones(v0, v0, dtype=torch.bool).tril()" in line and "q01_causal_mask.py:19" in line for line in found
    )
    assert set(ALLOWED) <= set(answers(ROOT / "solutions"))  # no entry outlives the answer piece it excuses


def test_solutions_is_one_commit_adding_exactly_the_answers(kit_release: Path) -> None:
    repo = kit_release
    assert git(repo, "rev-parse", "solutions^") == git(repo, "rev-parse", "main")
    assert (
        git(repo, "log", "-1", "--format=%an <%ae> %ad", "--date=iso-strict", "solutions")
        == "Attention kit release <release@attention-kit.invalid> 2026-01-01T00:00:00+00:00"
    )
    changed = git(repo, "diff", "--name-only", "main", "solutions").splitlines()
    with_answers = [p for p in sorted((ROOT / "solutions").glob("*.py")) if solution_bodies(p.read_text())]
    assert changed == [f"exercises/{p.name}" for p in with_answers]
    files = branch_files(repo, "solutions")
    for path in with_answers:
        source = path.read_text()
        unmarked = "".join(x for x in source.splitlines(keepends=True) if not (BEGIN.match(x) or END.match(x)))
        assert files[f"exercises/{path.name}"] == unmarked
    diff = git(repo, "diff", "--unified=0", "main", "solutions").splitlines()
    added = [x[1:].strip() for x in diff if x.startswith("+") and not x.startswith("+++") and x[1:].strip()]
    removed = {x[1:].strip().split(":")[0] for x in diff if x.startswith("-") and not x.startswith("---")}
    assert added == [x for path in with_answers for x in solution_bodies(path.read_text())]
    assert removed <= {"# TODO", "raise NotImplementedError", ""}


def test_answers_are_encoded_and_decode_to_the_originals(kit_release: Path) -> None:
    text = (kit_release / "course.yaml").read_text()
    raw = yaml.safe_load(text)
    answers = [item["answer"] for q in raw["questions"] for item in q["selftest"]]
    assert answers and all(a.startswith("base64:") for a in answers)
    mine, theirs = load_course(ROOT), load_course(kit_release)

    def plain(course):
        return [
            (
                q.number,
                q.title,
                q.points,
                q.functions,
                q.requires,
                q.hints,
                [(s.question, decode_answer(s.answer)) for s in q.selftest],
            )
            for q in course.questions
        ]

    assert plain(theirs) == plain(mine) and theirs.title == mine.title and theirs.description == mine.description
    for question in mine.questions:
        for item in question.selftest:
            assert item.answer[:40] not in text


def test_two_releases_are_identical(release: tuple[Path, Path]) -> None:
    first, second = (
        [git(repo, "rev-parse", ref) for ref in ("main", "main^{tree}", "solutions", "solutions^{tree}")]
        for repo in release
    )
    assert first == second


def test_grading_each_branch_with_its_own_grader(checkouts: dict[str, Path]) -> None:
    where = autograder(checkouts["main"], "--help")  # the clone's package, not the kit's, answers
    assert where.returncode == 0
    assert subprocess.run(
        [sys.executable, "-c", "import autograder; print(autograder.__file__)"],
        cwd=checkouts["main"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.startswith(str(checkouts["main"]))
    runs = {
        branch: subprocess.Popen(
            [sys.executable, "-m", "autograder", "check", "--json"],
            cwd=folder,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for branch, folder in checkouts.items()
    }
    results = {branch: (run.communicate(timeout=300), run.returncode) for branch, run in runs.items()}
    (out, err), code = results["main"]
    report = json.loads(out)
    assert code == 1 and report["score"] == 0, err
    assert {q["status"] for q in report["questions"]} == {"not attempted"}
    (out, err), code = results["solutions"]
    report = json.loads(out)
    assert code == 0 and report["score"] == report["max_score"] == load_course(ROOT).max_score, err
    assert {q["status"] for q in report["questions"]} == {"passed"}


def test_maintainer_commands_say_why_they_stop(
    kit_release: Path, checkouts: dict[str, Path], tmp_path: Path
) -> None:
    done = autograder(ROOT, "release", str(kit_release))
    assert done.returncode == 1 and "not empty" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    done = autograder(checkouts["main"], "release", str(tmp_path / "again"))
    assert done.returncode == 1 and "no solutions/" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    done = autograder(checkouts["main"], "dev-check")
    assert (
        done.returncode == 1 and done.stdout.strip().splitlines() == [done.stdout.strip()] and "FAILED" in done.stdout
    )


def test_release_of_a_committed_kit_is_reproducible_and_flags_edits(tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    for name in ("autograder", "reference", "solutions", "exercises"):
        shutil.copytree(ROOT / name, kit / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("course.yaml", "pyproject.toml", ".gitignore"):
        shutil.copy(ROOT / name, kit / name)
    git(kit, "init", "--quiet")
    git(kit, "add", ".")
    git(kit, "-c", "user.name=Maintainer", "-c", "user.email=m@example.invalid", "commit", "--quiet", "-m", "kit")
    hashes = []
    for name in ("one", "two"):
        done = autograder(kit, "release", str(tmp_path / name))
        assert done.returncode == 0 and done.stderr == "", done.stderr
        hashes.append([git(tmp_path / name, "rev-parse", ref) for ref in ("main^{tree}", "main", "solutions")])
    assert hashes[0] == hashes[1]
    (kit / "reference" / "masking.py").write_text((kit / "reference" / "masking.py").read_text() + "\n")
    done = autograder(kit, "release", str(tmp_path / "three"))
    assert done.returncode == 0 and "uncommitted" in done.stderr and "reference/masking.py" in done.stderr
    # no line of reference/ ships: only what it gives
    assert git(tmp_path / "three", "rev-parse", "main^{tree}") == hashes[0][0]


def readme_commands(readme: str, section: str) -> list[list[str]]:
    """The commands of the first bash block under the README's heading `section`, split as a shell would, comments
    dropped."""
    block = re.search(r"```bash\n(.*?)```", readme[readme.index(f"## {section}") :], re.DOTALL)
    return [shlex.split(line, comments=True) for line in block.group(1).splitlines() if line.strip()]


@pytest.mark.parametrize("clone_options", [[], ["--single-branch"]], ids=["clone", "single-branch clone"])
def test_the_readmes_solution_commands_work_in_a_fresh_clone(
    kit_release: Path, tmp_path: Path, clone_options: list[str]
) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", *clone_options, str(kit_release), str(clone))
    commands = readme_commands((clone / "README.md").read_text(), "The solutions")
    assert [words[:2] for words in commands] == [
        ["git", "remote"],
        ["git", "fetch"],
        ["git", "diff"],
        ["git", "diff"],
        ["git", "commit"],
        ["git", "checkout"],
        ["python", "-m"],
        ["git", "checkout"],
    ]
    mine = clone / "exercises" / "q03_attention.py"
    mine.write_text(mine.read_text().replace("raise NotImplementedError", "return q, k", 1))  # a student's first try
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")} | {
        "GIT_AUTHOR_NAME": "Student",
        "GIT_AUTHOR_EMAIL": "s@example.invalid",
        "GIT_COMMITTER_NAME": "Student",
        "GIT_COMMITTER_EMAIL": "s@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    outputs = []
    for words in commands:
        if words[0] == "python":  # grading the solutions branch: test_grading_each_branch_with_its_own_grader does it
            assert (clone / "exercises" / "q03_attention.py").read_text() == strip_markers(
                (ROOT / "solutions" / "q03_attention.py").read_text()
            )
            continue
        done = subprocess.run(words, cwd=clone, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{shlex.join(words)}: {done.stderr}"
        outputs.append(done.stdout)
    answers, against_mine = outputs[2], outputs[3]
    assert {line[len("+++ b/") :] for line in answers.splitlines() if line.startswith("+++ ")} == set(
        solution_files(load_course(ROOT))
    )
    assert "+    return q, k" in against_mine and "exercises/q03_attention.py" in against_mine
    assert git(clone, "branch", "--show-current") == "main" and "return q, k" in mine.read_text()


# -- the student build holds no answer (issue 23) ------------------------------------------------------------------

GRADE = """
import json, sys
from pathlib import Path
from autograder.course.manifest import load_course
from autograder.engine import inputs
from autograder.engine.run import grade_many
inputs.use_secret(sys.argv[1])  # "" for the public seeds of `check`, a course secret for class grading
course = load_course(Path.cwd())
jobs = [(Path(path), list(course.numbers)) for path in json.loads(sys.stdin.read())]
print(json.dumps([[q.score for q in report.questions] for report in grade_many(course, jobs)]))
"""


def grade_in(kit: Path, packages: list[Path], secret: str = "") -> list[list[float]]:
    """Each package's score on every question, graded by the autograder package of kit (in a process of its own), on the
    public inputs or those of a course secret."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", GRADE, secret],
        cwd=kit,
        env=env,
        input=json.dumps([str(p) for p in packages]),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def definitions(root: Path) -> list[tuple[str, str, list[str] | None, str]]:
    """Every function and class defined in a .py file under root, at any depth: (file, name, what it takes, code).
    What it takes: its positional parameters without self, ["*"] for a function taking *args (it takes anything),
    None for a class. The code is its definition after its file's plain imports."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if ".git" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        imports = "\n".join(
            ast.get_source_segment(text, node)
            for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom))
            and not getattr(node, "level", 0)
            and not (getattr(node, "module", "") or "").startswith("autograder")
        )
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                takes = None
                if not isinstance(node, ast.ClassDef):
                    takes = ["*"] if node.args.vararg else [a.arg for a in node.args.posonlyargs + node.args.args]
                    takes = takes[1:] if takes[:1] in (["self"], ["cls"]) else takes
                source = imports + "\n" + textwrap.dedent(ast.get_source_segment(text, node))
                found.append((path.relative_to(root).as_posix(), node.name, takes, source))
    return found


def exercise_names(folder: Path) -> dict[tuple[str, str], list[str] | None]:
    """(module file, name) -> positional parameters of each public function (None for a class) of the exercises."""
    names = {}
    for path in sorted(folder.glob("q*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                names[(path.name, node.name)] = (
                    None if isinstance(node, ast.ClassDef) else [a.arg for a in node.args.posonlyargs + node.args.args]
                )
    return names


def test_no_function_or_class_of_the_release_answers_an_exercise(checkouts: dict[str, Path], tmp_path: Path) -> None:
    main = checkouts["main"]
    found, names = definitions(main), exercise_names(main / "exercises")
    candidates = {
        key: [d for d in found if d[1] == key[1] or d[2] == ["*"] or (params is not None and d[2] == params)]
        for key, params in names.items()
    }
    assert all(candidates.values()) and any(
        d[0].startswith("autograder/recording/") for c in candidates.values() for d in c
    )
    packages = []
    # package `slot` answers every exercise with its slot-th candidate
    for slot in range(max(len(c) for c in candidates.values())):
        package = shutil.copytree(main / "exercises", tmp_path / f"p{slot}")
        for (module, name), chosen in candidates.items():
            if slot < len(chosen):
                file, defined, _params, source = chosen[slot]
                with open(package / module, "a", encoding="utf-8") as out:
                    out.write(f"\n\n# {file}: {defined}\n{source}\n{name} = {defined}\n")
        packages.append(package)
    stubs, *scores = grade_in(main, [main / "exercises", *packages])
    assert stubs == [0] * len(stubs)
    above = [
        (slot, number, score)
        for slot, row in enumerate(scores)
        for number, score in enumerate(row, 1)
        if score > stubs[number - 1]
    ]
    assert not above, above


def test_the_recordings_answer_no_class_grading(checkouts: dict[str, Path], tmp_path: Path) -> None:
    """The attack of pasting the release into exercises/: its recordings as a lookup table may pass the public
    checks, never class grading (secret inputs, real oracle); and the release's files pasted in leave the stubs'
    score."""
    main = checkouts["main"]
    package = shutil.copytree(main / "exercises", tmp_path / "pasted")
    shutil.copytree(main / "autograder", package / "kit", ignore=shutil.ignore_patterns("__pycache__"))
    with open(package / "q03_attention.py", "a", encoding="utf-8") as out:
        out.write(
            "\n\nfrom .kit.recording.recorded import oracle\n\nattention = oracle('reference.dot_product.attention')\n"
            "single_head = oracle('reference.dot_product.single_head')\n"
        )
    plain = shutil.copytree(main / "exercises", tmp_path / "plain")
    shutil.copytree(main / "autograder", plain / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    locally = grade_in(main, [package, plain])
    assert locally[1] == [0] * len(locally[1])  # the files alone, pasted beside the stubs
    in_class = grade_in(ROOT, [package], "secret of a test course")[0]
    assert in_class[2] == 0 and sum(in_class) == 0, (locally, in_class)


VERDICTS = """
import json, sys
from pathlib import Path
from autograder.course.manifest import load_course
from autograder.engine.run import grade_many
course = load_course(Path.cwd())
jobs = [(Path(path), [int(Path(path).name[1:3])]) for path in json.loads(sys.stdin.read())]
print(json.dumps([[(q.status, q.score, [t.get("mistake", "") for t in q.to_dict()["tests"]]) for q in report.questions]
                  for report in grade_many(course, jobs)]))
"""


NOTES = """
import json, sys
from pathlib import Path
from autograder.course.manifest import load_course
from autograder.engine.run import grade_many
course = load_course(Path.cwd())
print(json.dumps([report.questions[0].notes for report in grade_many(course, [(Path(p), [9]) for p in sys.argv[1:]], notes=True)]))
"""  # noqa: E501 - a program's text, written out as it is


def test_question_9s_real_clock_note_on_the_student_build(checkouts: dict[str, Path], tmp_path: Path) -> None:
    """The student build cannot fit timings measured on the student's machine with the reference: its note keeps the
    timings and gives the trend by the student's own fit_exponent when that passes its checks, saying so; the kit's note
    gives the reference's trend."""
    packages = []
    for name, file in (
        ("right", ROOT / "solutions" / "q09_timing.py"),
        ("wrong", ROOT / "tests/corpus/wrong/q09_fit_axes_swapped.py"),
    ):
        package = shutil.copytree(ROOT / "solutions", tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(file, package / "q09_timing.py")
        packages.append(str(package))
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    notes = {}
    for kit in (ROOT, checkouts["main"]):
        done = subprocess.run(
            [sys.executable, "-c", NOTES, *packages],
            cwd=kit,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        notes[kit] = [" ".join(found) for found in json.loads(done.stdout.strip().splitlines()[-1])]
    timings = re.compile(r"real clock \(not graded\): T=256: [0-9.]+ ms")
    assert all(timings.search(note) for found in notes.values() for note in found), notes
    kit, student = notes[ROOT], notes[checkouts["main"]]
    assert all(re.search(r"; time grows like T\^[0-9.]+$", note) for note in kit), kit
    assert re.search(r"; time grows like T\^[0-9.]+ by your fit_exponent \(it passes its checks", student[0]), student
    assert (
        "the trend T^p is left out" in student[1] and "your fit_exponent does not pass its checks yet" in student[1]
    ), student


def test_the_student_build_gives_the_corpus_the_kits_verdicts_and_named_mistakes(
    checkouts: dict[str, Path], tmp_path: Path
) -> None:
    """Question 3's corpus files (its bank is the largest) graded by the kit and by the student build: the same status,
    score and named mistake of every check (the shrunk input may differ: docs/instructors.md says why)."""
    files = sorted((ROOT / "tests" / "corpus").glob("*/q03_*.py"))
    packages = []
    for file in files:
        package = shutil.copytree(
            ROOT / "solutions",
            tmp_path / f"q03_{file.parent.name}_{file.stem}",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        shutil.copy(file, package / "q03_attention.py")
        packages.append(package)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    verdicts = []
    for kit in (ROOT, checkouts["main"]):
        done = subprocess.run(
            [sys.executable, "-c", VERDICTS],
            cwd=kit,
            env=env,
            input=json.dumps([str(p) for p in packages]),
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        verdicts.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert len(files) > 20 and any(m for report in verdicts[0] for _s, _p, named in report for m in named)
    assert verdicts[1] == verdicts[0], [(f.name, a, b) for f, a, b in zip(files, *verdicts) if a != b]
