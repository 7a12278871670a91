"""One notebook reader (nbgrader/answers.py) for every path that grades a notebook file, and nbgrader as an input and an
output of class grading, never its driver: nbgrader/ imports nothing of classroom/, and classroom/ imports nbgrader at
the top of its modules (no import inside a function to step around a circle)."""
import ast
import json
from pathlib import Path

import pytest

from autograder.classroom import work
from autograder.classroom.gradescope import prepare
from autograder.classroom.intake import Contents
from autograder.course.manifest import load_course
from autograder.nbgrader.answers import read_answers
from autograder.nbgrader.package import answer_id, marker

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "autograder"
COURSE = load_course(ROOT)


def notebook(*cells: tuple[str, str | None]) -> bytes:
    """A .ipynb of code cells (source, grade_id or None for a cell without nbgrader's metadata)."""
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [
                {
                    "cell_type": "code",
                    "metadata": {"nbgrader": {"grade_id": grade_id}} if grade_id else {},
                    "source": source,
                    "outputs": [],
                    "execution_count": None,
                }
                for source, grade_id in cells
            ],
        }
    ).encode()


def test_the_last_cell_of_a_grade_id_is_the_answer_and_a_cell_that_lost_its_metadata_is_found_as_check_finds_it():
    one, two = COURSE.question(1), COURSE.question(2)
    data = notebook(("x = 1", answer_id(1)), ("x = 2", answer_id(1)), (marker(two) + "\ny = 3", None))
    assert read_answers(COURSE, data, "ann.ipynb") == ({1: "x = 2", 2: marker(two) + "\ny = 3"}, "")
    assert one.number in read_answers(COURSE, notebook((f"def {one.functions[0]}(T):\n    pass", None)), "a.ipynb")[0]


@pytest.mark.parametrize(
    "data, says",
    [
        (b"{not json", "cannot be read as a notebook (JSONDecodeError"),
        (b'{"cells": 3}', "cannot be read as a notebook (TypeError: no list of cells)"),
        (notebook(("print(1)", None)), "has none of the assignment's answer cells"),
    ],
)
def test_what_is_not_the_assignment_s_notebook_says_why(data, says):
    assert read_answers(COURSE, data, "ann.ipynb")[0] == {} and says in read_answers(COURSE, data, "ann.ipynb")[1]


def test_grade_dir_and_gradescope_read_a_notebook_alike(tmp_path):
    """A notebook whose answer cell lost nbgrader's metadata (copied into a new notebook) is graded by `grade DIR` as
    the Gradescope autograder and `check` grade it, from the cell marked `# q01_answer`."""
    source = marker(COURSE.question(1)) + "\n" + (ROOT / "solutions" / "q01_causal_mask.py").read_text()
    data = notebook((source, None))
    package, problem = work.build_package(COURSE, Contents(notebook=data, where="ann.ipynb"), tmp_path / "dir")
    assert problem == "" and source in (package / Path(COURSE.question(1).file).name).read_text()
    (tmp_path / "upload").mkdir()
    (tmp_path / "upload" / "ann.ipynb").write_bytes(data)
    prepare(COURSE, tmp_path / "upload", tmp_path / "gradescope")
    name = Path(COURSE.question(1).file).name
    assert (tmp_path / "gradescope" / name).read_text() == (package / name).read_text()


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(module imported, inside a function) for every import of a module of the kit."""
    tree, found = ast.parse(path.read_text(encoding="utf-8")), []
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inner = {id(node) for function in functions for node in ast.walk(function)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found.append(("." * node.level + (node.module or ""), id(node) in inner))
        elif isinstance(node, ast.Import):
            found += [(alias.name, id(node) in inner) for alias in node.names]
    return found


def test_nbgrader_never_calls_the_class_grading_and_the_classroom_imports_nbgrader_at_the_top():
    for path in sorted((KIT / "nbgrader").glob("*.py")):
        assert not [name for name, _inner in _imports(path) if "classroom" in name], path
    for path in sorted((KIT / "classroom").glob("*.py")):
        assert not [name for name, inner in _imports(path) if inner and "nbgrader" in name], path
