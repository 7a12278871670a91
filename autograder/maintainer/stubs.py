"""Make the student stubs from solutions/: each marked solution region becomes a TODO line and a raise."""
import re
from pathlib import Path

BEGIN = re.compile(r"^(?P<indent>\s*)### BEGIN SOLUTION(?::\s*(?P<todo>.*))?$")
END = re.compile(r"^\s*### END SOLUTION\s*$")


class StubError(ValueError):
    """A solution file whose markers do not pair up."""


def make_stub(source: str, filename: str = "<solution>") -> str:
    """Text of the stub module: every BEGIN/END SOLUTION region replaced by `# TODO: ...` + raise."""
    out: list[str] = []
    open_at: int | None = None
    for number, line in enumerate(source.splitlines(), start=1):
        begin = BEGIN.match(line)
        if begin:
            if open_at is not None:
                raise StubError(f"{filename}:{number}: BEGIN SOLUTION inside the region opened at line {open_at}")
            open_at = number
            indent, todo = begin["indent"], begin["todo"] or "write this part."
            out += [f"{indent}# TODO: {todo.strip()}", f"{indent}raise NotImplementedError"]
        elif END.match(line):
            if open_at is None:
                raise StubError(f"{filename}:{number}: END SOLUTION without a BEGIN SOLUTION")
            open_at = None
        elif open_at is None:
            out.append(line)
    if open_at is not None:
        raise StubError(f"{filename}:{open_at}: BEGIN SOLUTION is never closed")
    return "\n".join(out) + "\n"


def solution_bodies(source: str) -> list[str]:
    """The code lines inside the solution regions of a solution file, stripped, blank lines left out."""
    bodies, inside = [], False
    for line in source.splitlines():
        if BEGIN.match(line) or END.match(line):
            inside = bool(BEGIN.match(line))
        elif inside and line.strip():
            bodies.append(line.strip())
    return bodies


def expected_stubs(solutions: Path) -> dict[str, str]:
    """File name -> stub text for every module in solutions/."""
    return {path.name: make_stub(path.read_text(), str(path)) for path in sorted(solutions.glob("*.py"))}


def write_stubs(solutions: Path, exercises: Path) -> list[str]:
    """Regenerate exercises/ from solutions/; return the names of the files that changed."""
    exercises.mkdir(exist_ok=True)
    changed = []
    for name, text in expected_stubs(solutions).items():
        target = exercises / name
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
            changed.append(name)
    return changed
