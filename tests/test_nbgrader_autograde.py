"""`nbgrader autograde` with the kit's preprocessors: the kernel gets every student's cell as inert data, the test
cells' grading process reads the source back, and the autograded notebook gets the student's code again."""
import types
from pathlib import Path

import pytest

pytest.importorskip("nbgrader", reason="nbgrader is not installed: pip install nbgrader (the `test` extra has it)")

from autograder.course.manifest import load_course
from autograder.nbgrader import autograde
from autograder.nbgrader.course import build_notebook, config_text
from autograder.nbgrader.inert import MARK, defined_names, unwrap, wrap
from autograder.nbgrader.package import answer_id, graded_id, pick_from_history

KIT = Path(__file__).resolve().parent.parent
COURSE = load_course(KIT)
NASTY = [
    "def causal_mask(T):\n    return T\n",
    "x = '''\n'''  # '\nopen(PATH, 'w').write('ran')\n",
    "s = \"\"\"\n\"\"\"\nopen(PATH, 'w').write('ran')\n",
    f"{MARK}\n_kit_cell = ''\nopen(PATH, 'w').write('ran')\n",  # a student's cell that looks inert is wrapped again
    "'\\\n'; open(PATH, 'w').write('ran')\ndef mask_scores(s, m):\n    return s\nclass Net:\n    pass\n",
    "lone = '\ud800'\nopen(PATH, 'w').write('ran')\n",
    "%%bash\necho ran > PATH\n",
    "",
]


@pytest.mark.parametrize("source", NASTY)
def test_an_inert_cell_runs_none_of_the_students_code_and_gives_it_back_whole(source: str, tmp_path: Path) -> None:
    """The wrapped cell, run, writes nothing and binds each defined name to a stand-in that raises; unwrap gives the
    source back character for character."""
    ran = tmp_path / "ran"
    namespace: dict = {"PATH": str(ran)}
    exec(compile(wrap(source), "<cell>", "exec"), namespace)  # noqa: S102 - the point: running it runs nothing
    assert not ran.exists()
    for name in defined_names(source):
        with pytest.raises(RuntimeError, match="not run in this kernel"):
            namespace[name]()
    assert unwrap(wrap(source)) == source


def test_unwrap_leaves_any_other_text_as_it_is() -> None:
    """A cell that is not an inert one, or whose data is not base64, is returned unchanged."""
    for text in ["print(1)", f"{MARK}\n_kit_cell = 'not base64!'\n", f"{MARK}\n", "# q01_answer\n"]:
        assert unwrap(text) == text
    assert defined_names("def f(:") == []
    bound = "def f(): pass\ndef f(): pass\ndef _kit_x(): pass\nclass C: pass\ng = h = 1\nimport torch.nn as nn\n"
    assert defined_names(bound) == ["C", "f", "g", "h", "nn"]


class FakeGradebook:
    """The gradebook as the preprocessor reads it: the source notebook's cells."""

    cells: list = []

    def __init__(self, url: str) -> None:
        self.url = url

    def __enter__(self) -> "FakeGradebook":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def find_notebook(self, notebook: str, assignment: str) -> object:
        return types.SimpleNamespace(source_cells=self.cells)


def _source_and_submitted() -> tuple[object, object]:
    """The kit's assignment notebook (what the gradebook holds) and a student's copy with answers, a cell of its own,
    an edited test cell, a test cell that nbgrader put back with its note, and a test cell's metadata on an answer."""
    from nbformat import v4

    source = build_notebook(COURSE)
    submitted = v4.reads(v4.writes(source))
    by_id = {cell.metadata.get("nbgrader", {}).get("grade_id"): cell for cell in submitted.cells}
    by_id[answer_id(1)].source = "# q01_answer\nimport os\nos.system('true')\ndef causal_mask(T):\n    return T\n"
    by_id[answer_id(2)].metadata["nbgrader"].update(grade=True, locked=True, solution=False)
    by_id[graded_id(2)].source += "\nopen('/tmp/x', 'w')\n"
    note = "# This cell (id:q03) was missing from the submission.\n\n"  # as nbgrader's OverwriteCells puts it back
    by_id[graded_id(3)].source = note + by_id[graded_id(3)].source
    submitted.cells.insert(1, v4.new_code_cell("import shutil; shutil.rmtree('/')"))
    FakeGradebook.cells = [
        types.SimpleNamespace(source=cell.source, locked=bool(cell.metadata.get("nbgrader", {}).get("locked")),
                              cell_type=cell.cell_type)
        for cell in source.cells
    ]
    return source, submitted


