"""The kit's own files for the user who runs it (error reports, sandbox logs): a private folder (mode 0700) of that
user's in the temporary folder, autograder-user-<uid>, so that users of a shared machine never read, write or report
each other's."""
import getpass
import os
import stat
import tempfile
import time
from pathlib import Path

_made: list[Path] = []  # the folder of this process, once found


def _user() -> str:
    """Who runs the kit, as a file name part: the uid where there is one, else the login name."""
    if hasattr(os, "getuid"):
        return str(os.getuid())
    try:
        return "".join(c for c in getpass.getuser() if c.isalnum() or c in "-_.") or "user"
    except (ImportError, KeyError, OSError):  # no login name in the environment or the password database
        return "user"


def _ours(path: Path) -> bool:
    """True when path is a real folder (not a link) that only this user can enter."""
    try:
        info = path.lstat()
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    if not hasattr(os, "getuid"):  # Windows: the temporary folder is the user's own already
        return True
    return info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077 == 0


def private_folder() -> Path | None:
    """This user's private folder (made on first use, mode 0700); a fresh private one when another user holds that name;
    None when no temporary folder can be written."""
    if _made:
        return _made[0]
    try:
        base = Path(tempfile.gettempdir())
        folder = base / f"autograder-user-{_user()}"
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
        if not _ours(folder):  # someone else's, a link, or open to others: never write there
            folder = Path(tempfile.mkdtemp(prefix=f"autograder-user-{_user()}-", dir=base))
    except OSError:  # FileNotFoundError: gettempdir() found no writable folder anywhere
        return None
    _made.append(folder)
    return folder


def new_file(prefix: str) -> Path | None:
    """A new empty file of this run in the private folder, <prefix>-<date>-<time>-<random>.txt; None when none can be
    made."""
    folder = private_folder()
    if folder is None:
        return None
    try:
        fd, name = tempfile.mkstemp(prefix=time.strftime(f"{prefix}-%Y%m%d-%H%M%S-"), suffix=".txt", dir=folder)
    except OSError:
        return None
    os.close(fd)
    return Path(name)
