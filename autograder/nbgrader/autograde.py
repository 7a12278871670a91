"""The preprocessors that the course's nbgrader_config.py puts around nbgrader's Execute in `nbgrader autograde`.

KeepAnswersAsData, before Execute, turns every code cell the instructor did not write (the answer cells, and any cell
a student added) into an inert cell (inert.py): the kernel runs no student code, and the test cells, which the
instructor wrote, hand the kept sources to the kit's grading process, which grades them in the sandbox (cell.py).
RestoreAnswers, after Execute, puts the student's sources back, so that the autograded notebook, its checksums and
`nbgrader generate_feedback` show the student's code. A cell counts as the instructor's when its source is, word for
word, a locked cell of the assignment's source notebook as the gradebook holds it (what nbgrader's OverwriteCells
restores), with only comment lines before it (the note nbgrader adds to a test cell it put back); nothing the student
could write in the notebook's metadata is read. Both run in nbgrader's process and never run a cell.
"""
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

from ..i18n import _
from .inert import wrap

KEPT = "autograder_kept_sources"  # in nbconvert's resources (never in the notebook): cell index -> student's source


def _comments_only(text: str) -> bool:
    """True when every line of text is blank or a comment."""
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.split("\n"))


def instructors(source: str, locked: list[str]) -> bool:
    """True when source is one of the locked sources, with at most comment lines before it."""
    return any(source.endswith(cell) and _comments_only(source[: len(source) - len(cell)]) for cell in locked if cell)


class KeepAnswersAsData(NbGraderPreprocessor):
    """Before Execute: each code cell that is not one of the instructor's locked cells becomes inert."""

    def preprocess(self, nb: "NotebookNode", resources: dict) -> tuple:  # noqa: F821
        """Keep the students' sources in resources and give the kernel their inert form."""
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gradebook:
            notebook = gradebook.find_notebook(info["notebook"], info["assignment"])
            locked = [cell.source for cell in notebook.source_cells if cell.locked and cell.cell_type == "code"]
        kept = {}
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code" and not instructors(cell.source, locked):
                kept[index] = cell.source
                cell.source = wrap(cell.source)
        resources[KEPT] = kept
        return nb, resources


class RestoreAnswers(NbGraderPreprocessor):
    """After Execute: each cell KeepAnswersAsData made inert gets the student's source back."""

    def preprocess(self, nb: "NotebookNode", resources: dict) -> tuple:  # noqa: F821
        """Put back the sources kept in resources; fail when they are missing (KeepAnswersAsData did not run)."""
        kept = resources.get(KEPT)
        if kept is None:
            raise RuntimeError(
                _(
                    "autograder: RestoreAnswers runs without KeepAnswersAsData before Execute: put both in "
                    "nbgrader_config.py as `python -m autograder nbgrader` writes it"
                )
            )
        for index, source in kept.items():
            nb.cells[index].source = source
        return nb, resources