def test_keep_makes_every_student_cell_inert_and_restore_gives_the_notebook_back(monkeypatch) -> None:
    """Before Execute only the instructor's locked code cells (word for word, or after nbgrader's comment) stay as
    they are, whatever the metadata says; after it every cell has its submitted source again."""
    from nbformat import v4

    monkeypatch.setattr(autograde, "Gradebook", FakeGradebook)
    _source, submitted = _source_and_submitted()
    before = [cell.source for cell in submitted.cells]
    resources = {"nbgrader": {"db_url": "sqlite://", "notebook": "attention", "assignment": "a"}}
    kept, resources = autograde.KeepAnswersAsData().preprocess(v4.reads(v4.writes(submitted)), resources)
    tests = {graded_id(q.number) for q in COURSE.questions} - {graded_id(2)}
    for cell, original in zip(kept.cells, before):
        if cell.cell_type != "code":
            assert cell.source == original
        elif cell.metadata.get("nbgrader", {}).get("grade_id") in tests:
            assert cell.source == original, original
        else:
            assert cell.source == wrap(original), original
            assert unwrap(cell.source) == original
    history = [cell.source for cell in kept.cells if cell.cell_type == "code"]
    assert pick_from_history(COURSE, [unwrap(text) for text in history], 1)[1] == before[3]
    restored, _resources = autograde.RestoreAnswers().preprocess(kept, resources)
    assert [cell.source for cell in restored.cells] == before


def test_restore_without_keep_refuses() -> None:
    """RestoreAnswers alone (a config that lost KeepAnswersAsData) stops the notebook with the fix."""
    from nbformat import v4

    with pytest.raises(RuntimeError, match="KeepAnswersAsData"):
        autograde.RestoreAnswers().preprocess(v4.new_notebook(), {})


def test_the_course_config_puts_the_kits_preprocessors_around_execute(tmp_path: Path) -> None:
    """nbgrader_config.py lists the kit's two preprocessors just around Execute, then nbgrader's own, and each entry
    imports from the kit's folder."""
    from traitlets.config.loader import PyFileConfigLoader
    from traitlets.utils.importstring import import_item

    (tmp_path / "nbgrader_config.py").write_text(config_text(COURSE, tmp_path, kit_dir=str(KIT)))
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    names = list(config.Autograde.autograde_preprocessors)
    execute = names.index("nbgrader.preprocessors.Execute")
    assert names[execute - 1 : execute + 2] == [
        "autograder.nbgrader.autograde.KeepAnswersAsData",
        "nbgrader.preprocessors.Execute",
        "autograder.nbgrader.autograde.RestoreAnswers",
    ]
    assert names[execute + 2 :][-1] == "nbgrader.preprocessors.CheckCellMetadata"
    assert [import_item(name).__name__ for name in names][execute - 1] == "KeepAnswersAsData"


def test_answers_the_kernel_ran_as_code_score_nothing_under_autograde(monkeypatch) -> None:
    """Under `nbgrader autograde`, a test cell whose history holds an answer cell as code (a config without the kit's
    preprocessors) scores 0 and names the missing lines; inert cells are not such cells."""
    from autograder.nbgrader.cell import Grader
    from autograder.nbgrader.inert import is_inert
    from autograder.nbgrader.package import marker

    grader = Grader.__new__(Grader)  # no sandbox: the refusal comes before any grading
    grader.courses = {}
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    answer = marker(COURSE.question(1)) + "\ndef causal_mask(T):\n    return T\n"
    said = grader.grade({"course_root": str(KIT), "number": 1, "history": ["import torch", answer, "# Tests"]})
    assert said["score"] == 0.0
    assert "KeepAnswersAsData" in said["summary"] and "outside the sandbox" in said["summary"]
    assert is_inert(wrap(answer)) and not is_inert(answer) and not is_inert(f"{MARK}\n_kit_cell = '!'\n")
