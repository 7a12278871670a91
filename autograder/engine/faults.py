"""The grader's own failures: the line a question it failed on gets, and the log its tracebacks go to (no torch import)."""
import tempfile
from pathlib import Path

from ..i18n import _

GRADER_LOG = Path(tempfile.gettempdir()) / "autograder-error.txt"  # where the grader's own tracebacks go (the CLI's too)


def grader_failed(trace: str) -> str:
    """The line of a question the grader itself failed on (0 points): not the student's fault, and what to do; trace is logged."""
    try:
        with GRADER_LOG.open("a", encoding="utf-8") as log:
            log.write(trace.rstrip() + "\n\n")
    except OSError:
        pass
    return _("the grader itself failed on this question, not your code: run the command again, and if it fails again, report it "
             "with the file {log}").format(log=GRADER_LOG)
