"""Write the learner repository: branch `main` with the stubs, branch `solutions` one commit on top with the answers."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from string import Template

import yaml

from ..course.manifest import ENCODED, Course, ManifestError, decode_answer, encode_answer, load_course
from .github_classroom import classroom_files
from .stubs import BEGIN, END, StubError, expected_stubs

SHIPPED_DIRS = ("autograder",)  # copied whole, caches and hidden files left out
# What the student build leaves out: the oracle (reference/, not shipped at all), the known-mistakes banks (their
# variants are one keyword from the answers) and the code that records them; autograder/recordings/ answers for them
# (autograder.recording).
UNSHIPPED = ("autograder/suites/mistakes/", "autograder/recording/record.py", "autograder/recordings/")
RECORDINGS = "autograder/recordings/"
SHIPPED_FILES = (".gitignore", "pyproject.toml")  # copied as they are
SKIPPED_PARTS = {"__pycache__"}
SKIPPED_SUFFIXES = {".pyc", ".pyo", ".po"}  # a .po catalogue holds the self-test answers in clear: its .mo ships
IDENTITY = "Attention kit release", "release@attention-kit.invalid"
DATE = "@1767225600 +0000"  # 2026-01-01 00:00 UTC: fixed, so two releases of one commit are identical
MESSAGES = {
    "main": "Exercises: stubs to complete\n\nRun `python -m autograder check` to grade them; see README.md.\n",
    "solutions": "Solutions to every exercise\n\nIn a clone, `git diff origin/solutions~1 origin/solutions` shows "
                 "exactly the answers.\n",
}


class ReleaseError(Exception):
    """The release cannot be written: one line for the maintainer."""


def strip_markers(source: str) -> str:
    """The solution module as a student would write it: the `### BEGIN/END SOLUTION` lines removed."""
    kept = [line for line in source.splitlines() if not (BEGIN.match(line) or END.match(line))]
    return "\n".join(kept) + "\n"


def encode_answers(text: str) -> str:
    """course.yaml with every self-test answer stored as `base64:<...>` (encoded so it is not read by accident)."""
    document = yaml.safe_load(text)
    if isinstance(document.get("description"), str):
        document["description"] = document["description"].strip()  # the loader strips it too: no dangling newline
    for question in document.get("questions", []):
        for item in question.get("selftest") or []:
            answer = str(item["answer"]).strip()
            if not answer.startswith(ENCODED):
                item["answer"] = encode_answer(answer)
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)


def _copied(root: Path, folder: str) -> dict[str, bytes]:
    """Every shipped file under root/folder, by path relative to root."""
    files = {}
    for path in sorted((root / folder).rglob("*")):
        relative = path.relative_to(root)
        if (
            path.is_file()
            and not SKIPPED_PARTS & set(relative.parts)
            and path.suffix not in SKIPPED_SUFFIXES
            and not any(part.startswith(".") for part in relative.parts)
            and not relative.as_posix().startswith(UNSHIPPED)
        ):
            files[relative.as_posix()] = path.read_bytes()
    return files


def _readme(course: Course) -> str:
    """The student README, from release_readme.md and the manifest."""
    rows = "\n".join(f"| {q.number} | {q.title} | {q.points:g} | `{q.file}` |" for q in course.questions)
    template = Template((Path(__file__).parent / "release_readme.md").read_text(encoding="utf-8"))
    return template.substitute(
        title=course.title, description=course.description, questions=rows, total=f"{course.max_score:g}"
    )


def main_files(course: Course) -> dict[str, bytes]:
    """Path -> content of every file on branch main but the recordings: stubs, grader without oracle or banks,
    manifest, README."""
    root = course.root
    files: dict[str, bytes] = {}
    for folder in SHIPPED_DIRS:
        files |= _copied(root, folder)
    for name in SHIPPED_FILES:
        if (root / name).is_file():
            files[name] = (root / name).read_bytes()
    files |= {f"exercises/{name}": text.encode("utf-8") for name, text in expected_stubs(root / "solutions").items()}
    files["course.yaml"] = encode_answers((root / "course.yaml").read_text(encoding="utf-8")).encode("utf-8")
    files["README.md"] = _readme(course).encode("utf-8")
    files |= classroom_files(course)  # .github/workflows/classroom.yml: GitHub Classroom grades every push
    return files


def recording_files(course: Course) -> dict[str, bytes]:
    """Path -> content of autograder/recordings/: what the oracle and the banks give on the local checks' inputs."""
    from ..recording.record import record

    try:
        recorded = record(course, course.numbers)
    except RuntimeError as error:
        raise ReleaseError(str(error).splitlines()[0]) from None
    return {RECORDINGS + name: content for name, content in recorded.items()}


