"""What a class folder holds: one entry per student, and the files of each entry that are graded.

`grade DIR` takes every visible item of DIR as one student's entry, named by the item's name:

* a **repository** (a folder with `.git`): the files of its checked-out commit (HEAD), read with git, so
  uncommitted edits and untracked files are not graded; the commit is recorded;
* a **notebook** (`NAME.ipynb`): the answer cells of the nbgrader assignment's notebook;
* a **folder**: the exercise modules as they are on disk.

Inside a folder or a repository the modules are looked for in this order: an `exercises/` folder, modules named
`qNN_<slug>.py` at the top, a single notebook at the top, and else the one folder it holds, if it holds only one
(an LMS download that wraps the work in a folder of its own), down to SEARCH_DEPTH levels. Every `.py` file of the
folder found is graded with it (helpers a student imports included), as `check` grades exercises/.

Nothing here raises for a student's fault: what cannot be read gives Contents with a problem, and the entry is
scored 0 with that reason.
"""
import datetime
import hashlib
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..i18n import _

KINDS = ("folder", "repository", "notebook")
MODULE = re.compile(r"q\d\d_\w+\.py")  # an exercise module's file name
SKIPPED = {"__pycache__", "__MACOSX", ".ipynb_checkpoints", ".git", ".venv", "venv", "node_modules"}
SEARCH_DEPTH = 4  # folders of an entry searched downwards for the modules
WALK_LIMIT = 20_000  # files listed in a folder entry before the search gives up
FILE_BYTES = 1 << 20  # a larger .py file is not a module a student wrote: not graded
NOTEBOOK_BYTES = 64 << 20  # a larger notebook is not read
GIT_TIMEOUT = 60  # seconds for one git command on a student's repository


@dataclass(frozen=True)
class Entry:
    """One student's entry in the class folder."""

    student: str  # the entry's name in DIR (folder name, repository name, notebook file stem)
    path: Path  # absolute path of the entry
    kind: str  # "folder" | "repository" | "notebook"
    deadline: str | None = None  # a repository's deadline (ISO 8601 with its offset): its last commit before it is graded


@dataclass
class Contents:
    """The graded files of an entry: modules (file name -> bytes) or a notebook's bytes, or why there are none."""

    modules: dict[str, bytes] = field(default_factory=dict)
    notebook: bytes | None = None
    commit: str | None = None
    where: str = ""  # where in the entry the graded files are: "exercises/", "." or "work/attention.ipynb"
    problem: str = ""
    timing: dict = field(default_factory=dict)  # with a deadline: committed_at (the graded commit's date) and late_hours


def discover(folder: Path) -> list[Entry]:
    """One Entry per student in folder (hidden items and files that are not notebooks left out), sorted by student."""
    entries = []
    for path in sorted(Path(folder).resolve().iterdir()):
        if path.name.startswith((".", "_")) or path.name in SKIPPED:
            continue
        if path.is_dir():
            entries.append(Entry(path.name, path, "repository" if (path / ".git").exists() else "folder"))
        elif path.suffix == ".ipynb" and path.is_file():
            entries.append(Entry(path.stem, path, "notebook"))
    return sorted(entries, key=lambda entry: entry.student)


def ignored(folder: Path) -> list[str]:
    """Names of the visible files in folder that are not entries (neither a folder nor a notebook)."""
    return sorted(p.name for p in Path(folder).iterdir()
                  if not p.name.startswith(".") and not p.is_dir() and not (p.suffix == ".ipynb" and p.is_file()))


def fingerprint(entry: Entry) -> dict:
    """{"commit": sha} for a repository (its checked-out HEAD) and {"sha256": hash of the graded files}; never raises."""
    return fingerprint_of(read_entry(entry))


def fingerprint_of(contents: Contents) -> dict:
    """The fingerprint of contents already read (what grade_entry records for the files it graded), with the graded
    commit's timing when a deadline chose it."""
    digest = hashlib.sha256()
    if contents.notebook is not None:
        digest.update(b"notebook\0" + contents.notebook)
    else:
        for name in sorted(contents.modules):
            digest.update(name.encode("utf-8", "surrogateescape") + b"\0" + contents.modules[name] + b"\0")
    if contents.problem:
        digest.update(b"problem\0" + contents.problem.encode("utf-8", "replace"))
    found = {"sha256": digest.hexdigest()}
    return ({"commit": contents.commit} if contents.commit else {}) | found | contents.timing


def read_entry(entry: Entry) -> Contents:
    """The graded files of entry; Contents.problem says why there are none. Never raises."""
    try:
        if entry.kind == "notebook":
            return _read_notebook_file(entry.path, entry.path.name)
        if entry.kind == "repository":
            return _read_repository(entry.path, entry.deadline)
        return _read_folder(entry.path)
    except OSError as error:
        return Contents(problem=_("cannot be read ({error}: {message})").format(error=type(error).__name__, message=error.strerror or error))


