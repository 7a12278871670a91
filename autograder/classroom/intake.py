"""What a class folder holds: one entry per student, and the files of each entry that are graded.

`grade DIR` takes every visible item of DIR as one student's entry, named by the item's name:

* a **repository** (a folder with a `.git` folder): the files of its checked-out commit (HEAD), read with git, so
  uncommitted edits and untracked files are not graded; the commit is recorded;
* a **notebook** (`NAME.ipynb`): the answer cells of the nbgrader assignment's notebook (nbgrader/answers.py reads
them);
* a **zip** (`NAME.zip`), or a folder holding one zip and no module: read as the folder it unpacks to (its members
  are read, never written to disk);
* a **folder**: the exercise modules as they are on disk;
* any other **file** (`NAME.tar.gz`, `NAME.pdf`): an entry that cannot be graded, so that it has its row and its reason.

Inside a folder or a repository the modules are looked for in this order: an `exercises/` folder, modules named
`qNN_<slug>.py` at the top, a single notebook at the top, and else the one folder it holds, if it holds only one
(an LMS download that wraps the work in a folder of its own), down to SEARCH_DEPTH levels. Every `.py` file of the
folder found is graded with it (helpers a student imports included), as `check` grades exercises/.

Nothing here raises for a student's fault: what cannot be read gives Contents with a problem, and the entry is
scored 0 with that reason.

The grader reads these files as its own user (root, often), outside the sandbox, so a submission's layout is
hostile data too: no link is ever followed inside an entry (a linked module is left out, with its reason), only
regular files are read, and git never runs on a student's `.git`. Its objects, references and HEAD, as regular
files, are copied into a private repository whose configuration is the grader's own (no hooks, alternates,
promisor remote, commit-graph or program the student named), and git runs there with no system, global or
user configuration, no lazy fetch and no prompt.
"""
import datetime
import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from ..i18n import _

MODULE = re.compile(r"q\d\d_\w+\.py")  # an exercise module's file name
SKIPPED = {"__pycache__", "__MACOSX", ".ipynb_checkpoints", ".git", ".venv", "venv", "node_modules"}
SEARCH_DEPTH = 4  # folders of an entry searched downwards for the modules
WALK_LIMIT = 20_000  # files listed in a folder entry before the search gives up
FILE_BYTES = 1 << 20  # a larger .py file is not a module a student wrote: not graded
NOTEBOOK_BYTES = 64 << 20  # a larger notebook is not read
GIT_TIMEOUT = 60  # seconds for one git command on a student's repository
GIT_BYTES = 1 << 30  # a repository whose objects are larger is not read
ZIP_LINK = 0o120000  # a zip member's mode bits (the high 16 bits of its external attributes) for a symbolic link
OBJECT = re.compile(r"[0-9a-f]{38}|[0-9a-f]{62}")  # a loose object's file name in its objects/XX/ folder
PACK = re.compile(r"pack-[0-9a-f]{40,64}\.(pack|idx)")  # the files of a pack git needs (no .promisor, .keep, bitmap)


@dataclass(frozen=True)
class Entry:
    """One student's entry in the class folder."""

    student: str  # the entry's name in DIR (folder or repository name, file stem), Unicode NFC
    path: Path  # absolute path of the entry
    kind: str  # "folder", "repository", "notebook", "zip" or "file"
    # a repository's deadline (ISO 8601 with its offset): its last commit before it is graded
    deadline: str | None = None


@dataclass
class Contents:
    """The graded files of an entry: modules (file name -> bytes) or a notebook's bytes, or why there are none."""

    modules: dict[str, bytes] = field(default_factory=dict)
    notebook: bytes | None = None
    commit: str | None = None
    where: str = ""  # where in the entry the graded files are: "exercises/", "." or "work/attention.ipynb"
    problem: str = ""
    # with a deadline: committed_at (the graded commit's date) and late_hours
    timing: dict = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)  # file found but not read (a link ...) -> the one line why