def solution_files(course: Course) -> dict[str, bytes]:
    """Path -> content of the exercises/ files that differ on branch solutions: the answers without markers."""
    files = {}
    for path in sorted((course.root / "solutions").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        if strip_markers(source) != source:
            files[f"exercises/{path.name}"] = strip_markers(source).encode("utf-8")
    return files


def _git_env() -> dict[str, str]:
    """Environment for git: fixed identity and dates, no user or system configuration."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    name, email = IDENTITY
    env |= {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_AUTHOR_DATE": DATE,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_COMMITTER_DATE": DATE,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "TZ": "UTC",
    }
    return env


def _git(repo: Path, *args: str) -> str:
    """Run one git command in repo; its stdout, or ReleaseError with git's own last line."""
    try:
        done = subprocess.run(
            ["git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", *args],
            cwd=repo,
            env=_git_env(),
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        raise ReleaseError("git is not installed or not on PATH") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise ReleaseError(f"git {args[0]} failed: {lines[-1] if lines else f'exit status {done.returncode}'}")
    return done.stdout.strip()


def _commit(repo: Path, files: dict[str, bytes], branch: str) -> str:
    """Write files into repo's working tree, commit exactly them on the current branch; return the commit hash."""
    for relative, content in files.items():
        target = repo / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        target.chmod(0o644)
    _git(repo, "add", "--force", "--", *sorted(files))
    _git(repo, "commit", "--quiet", "--no-verify", "-m", MESSAGES[branch])
    return _git(repo, "rev-parse", "HEAD")


def _has_marker(text: str) -> bool:
    """True when some line of text is a `### BEGIN/END SOLUTION` marker."""
    return any(BEGIN.match(line) or END.match(line) for line in text.splitlines())


def _verify(course: Course, out_dir: Path, files: dict[str, bytes]) -> None:
    """The committed tree holds exactly files, and its course.yaml decodes to the instructor's answers."""
    tracked = set(_git(out_dir, "ls-tree", "-r", "--name-only", "main").splitlines())
    if tracked != set(files):
        raise ReleaseError(f"branch main does not hold the intended files: {sorted(tracked ^ set(files))[:5]}")
    released = load_course(out_dir)
    mine = [[decode_answer(s.answer) for s in q.selftest] for q in course.questions]
    theirs = [[decode_answer(s.answer) for s in q.selftest] for q in released.questions]
    if mine != theirs or [q.number for q in released.questions] != course.numbers:
        raise ReleaseError("the release's course.yaml does not decode to the instructor's self-test answers")
    marked = [
        path
        for path, content in files.items()
        if not path.startswith(RECORDINGS) and _has_marker(content.decode("utf-8", "replace"))
    ]
    if marked:
        raise ReleaseError(f"{marked[0]} on branch main still holds a solution marker line")


def build_release(course: Course, out_dir: Path) -> tuple[str, str]:
    """Write the learner repository into out_dir (new or empty); return the commits of main and solutions."""
    if not (course.root / "solutions").is_dir():
        raise ReleaseError(f"no solutions/ in {course.root}: `release` runs in the instructor's repository")
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise ReleaseError(f"{out_dir} already exists and is not empty: choose a new folder")
    files, answers = main_files(course) | recording_files(course), solution_files(course)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as templates:  # no hooks or other files copied from git's template folder
        _git(out_dir, "init", "--quiet", f"--template={templates}", "--initial-branch=main")
    main = _commit(out_dir, files, "main")
    _verify(course, out_dir, files)
    _git(out_dir, "checkout", "--quiet", "-b", "solutions")
    solutions = _commit(out_dir, answers, "solutions")
    _git(out_dir, "checkout", "--quiet", "main")
    return main, solutions


def uncommitted(root: Path) -> list[str]:
    """Shipped paths of root that differ from its git HEAD (none when root is not a git repository)."""
    try:
        status = _git(
            root,
            "status",
            "--porcelain",
            "--untracked-files=all",
            "--",
            *SHIPPED_DIRS,
            "reference",
            *SHIPPED_FILES,
            "solutions",
            "course.yaml",
        )  # reference/ ships as the recordings it gives
    except ReleaseError:
        return []
    paths = [line.split(maxsplit=1)[-1] for line in status.splitlines()]
    return [path for path in paths if not path.endswith((".pyc", ".pyo"))]


def write_release(course: Course, out_dir: Path) -> int:
    """The `release OUT_DIR` command: build the learner repository and say what was written; exit status."""
    try:
        main, solutions = build_release(course, out_dir)
    except (ReleaseError, StubError, ManifestError, OSError) as error:
        print(f"autograder: release: {error}", file=sys.stderr)
        return 1
    dirty = uncommitted(course.root)
    if dirty:
        print(
            f"autograder: release: note: built from uncommitted files ({len(dirty)}), e.g. {dirty[0]}", file=sys.stderr
        )
    count = len(_git(out_dir, "ls-tree", "-r", "--name-only", "main").splitlines())
    print(f"Wrote the learner repository {out_dir}:")
    print(f"  main       {main}  {count} files, exercises/ as stubs (tree {_git(out_dir, 'rev-parse', 'main^{tree}')})")
    print(f"  solutions  {solutions}  one commit on top: `git diff main solutions` shows the answers")
    return 0
