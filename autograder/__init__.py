"""The grader behind `python -m autograder`: manifest, sandboxed worker, hidden suites, reports.

`from autograder import check; check(3)` grades from Python (a notebook, Colab, a script): see autograder.notebook.
Importing this package imports nothing else (no torch).
"""


def check(*numbers: int, solutions: bool = False, notebook: bool | None = None, lang: str | None = None) -> "Report":  # noqa: F821
    """Grade questions numbers (all when none) as `python -m autograder check N --json` does and return the Report,
    which a notebook shows as an HTML table (text elsewhere). notebook: grade the answer cells run in this IPython
    kernel (an nbgrader notebook) instead of exercises/; None: when the kernel ran one. lang: "en" or "fr" (default:
    the locale's)."""
    from .notebook import check as grade

    return grade(*numbers, solutions=solutions, notebook=notebook, lang=lang)
