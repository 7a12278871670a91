"""The grader's own error files and logs on a shared machine: each user's in a private folder of their own, named in the
message; and with no writable temporary folder at all, the traceback on stderr instead of a crash."""
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder import user_folder

ROOT = Path(__file__).resolve().parent.parent
FAIL = ("import sys; sys.path.insert(0, {root!r}); from autograder.engine.grader_errors import grader_failed; "
        "print(grader_failed('Traceback: planted by {who}'))")
OTHER_USER = "nobody"


def _fail_as(python: str, tmpdir: Path, who: str, user: str | None = None) -> subprocess.CompletedProcess:
    """grader_failed in a fresh process with TMPDIR=tmpdir, as user (runuser) or as this one."""
    command = [python, "-I", "-c", FAIL.format(root=str(ROOT), who=who)]
    if user is not None:
        command = ["runuser", "-u", user, "--", *command]
    return subprocess.run(command, env={"TMPDIR": str(tmpdir), "PATH": os.environ.get("PATH", "")}, capture_output=True,
                          text=True, timeout=60, cwd="/")


def _named_file(message: str) -> Path:
    """The file a grader-failed line names."""
    return Path(message.strip().rsplit("with the file ", 1)[1])


def _python_for(user: str) -> str | None:
    """An interpreter that user can run (this one, else the system's python3), None when there is none."""
    for python in (sys.executable, shutil.which("python3"), "/usr/bin/python3"):
        if (
            python
            and subprocess.run(["runuser", "-u", user, "--", python, "-c", ""], capture_output=True).returncode == 0
        ):
            return python
    return None


@pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0 or shutil.which("runuser") is None,
    reason="needs root and runuser to act as a second user",
)
def test_two_users_get_their_own_private_error_files():
    """Two users of one temporary folder: each traceback in a file of its own user's 0700 folder, which the message
    names."""
    python = _python_for(OTHER_USER)
    if python is None:
        pytest.skip(f"no Python that {OTHER_USER} can run")
    shared = Path(tempfile.mkdtemp(prefix="i26a-shared-"))
    try:
        shared.chmod(0o1777)  # as /tmp is
        mine, theirs = _fail_as(python, shared, "root"), _fail_as(python, shared, OTHER_USER, OTHER_USER)
        assert mine.returncode == 0 and theirs.returncode == 0, mine.stderr + theirs.stderr
        my_file, their_file = _named_file(mine.stdout), _named_file(theirs.stdout)
        assert my_file.parent != their_file.parent
        for file, owner, who in ((my_file, 0, "root"), (their_file, OTHER_USER, OTHER_USER)):
            info = file.parent.stat()
            assert file.parent.parent == shared and stat.S_IMODE(info.st_mode) == 0o700
            assert info.st_uid == (
                owner if isinstance(owner, int) else int(subprocess.check_output(["id", "-u", owner]))
            )
            assert f"planted by {who}" in file.read_text()
    finally:
        shutil.rmtree(shared)


def test_a_folder_of_that_name_held_by_another_uid_is_not_used(tmp_path, monkeypatch):
    """Another uid's existing folder (simulated: this process takes another uid): a fresh private folder instead."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(user_folder, "_made", [])
    real = os.getuid() if hasattr(os, "getuid") else None
    if real is None:
        pytest.skip("no uids on this system")
    monkeypatch.setattr(os, "getuid", lambda: real + 1)
    squatted = tmp_path / f"autograder-user-{real + 1}"
    squatted.mkdir(mode=0o700)  # owned by the real uid, so not by the one this process now has
    folder = user_folder.private_folder()
    assert folder is not None and folder != squatted and folder.parent == tmp_path
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_an_open_folder_of_that_name_is_not_used(tmp_path, monkeypatch):
    """This user's folder made readable by others (or a link to elsewhere): never written to."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(user_folder, "_made", [])
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / f"autograder-user-{user_folder._user()}").symlink_to(tmp_path / "elsewhere")
    folder = user_folder.private_folder()
    assert folder is not None and folder.parent == tmp_path and not folder.is_symlink()
    assert user_folder.new_file("error").parent == folder


def test_no_writable_temporary_folder_puts_the_trace_on_stderr():
    """gettempdir() finding no writable folder anywhere: importing the grader's fault handler and using it do not crash,
    and the traceback goes to stderr, which the message names."""
    code = (
        "import sys, tempfile\ndef nowhere():\n    raise FileNotFoundError(2, 'No usable temporary directory "
        "found')\ntempfile.gettempdir = nowhere\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from autograder.engine.grader_errors import grader_failed\nprint(grader_failed('Traceback: planted'))\n"
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "the grader itself failed on this question" in done.stdout and "error output" in done.stdout
    assert "Traceback: planted" in done.stderr
