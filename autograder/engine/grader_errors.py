"""The grader's own failures: the line a question it failed on gets, and where its tracebacks go (no torch import):
one file per run in the user's private folder (user_folder.py), or the error output when no temporary folder can
be written."""
import sys
from pathlib import Path

from ..i18n import _
from ..user_folder import new_file

_log: list[Path] = []  # this run's error file, once made


def grader_log() -> Path | None:
    """This run's error file (made on first use, in the user's private folder); None when no temporary folder can be
    written."""
    if not _log:
        made = new_file("error")
        if made is None:
            return None
        _log.append(made)
    return _log[0]


def keep_trace(trace: str) -> str:
    """Write a traceback of the grader's own to this run's error file, or to stderr when there is none; where it
    went, as the words a message names it by ("the file /tmp/...")."""
    log = grader_log()
    if log is not None:
        try:
            with log.open("a", encoding="utf-8") as file:
                file.write(trace.rstrip() + "\n\n")
            return _("the file {path}").format(path=log)
        except OSError:
            pass
    try:
        print(trace.rstrip(), file=sys.stderr)
    except (OSError, ValueError):  # no error output either (closed): the message still says what to do
        pass
    return _("what it printed on its error output")


def grader_failed(trace: str) -> str:
    """The line of a question the grader itself failed on (0 points): not the student's fault, and what to do; trace
    is logged."""
    return _(
        "the grader itself failed on this question, not your code: run the command again, and if it fails again, "
        "report it with {details}"
    ).format(details=keep_trace(trace))
