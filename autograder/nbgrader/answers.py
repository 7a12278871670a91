"""The one reader of a submitted notebook: its answer cells, question by question, or why it cannot be read.

Every path that grades a notebook file reads it here: `grade DIR` and `grade --nbgrader` (classroom/work.py), and the
Gradescope autograder (classroom/gradescope.py). A question's answer is the last code cell whose nbgrader grade_id is
its answer id (q03_answer; nbgrader keeps the last of duplicates); a question with no such cell (its metadata lost when
the cell was copied) takes the cell `check` would recognise in a notebook: the last one marked `# q03_answer`, else the
last that defines one of the question's functions (package.py's pick_from_history). The notebook is read as JSON (no
nbformat needed); nothing in it is run.
"""
import json
from pathlib import Path

from ..course.manifest import Course
from ..i18n import _
from .package import answer_id, pick_from_history


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def answers(course: Course, notebook: dict) -> dict[int, str]:
    """Question number -> source of its answer cell in a notebook (a parsed .ipynb), by grade_id, else as `check`
    finds it."""
    wanted = {answer_id(q.number): q.number for q in course.questions}
    code = [cell for cell in notebook.get("cells", []) if isinstance(cell, dict) and cell.get("cell_type") == "code"]
    sources: dict[int, str] = {}
    for cell in code:
        number = wanted.get(((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id"))
        if number is not None:
            sources[number] = _source(cell)
    for number, source in pick_from_history(course, [_source(cell) for cell in code], course.numbers[-1]).items():
        sources.setdefault(number, source)
    return sources


def read_answers(course: Course, data: bytes | Path, name: str) -> tuple[dict[int, str], str]:
    """(answers, "") of a notebook file (its bytes, or its path), or ({}, why) when it cannot be read, is not a
    notebook or holds none of the assignment's answers; name: what the problem calls the file."""
    try:
        notebook = json.loads((data.read_bytes() if isinstance(data, Path) else data).decode("utf-8"))
        if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
            raise TypeError("no list of cells")
        found = answers(course, notebook)
    except Exception as error:  # noqa: BLE001 - any unreadable notebook is reported, never fatal
        first = (str(error).strip().splitlines() or [""])[0]
        return {}, _("{name} cannot be read as a notebook ({error}: {message})").format(
            name=name, error=type(error).__name__, message=first[:200]
        )
    if not found:
        return {}, _(
            "{name} has none of the assignment's answer cells (grade_id q01_answer, ...): is it this assignment's "
            "notebook?"
        ).format(name=name)
    return found, ""