def discover(folder: Path, linked: bool = False) -> list[Entry]:
    """One Entry per visible item of folder (names starting with `.` or `_` left out), sorted by student; a file that
    is not a notebook or a zip is an entry of kind "file", which read_entry says cannot be graded.

    An item that is a symbolic link is an entry that is not graded (its reason says so), unless linked: folder is a
    view the grader made of links to the entries (`grade --nbgrader`), each followed once, to where it points."""
    entries = []
    for path in sorted(Path(folder).resolve().iterdir()):
        if path.name.startswith((".", "_")) or path.name in SKIPPED:
            continue
        target = path.parent / os.readlink(path) if linked and path.is_symlink() else path
        mode = _mode(target)
        if stat.S_ISDIR(mode):
            # a .git that is not a folder: read_entry says why
            kind = "repository" if _mode(target / ".git") else "folder"
        else:  # a link is never followed: read_entry says so
            kind = {".ipynb": "notebook", ".zip": "zip"}.get(
                path.suffix.lower(), "folder" if stat.S_ISLNK(mode) and target.is_dir() else "file"
            )
        name = path.name if kind in ("folder", "repository") else path.stem
        entries.append(Entry(unicodedata.normalize("NFC", name), target, kind))
    return sorted(entries, key=lambda entry: entry.student)


def student_key(name: str) -> str:
    """What two entry names of the same student share: the name Unicode-normalised (NFC) and case-folded, so that
    `Alice` and `alice`, or a "Zoë" typed on a Mac and on Windows, are one student."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def _mode(path: Path) -> int:
    """path's own mode (a link's, not its target's); 0 when there is nothing there."""
    try:
        return path.lstat().st_mode
    except OSError:
        return 0


def fingerprint(entry: Entry) -> dict:
    """{"commit": sha} for a repository (its checked-out HEAD) and {"sha256": hash of the graded files}; never
    raises."""
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
    for name in sorted(contents.left_out):
        digest.update(
            b"left out\0"
            + name.encode("utf-8", "surrogateescape")
            + b"\0"
            + contents.left_out[name].encode("utf-8", "replace")
        )
    if contents.problem:
        digest.update(b"problem\0" + contents.problem.encode("utf-8", "replace"))
    found = {"sha256": digest.hexdigest()}
    return ({"commit": contents.commit} if contents.commit else {}) | found | contents.timing


def read_entry(entry: Entry) -> Contents:
    """The graded files of entry; Contents.problem says why there are none. Never raises."""
    try:
        if entry.path.is_symlink():
            return Contents(problem=_("{name} is a symbolic link: not graded").format(name=entry.path.name))
        if entry.kind == "notebook":
            return _read_notebook_file(entry.path, entry.path.name)
        if entry.kind == "repository":
            return _read_repository(entry.path, entry.deadline)
        if entry.kind == "zip":
            return _read_zip(entry.path)
        if entry.kind == "file":
            return Contents(
                problem=_(
                    "{name} is not a folder, a git repository, a notebook (.ipynb) or a zip: not graded (hand in one "
                    "of those, or move the file out of the class folder)"
                ).format(name=entry.path.name)
            )
        return _read_folder(entry.path)
    except NotPlain as error:
        return Contents(problem=str(error))
    except OSError as error:
        return Contents(
            problem=_("cannot be read ({error}: {message})").format(
                error=type(error).__name__, message=error.strerror or error
            )
        )


def _read_notebook_file(path: Path, where: str) -> Contents:
    """A notebook's bytes (parsed later, by grade_entry)."""
    data = read_plain(path, where, NOTEBOOK_BYTES)
    if data is None:
        return Contents(
            where=where,
            problem=_("{where} is {size} MiB: too large for a notebook of this assignment").format(
                where=where, size=path.lstat().st_size >> 20
            ),
        )
    return Contents(notebook=data, where=where)


class NotPlain(OSError):
    """A file of a submission that is not read, being a symbolic link or not a regular file (a pipe, a device)."""


def read_plain(path: Path, name: str, limit: int) -> bytes | None:
    """The bytes of path, a regular file opened without following a link, or None when it holds more than limit bytes;
    NotPlain, with the line that says why (name: how the report names the file), when it is not a regular file."""
    with _open_plain(path, name) as file:
        data = file.read(limit + 1)
    return data if len(data) <= limit else None