def _read_notebook_file(path: Path, where: str) -> Contents:
    """A notebook's bytes (parsed later, by grade_entry)."""
    size = path.stat().st_size
    if size > NOTEBOOK_BYTES:
        return Contents(where=where, problem=_("{where} is {size} MiB: too large for a notebook of this assignment").format(where=where, size=size >> 20))
    return Contents(notebook=path.read_bytes(), where=where)


def locate(files: list[str]) -> tuple[str | None, str | None, str]:
    """(package folder, notebook, problem) among the relative posix paths of an entry's files; see the module's docstring."""
    by_folder: dict[str, list[str]] = {}
    for name in files:
        by_folder.setdefault(str(PurePosixPath(name).parent), []).append(PurePosixPath(name).name)
    base = "."
    for _depth in range(SEARCH_DEPTH):
        inside = _join(base, "exercises")
        if any(name.endswith(".py") for name in by_folder.get(inside, [])):
            return inside, None, ""
        here = by_folder.get(base, [])
        if any(MODULE.fullmatch(name) for name in here):
            return base, None, ""
        notebooks = sorted(name for name in here if name.endswith(".ipynb"))
        if len(notebooks) == 1 or "attention.ipynb" in notebooks:
            return None, _join(base, notebooks[0] if len(notebooks) == 1 else "attention.ipynb"), ""
        if len(notebooks) > 1:
            return None, None, _("several notebooks in {folder} ({notebooks}): keep only the assignment's").format(
                folder=_shown(base), notebooks=", ".join(notebooks[:4]))
        below = sorted({_first_part(folder, base) for folder in by_folder if _is_below(folder, base)})
        below = [name for name in below if name not in SKIPPED and not name.startswith(".")]
        if len(below) != 1:
            break
        base = _join(base, below[0])
    if not files:
        return None, None, _("no .py file and no notebook in it")
    return None, None, _("no exercise modules (exercises/qNN_<name>.py or qNN_<name>.py) and no notebook found")


def _join(base: str, name: str) -> str:
    return name if base == "." else f"{base}/{name}"


def _shown(base: str) -> str:
    return _("the top folder") if base == "." else f"{base}/"


def _is_below(folder: str, base: str) -> bool:
    return folder != base and (base == "." or folder.startswith(base + "/"))


def _first_part(folder: str, base: str) -> str:
    rest = folder if base == "." else folder[len(base) + 1:]
    return rest.split("/", 1)[0]


def _package_files(files: list[str], package: str) -> list[str]:
    """The .py files directly inside package."""
    return sorted(name for name in files if str(PurePosixPath(name).parent) == package and name.endswith(".py"))


def _where(package: str) -> str:
    return "." if package == "." else package + "/"


def _read_folder(root: Path) -> Contents:
    """A folder entry: the modules found by locate, read from disk."""
    files: list[str] = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name not in SKIPPED and not name.startswith("."))
        relative = Path(folder).relative_to(root)
        if len(relative.parts) > SEARCH_DEPTH:
            subfolders[:] = []
            continue
        files += [(relative / name).as_posix() for name in names if name.endswith((".py", ".ipynb"))]
        if len(files) > WALK_LIMIT:
            break
    package, notebook, problem = locate(files)
    if problem:
        return Contents(problem=problem if files or any(root.iterdir()) else _("an empty folder"))
    if notebook is not None:
        return _read_notebook_file(root / notebook, notebook)
    modules = {}
    for name in _package_files(files, package):
        path = root / name
        if path.is_file() and path.stat().st_size <= FILE_BYTES:
            modules[PurePosixPath(name).name] = path.read_bytes()
    return _modules_or_problem(modules, package)


def _modules_or_problem(modules: dict[str, bytes], package: str) -> Contents:
    """Contents of modules; a problem when there is no exercise module among them."""
    if not any(MODULE.fullmatch(name) for name in modules):
        return Contents(where=_where(package), problem=_("no exercise modules (qNN_<name>.py) in {folder}").format(folder=_where(package)))
    return Contents(modules=modules, where=_where(package))


