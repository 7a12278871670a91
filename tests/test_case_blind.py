"""A volume that ignores case (macOS's default, Windows'): `SOLUTIONS/` names solutions/ there, and the Guard must
see it.

Without Landlock (macOS, Windows) the audit hook alone keeps an answer from reading the solutions, the oracle or the
suites, and it compared path strings: on such a volume `open(".../SOLUTIONS/q03_attention.py")` read the solution and
scored 12 / 12. The Guard now also compares what the file system compares, the identity (device, inode) of each
folder on a path's way, where the kit's folder is found again under its name with the letters' case swapped. The
volume is a stand-in here: in a fresh interpreter, os.stat looks each part of a path up ignoring case, as such a
volume does."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUARD = str(ROOT / "autograder" / "sandbox" / "child" / "guard.py")
SCRIPT = r'''
import importlib, importlib.util, os, sys
from pathlib import Path

folder = os.path.dirname(sys.argv[1])  # the child's package, by path as boot.py loads it: guard.py imports its sibling hidden.py
limits = importlib.util.spec_from_file_location("_limits", os.path.join(os.path.dirname(folder), "limits.py"))
sys.modules["_limits"] = importlib.util.module_from_spec(limits)  # as boot.py does: guard.py reads `_limits`
limits.loader.exec_module(sys.modules["_limits"])
spec = importlib.util.spec_from_file_location("_child_under_test", os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])
sys.modules["_child_under_test"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sys.modules["_child_under_test"])
guard = importlib.import_module("_child_under_test.guard")
real_stat = os.stat

def as_stored(path):
    """path as a case-blind volume resolves it: each part not found as written is the entry equal to it but for case."""
    built = os.sep
    for part in os.fsdecode(path).split(os.sep):
        if part in ("", "."):
            continue
        candidate = os.path.join(built, part)
        if part != ".." and not os.path.lexists(candidate):
            try:
                names = [name for name in os.listdir(built) if name.casefold() == part.casefold()]
            except OSError:
                return path
            if not names:
                return path
            candidate = os.path.join(built, names[0])
        built = candidate
    return built

def stat_ignoring_case(path, *args, **kwargs):
    return real_stat(path if isinstance(path, int) else as_stored(path), *args, **kwargs)

if sys.argv[2] == "case-blind":
    os.stat = stat_ignoring_case
workdir, package = Path(sys.argv[3]) / "work", Path(sys.argv[3]) / "exercises"
workdir.mkdir()
package.mkdir()
watch = guard.Guard([], str(workdir), str(package))
for path in sys.argv[4:]:
    try:
        watch("open", (path, "r", os.O_RDONLY))
        print("allowed")
    except PermissionError:
        print("refused")
'''  # noqa: E501 - a program's text, written out as it is
PATHS = {
    "SOLUTIONS/q03_attention.py": "refused",
    "Solutions/Q03_Attention.py": "refused",
    "REFERENCE/__init__.py": "refused",
    "AutoGrader/Suites/conftest.py": "refused",
    "solutions/q03_attention.py": "refused",
    "README.md": "allowed",
    "AUTOGRADER/sandbox/codec.py": "allowed",
}


@pytest.mark.parametrize("volume", ["case-blind", "case-sensitive"])
def test_the_guard_compares_paths_as_the_volume_does(volume: str, tmp_path: Path) -> None:
    paths = [str(ROOT / path) for path in PATHS]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, GUARD, volume, str(tmp_path), *paths], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    seen = dict(zip(PATHS, done.stdout.split()))
    if volume == "case-blind":
        assert seen == PATHS
    else:  # a case-sensitive volume: `SOLUTIONS/` is another folder (none here), and costs no look-up
        assert seen["solutions/q03_attention.py"] == "refused" and seen["README.md"] == "allowed"