def _open_plain(path: Path, name: str) -> BinaryIO:
    """path opened for reading when it is a regular file, without following a link (nor waiting on a pipe); NotPlain
    saying what it is otherwise."""
    if path.is_symlink():
        raise NotPlain(_("{name} is a symbolic link: not graded").format(name=name))
    try:
        handle = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        )
    except OSError:
        if path.is_symlink():  # made a link since it was looked at
            raise NotPlain(_("{name} is a symbolic link: not graded").format(name=name)) from None
        raise
    file = open(handle, "rb")  # noqa: SIM115 - returned open, closed by the caller's with
    if not stat.S_ISREG(os.fstat(handle).st_mode):
        file.close()
        raise NotPlain(_("{name} is not a regular file: not graded").format(name=name))
    return file


def locate(files: list[str]) -> tuple[str | None, str | None, str]:
    """(package folder, notebook, problem) among the relative posix paths of an entry's files; see the module's
    docstring."""
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
            return (
                None,
                None,
                _("several notebooks in {folder} ({notebooks}): keep only the assignment's").format(
                    folder=_shown(base), notebooks=", ".join(notebooks[:4])
                ),
            )
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
    rest = folder if base == "." else folder[len(base) + 1 :]
    return rest.split("/", 1)[0]


def _package_files(files: list[str], package: str) -> list[str]:
    """The .py files directly inside package."""
    return sorted(name for name in files if str(PurePosixPath(name).parent) == package and name.endswith(".py"))


def _where(package: str) -> str:
    return "." if package == "." else package + "/"


def _read_folder(root: Path) -> Contents:
    """A folder entry: the modules found by locate, read from disk; a link met on the way is never followed."""
    files: list[str] = []
    left_out: dict[str, str] = {}
    for folder, subfolders, names in os.walk(root):
        relative = Path(folder).relative_to(root)
        for name in subfolders + names:  # os.walk does not descend into a linked folder, but lists it
            if (Path(folder) / name).is_symlink() and (name in subfolders or name.endswith((".py", ".ipynb"))):
                shown = (relative / name).as_posix() + ("/" if name in subfolders else "")
                left_out[shown] = _("{name} is a symbolic link: not graded").format(name=shown)
        subfolders[:] = sorted(
            name
            for name in subfolders
            if name not in SKIPPED and not name.startswith(".") and not (Path(folder) / name).is_symlink()
        )
        if len(relative.parts) > SEARCH_DEPTH:
            subfolders[:] = []
            continue
        files += [
            (relative / name).as_posix()
            for name in names
            if name.endswith((".py", ".ipynb")) and (relative / name).as_posix() not in left_out
        ]
        if len(files) > WALK_LIMIT:
            break
    package, notebook, problem = locate(files)
    zips = [path for path in sorted(root.glob("*.[zZ][iI][pP]")) if stat.S_ISREG(_mode(path))] if problem else []
    # an LMS's folder holding the one zip the student uploaded (Moodle's download): read as a zip entry
    if len(zips) == 1:
        contents = _read_zip(zips[0])
        contents.where = f"{zips[0].name}/{contents.where}" if contents.where else contents.where
        return contents
    if problem:
        problem = problem if files or any(root.iterdir()) else _("an empty folder")
        return Contents(problem=_with_left_out(problem, left_out), left_out=left_out)
    if notebook is not None:
        return _read_notebook_file(root / notebook, notebook)
    modules = {}
    for name in _package_files(files, package):
        try:
            data = read_plain(root / name, name, FILE_BYTES)
        except NotPlain as error:
            left_out[name] = str(error)
            continue
        if data is not None:  # a larger .py file is not a module a student wrote
            modules[PurePosixPath(name).name] = data
    return _modules_or_problem(modules, package, left_out)