def _git(repository: Path, *arguments: str, data: bytes | None = None) -> bytes:
    """Output of a read-only git command in the student's repository (never a repository above it); OSError on failure."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    environment.update(GIT_CEILING_DIRECTORIES=str(repository.parent), GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0",
                       GIT_CONFIG_NOSYSTEM="1", LC_ALL="C")
    command = ["git", "-c", "safe.directory=*", "-c", "core.fsmonitor=false", "-C", str(repository), *arguments]
    try:
        done = subprocess.run(command, input=data, capture_output=True, env=environment, timeout=GIT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise OSError(_("git is not installed on the grading machine")) from None
    except subprocess.TimeoutExpired:
        raise OSError(_("git {command} took longer than {seconds} s").format(command=arguments[0], seconds=GIT_TIMEOUT)) from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise OSError((lines[0] if lines else _("git {command} failed").format(command=arguments[0])).removeprefix("fatal: "))
    return done.stdout


def _read_repository(repository: Path, deadline: str | None = None) -> Contents:
    """A repository entry: the modules found by locate in the tree of HEAD (with a deadline, of HEAD's last commit
    before it, or HEAD when none is), read from git's objects."""
    try:
        commit = _git(repository, "rev-parse", "--verify", "-q", "HEAD^{commit}").decode().strip()
    except OSError as error:
        return Contents(problem=_("not a readable git repository, or no commit checked out ({error})").format(error=error))
    timing = {}
    if deadline is not None:
        try:
            commit, timing = _on_time(repository, commit, deadline)
        except (OSError, ValueError) as error:
            return Contents(commit=commit, problem=_("the git repository's commit dates cannot be read ({error})").format(error=error))
    contents = _read_commit(repository, commit)
    contents.timing = timing
    return contents


def _on_time(repository: Path, head: str, deadline: str) -> tuple[str, dict]:
    """(the commit to grade, its timing): HEAD's last commit whose committer date is before deadline, or HEAD itself
    (late) when there is none; late_hours is how long after the deadline the graded commit was made (0: on time)."""
    limit = datetime.datetime.fromisoformat(deadline)
    before = _git(repository, "rev-list", "-1", f"--before={int(limit.timestamp())} +0000", head).decode().strip()  # git's own date format
    commit = before or head
    stamp = int(_git(repository, "show", "-s", "--format=%ct", commit).decode().strip())
    made = datetime.datetime.fromtimestamp(stamp, limit.tzinfo)
    late = max(0.0, (made - limit).total_seconds() / 3600)
    after = int(_git(repository, "rev-list", "--count", f"{commit}..{head}").decode().strip() or 0)
    return commit, {"committed_at": made.isoformat(timespec="seconds"), "late_hours": round(late, 2), "commits_after_deadline": after}


def _read_commit(repository: Path, commit: str) -> Contents:
    """The modules found by locate in the tree of commit."""
    try:
        listing = _git(repository, "ls-tree", "-r", "-z", "-l", "--full-tree", commit)
    except OSError as error:
        return Contents(commit=commit, problem=_("the git repository cannot be read at {commit} ({error})").format(commit=commit[:12], error=error))
    blobs: dict[str, tuple[str, int]] = {}  # path -> (object, size)
    for line in listing.split(b"\0"):
        meta, _tab, name = line.partition(b"\t")
        fields = meta.split()
        if len(fields) != 4 or fields[1] != b"blob" or fields[0] == b"120000":  # files only: no submodules, no links
            continue
        path = name.decode("utf-8", "surrogateescape")
        if path.endswith((".py", ".ipynb")) and not set(PurePosixPath(path).parts[:-1]) & SKIPPED:
            blobs[path] = (fields[2].decode(), int(fields[3]))
    package, notebook, problem = locate(sorted(blobs))
    if problem:
        return Contents(commit=commit, problem=_("{problem} at commit {commit}").format(problem=problem, commit=commit[:12]))
    if notebook is not None:
        if blobs[notebook][1] > NOTEBOOK_BYTES:
            return Contents(commit=commit, where=notebook, problem=_("{where} is {size} MiB: too large for a notebook of this assignment").format(
                where=notebook, size=blobs[notebook][1] >> 20))
        wanted = [notebook]
    else:
        wanted = [name for name in _package_files(sorted(blobs), package) if blobs[name][1] <= FILE_BYTES]
    try:
        found = _cat_blobs(repository, [blobs[name][0] for name in wanted])
    except (OSError, ValueError) as error:
        return Contents(commit=commit, problem=_("the git repository cannot be read at {commit} ({error})").format(commit=commit[:12], error=error))
    if notebook is not None:
        return Contents(notebook=found[0], commit=commit, where=notebook)
    contents = _modules_or_problem({PurePosixPath(name).name: data for name, data in zip(wanted, found)}, package)
    contents.commit = commit
    return contents


def _cat_blobs(repository: Path, objects: list[str]) -> list[bytes]:
    """The contents of the blobs, read in one `git cat-file --batch`."""
    if not objects:
        return []
    output = _git(repository, "cat-file", "--batch", data="".join(f"{sha}\n" for sha in objects).encode())
    found: list[bytes] = []
    position = 0
    for sha in objects:
        end = output.index(b"\n", position)
        header = output[position:end].split()
        if len(header) != 3:
            raise OSError(_("object {sha} is missing").format(sha=sha[:12]))
        size = int(header[2])
        found.append(output[end + 1:end + 1 + size])
        position = end + 1 + size + 1
    return found
