"""The portable backend on platforms without Linux's pieces (tests/simulate/, as tests/test_portable.py simulates
them): a thread bomb fails in its own question, held to the child's count of threads rather than to the user's
process quota, and a spare that a classmate's child changed while it waited is never given a question, as the
Linux backend never forks from a zygote a child changed."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder.sandbox.choice import missing_pieces
from test_portable import MACOS, WINDOWS, _simulated_interpreter

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(
    bool(missing_pieces()), reason="simulates the other platforms from one with the Linux pieces"
)
PLATFORMS = pytest.mark.parametrize("removals", [MACOS, WINDOWS], ids=["macos-like", "windows-like"])


def _env() -> dict:
    return {key: value for key, value in os.environ.items() if key != "AUTOGRADER_SANDBOX"}


@PLATFORMS
def test_a_thread_bomb_fails_in_its_question(removals: tuple[str, ...], tmp_path: Path) -> None:
    """tests/attacks/kernel_thread_bomb.py (3,000 threads at import) as question 1: refused past the child's 64
    threads, its question an error that says so, question 2 beside it full marks. Before the count, every thread
    started: 8 / 8."""
    kit = tmp_path / "kit"
    for name in ("autograder", "reference", "solutions"):
        shutil.copytree(ROOT / name, kit / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "course.yaml", kit)
    shutil.copytree(ROOT / "solutions", kit / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "tests" / "attacks" / "kernel_thread_bomb.py", kit / "exercises" / "q01_causal_mask.py")
    python, _ = _simulated_interpreter(tmp_path / "interpreter", removals)
    done = subprocess.run(
        [str(python), "-m", "autograder", "check", "1", "2", "--json"],
        cwd=kit,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(done.stdout)
    assert report["sandbox"]["backend"] == "portable", report["sandbox"]
    bomb, neighbour = report["questions"]
    assert (bomb["status"], bomb["score"]) == ("error", 0), bomb
    assert "can't start new thread" in json.dumps(bomb), bomb
    assert (neighbour["status"], neighbour["score"]) == ("passed", neighbour["max_score"]), neighbour


SPARE = """
import json, sys
from pathlib import Path
import psutil
from autograder.sandbox.portable.parent import PortableSandbox
package = Path(sys.argv[1])
sandbox = PortableSandbox()
sandbox.wait_ready(300)
seen = {"ours": psutil.Process().nice()}
for change in ("leave", "change"):  # the spare left alone is used; the one spawned after it, reniced, is replaced
    spare = sandbox.spares[0]
    if change == "change":
        psutil.Process(spare.popen.pid).nice(psutil.Process(spare.popen.pid).nice() + 5)  # as a classmate's child could: same user
    replaced = sandbox.replaced
    child = sandbox.open(package, "q01_causal_mask", 30.0)
    first = child.first()
    seen[change] = {"replaced": sandbox.replaced - replaced, "spare": child is spare, "ok": first["ok"],
                    "nice": psutil.Process(child.popen.pid).nice()}
    child.close()
sandbox.close()
print(json.dumps(seen))
"""  # noqa: E501 - a program's text, written out as it is


@PLATFORMS
def test_a_spare_a_child_changed_gets_no_question(removals: tuple[str, ...], tmp_path: Path) -> None:
    """The grader reads the spare's priority (and, where it can, its limits and CPUs) when it spawns it, and again
    before it gives it a question: a spare left alone is used; the next one, reniced meanwhile, is replaced by a fresh
    child, which runs at the grader's priority."""
    package = tmp_path / "exercises"
    shutil.copytree(ROOT / "solutions", package, ignore=shutil.ignore_patterns("__pycache__"))
    python, _ = _simulated_interpreter(tmp_path / "interpreter", removals)
    done = subprocess.run(
        [str(python), "-c", SPARE, str(package)],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    for change, expected in (("leave", (0, True)), ("change", (1, False))):
        assert seen[change]["ok"] and seen[change]["nice"] == seen["ours"], seen
        assert (seen[change]["replaced"], seen[change]["spare"]) == expected, seen


FILES = """
import json, sys
from pathlib import Path
from autograder.sandbox.portable.parent import PortableSandbox
sandbox = PortableSandbox()
sandbox.wait_ready(300)
child = sandbox.open(Path(sys.argv[1]), "q01_causal_mask", 30.0)
first = child.first()
seen = child.ask({"op": "call", "target": "files", "args": [], "kwargs": {}})["value"] if first["ok"] else None
child.close()
sandbox.close()
print(json.dumps(seen))
"""


def test_a_macos_like_child_is_held_to_its_own_descriptor_bound(tmp_path: Path) -> None:
    """Where `resource` exists without Linux's pieces (macOS), a child's RLIMIT_NOFILE is limits.CHILD_FILES, soft
    and hard, and its pipes stop with EMFILE within it; Windows has no such limit (nor a pipe quota per user)."""
    import errno

    from autograder.sandbox.limits import CHILD_FILES
    from test_sandbox_backends import FILES_MODULE

    package = tmp_path / "exercises"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "q01_causal_mask.py").write_text(FILES_MODULE)
    python, _ = _simulated_interpreter(tmp_path / "interpreter", MACOS)
    done = subprocess.run(
        [str(python), "-c", FILES, str(package)],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    soft, hard, code, made = json.loads(done.stdout.strip().splitlines()[-1])
    assert (soft, hard, code) == (CHILD_FILES, CHILD_FILES, errno.EMFILE) and made < CHILD_FILES