def _read_zip(path: Path) -> Contents:
    """A zip entry: the modules found by locate among its members, as in the folder it unpacks to. Its members are read
    into memory, never written out (no name of theirs becomes a path); a member that is a link is left out."""
    with _open_plain(path, path.name) as file:
        try:
            archive = zipfile.ZipFile(file)
        except (zipfile.BadZipFile, ValueError, EOFError) as error:
            return Contents(problem=_("{name} cannot be read as a zip ({error})").format(name=path.name, error=error))
        with archive:
            members: dict[str, zipfile.ZipInfo] = {}
            left_out: dict[str, str] = {}
            for member in archive.infolist()[:WALK_LIMIT]:
                name = member.filename.replace("\\", "/").lstrip("/")
                parts = PurePosixPath(name).parts
                if (
                    member.is_dir()
                    or not name.endswith((".py", ".ipynb"))
                    or ".." in parts
                    or set(parts[:-1]) & SKIPPED
                ):
                    continue
                if (member.external_attr >> 16) & 0o170000 == ZIP_LINK:
                    left_out[name] = _("{name} is a symbolic link: not graded").format(name=name)
                else:
                    members[name] = member
            package, notebook, problem = locate(sorted(members))
            if problem:
                return Contents(
                    left_out=left_out,
                    problem=_with_left_out(_("{problem} in {name}").format(problem=problem, name=path.name), left_out),
                )
            try:
                if notebook is not None:
                    data = _member(archive, members[notebook], NOTEBOOK_BYTES)
                    if data is None:
                        return Contents(
                            where=notebook,
                            problem=_("{where} is {size} MiB: too large for a notebook of this assignment").format(
                                where=notebook, size=members[notebook].file_size >> 20
                            ),
                        )
                    return Contents(notebook=data, where=notebook)
                modules = {
                    PurePosixPath(name).name: data
                    for name in _package_files(sorted(members), package)
                    if (data := _member(archive, members[name], FILE_BYTES)) is not None
                }
            # damaged, encrypted
            except (zipfile.BadZipFile, RuntimeError, NotImplementedError, ValueError, EOFError, zlib.error) as error:
                return Contents(
                    problem=_("{name} cannot be read as a zip ({error})").format(name=path.name, error=error)
                )
    return _modules_or_problem(modules, package, left_out)


def _member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, limit: int) -> bytes | None:
    """A member's bytes, or None when it unpacks to more than limit bytes (whatever its header says)."""
    if member.file_size > limit:
        return None
    with archive.open(member) as file:
        data = file.read(limit + 1)
    return data if len(data) <= limit else None


def _with_left_out(problem: str, left_out: dict[str, str]) -> str:
    """problem, followed by the first file left out (a link), which may be why nothing was found."""
    return f"{problem} ({next(iter(left_out.values()))})" if left_out else problem


def _modules_or_problem(modules: dict[str, bytes], package: str, left_out: dict[str, str]) -> Contents:
    """Contents of modules (and the files of package left out, by their name in it); a problem when there is no
    exercise module among them."""
    inside = {
        PurePosixPath(name).name: why for name, why in left_out.items() if str(PurePosixPath(name).parent) == package
    }
    if not any(MODULE.fullmatch(name) for name in modules):
        return Contents(
            where=_where(package),
            left_out=inside,
            problem=_with_left_out(
                _("no exercise modules (qNN_<name>.py) in {folder}").format(folder=_where(package)), inside
            ),
        )
    return Contents(modules=modules, where=_where(package), left_out=inside)


