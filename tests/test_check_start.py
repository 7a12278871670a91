"""What `check` does before its first question runs stays lean (issue 23: `check 3` within a bare `import torch`): the
modules the grader imports before its sandbox starts, and the sandbox's own work before its first fork."""
import os
import sys
import types
from pathlib import Path

import pytest

from autograder.sandbox import walls


def test_python_folders_resolves_links_as_the_realpath_of_each_module_file_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """python_folders resolves each module file's folder once (not each file: 50 ms before the first fork); a folder
    reached through a link, and a module file that is itself a link to another folder, still count where they
    really are."""
    real, linked_to = tmp_path / "real", tmp_path / "elsewhere"
    real.mkdir()
    linked_to.mkdir()
    (real / "plain.py").write_text("")
    (linked_to / "target.py").write_text("")
    (tmp_path / "link").symlink_to(real)  # a sys.path entry that is a link to real/
    entry, files = tmp_path / "entry", tmp_path / "files"
    entry.mkdir()
    files.mkdir()
    (files / "linked.py").symlink_to(linked_to / "target.py")  # a module file that is a link into elsewhere/
    unused = tmp_path / "unused"
    unused.mkdir()
    modules = {
        "_via_link": types.SimpleNamespace(__file__=str(tmp_path / "link" / "plain.py")),
        "_linked_file": types.SimpleNamespace(__file__=str(files / "linked.py")),
    }
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    for folder in (tmp_path / "link", linked_to, unused):
        monkeypatch.syspath_prepend(str(folder))
    found = walls.python_folders.__wrapped__()  # not the cached answer of this process
    assert str(real) in found  # the entry link/ resolved: real/ is where plain.py really is
    assert str(linked_to) in found  # linked.py resolved to elsewhere/target.py: elsewhere/ is used
    assert str(unused) not in found and str(files) not in found  # nothing came from there
    assert all(os.path.realpath(path) == path for path in found)