def _git(private: Path, *arguments: str, data: bytes | None = None) -> bytes:
    """Output of a read-only git command in private, a repository made by _private_copy; OSError on failure.

    No configuration but private's own is read (no system or global file, HOME an empty folder), nothing is fetched,
    nothing asked for: git runs no program and reads no file of the student's but the objects and references copied."""
    git = shutil.which("git")
    if git is None or not os.path.isabs(git):
        raise OSError(_("git is not installed on the grading machine"))
    environment = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    environment.update(
        HOME=str(private / "home"),
        XDG_CONFIG_HOME=str(private / "home"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_NO_LAZY_FETCH="1",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        GIT_ATTR_NOSYSTEM="1",
        LC_ALL="C",
    )
    command = [git, "--git-dir", str(private / "git"), *arguments]
    try:
        done = subprocess.run(
            command,
            input=data,
            capture_output=True,
            env=environment,
            cwd=private / "home",
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise OSError(
            _("git {command} took longer than {seconds} s").format(command=arguments[0], seconds=GIT_TIMEOUT)
        ) from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise OSError(
            (lines[0] if lines else _("git {command} failed").format(command=arguments[0])).removeprefix("fatal: ")
        )
    return done.stdout


def _private_copy(repository: Path, into: Path) -> None:
    """Make into/git a bare repository holding the objects, references and HEAD of repository's .git, copied as regular
    files only (no link followed), with a configuration of the grader's own: the student's config, hooks, alternates,
    promisor packs, commit-graph, grafts and replace references stay behind. OSError when there is too much to copy."""
    source, target = repository / ".git", into / "git"
    (into / "home").mkdir()
    (target / "objects" / "pack").mkdir(parents=True)
    (target / "refs").mkdir()
    config = _plain_text(source / "config")
    sha256 = re.search(r"(?im)^\s*objectformat\s*=\s*sha256\s*$", config) is not None
    (target / "config").write_text(
        "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n"
        if sha256
        else "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"
    )
    wanted = [name for name in ("HEAD", "packed-refs", "shallow") if stat.S_ISREG(_mode(source / name))]
    wanted += [f"objects/pack/{name}" for name in _names(source / "objects" / "pack") if PACK.fullmatch(name)]
    wanted += [
        f"objects/{folder}/{name}"
        for folder in _names(source / "objects")
        if re.fullmatch("[0-9a-f]{2}", folder)
        for name in _names(source / "objects" / folder)
        if OBJECT.fullmatch(name)
    ]
    # no link followed
    for folder, _subfolders, names in os.walk(source / "refs") if stat.S_ISDIR(_mode(source / "refs")) else ():
        wanted += [(Path(folder) / name).relative_to(source).as_posix() for name in names]
    total = 0
    for name in wanted:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        with _open_plain(source / name, name) as file, open(target / name, "xb") as copy:
            total += os.fstat(file.fileno()).st_size
            if total > GIT_BYTES:
                raise OSError(_("its objects are over {size} MiB: too large to read").format(size=GIT_BYTES >> 20))
            shutil.copyfileobj(file, copy)


def _names(folder: Path) -> list[str]:
    """The names in folder, when it is a folder and not a link; [] otherwise."""
    return sorted(os.listdir(folder)) if stat.S_ISDIR(_mode(folder)) else []


def _plain_text(path: Path) -> str:
    """The text of a small regular file (not a link); "" when there is none."""
    try:
        return (read_plain(path, path.name, 1 << 20) or b"").decode("utf-8", "replace")
    except OSError:
        return ""


def _read_repository(repository: Path, deadline: str | None = None) -> Contents:
    """A repository entry: the modules found by locate in the tree of HEAD (with a deadline, of HEAD's last commit
    before it, or HEAD when none is), read from git's objects in a private copy."""
    if not stat.S_ISDIR(_mode(repository / ".git")):
        return Contents(
            problem=_(
                ".git is a file or a link, not a repository's folder (it would make git read another "
                "repository): not graded"
            )
        )
    with tempfile.TemporaryDirectory(prefix="autograder-git-") as scratch:
        private = Path(scratch)
        try:
            _private_copy(repository, private)
            commit = _git(private, "rev-parse", "--verify", "-q", "HEAD^{commit}").decode().strip()
        except OSError as error:
            return Contents(
                problem=_("not a readable git repository, or no commit checked out ({error})").format(error=error)
            )
        timing = {}
        if deadline is not None:
            try:
                commit, timing = _on_time(private, commit, deadline)
            except (OSError, ValueError, OverflowError) as error:
                return Contents(
                    commit=commit,
                    problem=_("the git repository's commit dates cannot be read ({error})").format(error=error),
                )
        contents = _read_commit(private, commit)
    contents.timing = timing
    return contents


def _on_time(repository: Path, head: str, deadline: str) -> tuple[str, dict]:
    """(the commit to grade, its timing): HEAD's last commit whose committer date is before deadline, or HEAD itself
    (late) when there is none; late_hours is how long after the deadline the graded commit was made (0: on time)."""
    limit = datetime.datetime.fromisoformat(deadline)
    # git's own date format
    before = _git(repository, "rev-list", "-1", f"--before={int(limit.timestamp())} +0000", head).decode().strip()
    commit = before or head
    stamp = int(_git(repository, "show", "-s", "--format=%ct", commit).decode().strip())
    try:
        made = datetime.datetime.fromtimestamp(stamp, limit.tzinfo)
    except (OverflowError, OSError, ValueError):
        raise ValueError(
            _("commit {commit} is dated {stamp} s after 1970, which no calendar holds").format(
                commit=commit[:12], stamp=stamp
            )
        ) from None
    late = max(0.0, (made - limit).total_seconds() / 3600)
    after = int(_git(repository, "rev-list", "--count", f"{commit}..{head}").decode().strip() or 0)
    return commit, {
        "committed_at": made.isoformat(timespec="seconds"),
        "late_hours": round(late, 2),
        "commits_after_deadline": after,
    }


def _read_commit(repository: Path, commit: str) -> Contents:
    """The modules found by locate in the tree of commit."""
    try:
        listing = _git(repository, "ls-tree", "-r", "-z", "-l", "--full-tree", commit)
    except OSError as error:
        return Contents(
            commit=commit,
            problem=_("the git repository cannot be read at {commit} ({error})").format(
                commit=commit[:12], error=error
            ),
        )
    blobs: dict[str, tuple[str, int]] = {}  # path -> (object, size; -1 when git cannot tell, the object being missing)
    left_out: dict[str, str] = {}
    for line in listing.split(b"\0"):
        meta, _tab, name = line.partition(b"\t")
        fields = meta.split()
        path = name.decode("utf-8", "surrogateescape")
        if (
            len(fields) != 4
            or fields[1] != b"blob"
            or not path.endswith((".py", ".ipynb"))
            or set(PurePosixPath(path).parts[:-1]) & SKIPPED
        ):
            continue  # files only: no submodules
        if fields[0] == b"120000":
            left_out[path] = _("{name} is a symbolic link: not graded").format(name=path)
        # a module's name is a file name anywhere
        elif path.endswith(".ipynb") or re.fullmatch(r"[\w.-]+", PurePosixPath(path).name):
            blobs[path] = (fields[2].decode("ascii", "replace"), int(fields[3]) if fields[3].isdigit() else -1)
    package, notebook, problem = locate(sorted(blobs))
    if problem:
        return Contents(
            commit=commit,
            left_out=left_out,
            problem=_with_left_out(
                _("{problem} at commit {commit}").format(problem=problem, commit=commit[:12]), left_out
            ),
        )
    if notebook is not None:
        if blobs[notebook][1] > NOTEBOOK_BYTES:
            return Contents(
                commit=commit,
                where=notebook,
                problem=_("{where} is {size} MiB: too large for a notebook of this assignment").format(
                    where=notebook, size=blobs[notebook][1] >> 20
                ),
            )
        wanted = [notebook]
    else:
        wanted = [name for name in _package_files(sorted(blobs), package) if blobs[name][1] <= FILE_BYTES]
    try:
        found = _cat_blobs(repository, [blobs[name][0] for name in wanted])
    except (OSError, ValueError) as error:
        return Contents(
            commit=commit,
            problem=_("the git repository cannot be read at {commit} ({error})").format(
                commit=commit[:12], error=error
            ),
        )
    if notebook is not None:
        return Contents(notebook=found[0], commit=commit, where=notebook)
    contents = _modules_or_problem(
        {PurePosixPath(name).name: data for name, data in zip(wanted, found)}, package, left_out
    )
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
        size = int(header[2]) if header[2].isdigit() else -1
        if size < 0 or end + 1 + size > len(output):
            raise OSError(_("object {sha} is missing").format(sha=sha[:12]))
        found.append(output[end + 1 : end + 1 + size])
        position = end + 1 + size + 1
    return found
