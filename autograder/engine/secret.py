"""The course secret: class grading draws its inputs from it, so no table built from the learner release matches them.

The instructor's copy keeps it in autograder/suites/.course-secret (made on the first class grading, or by
`python -m autograder nbgrader`, whose test cells grade with it under `nbgrader autograde`): a hidden
folder for students' code, a dotfile that the release leaves out, ignored by git; the Gradescope zip carries it.
Local `check` never reads it and keeps the public seeds. The environment variable AUTOGRADER_SECRET, where it is set,
stands in for the file (a cluster's workers, a CI job); set to the empty string, class grading uses the public seeds
(the kit's own tests do, to compare class grading with `check` message for message).
"""
import os
import secrets
from pathlib import Path

from . import inputs

SECRET_FILE = Path(__file__).resolve().parent.parent / "suites" / ".course-secret"
ENVIRONMENT = "AUTOGRADER_SECRET"


def class_secret(create: bool = True) -> str:
    """The course's secret (AUTOGRADER_SECRET where it is set), made and written first when create and there is none; ""
    when there is none."""
    if ENVIRONMENT in os.environ:
        return os.environ[ENVIRONMENT]
    try:
        return SECRET_FILE.read_text(encoding="ascii").strip()
    except OSError:
        if not create:
            return ""
    value = secrets.token_hex(32)
    SECRET_FILE.write_text(value + "\n", encoding="ascii")
    SECRET_FILE.chmod(0o600)
    return value


def for_class_grading(create: bool = True) -> str:
    """Draw every later input of this process from the course secret (before the suites are collected); the secret."""
    value = class_secret(create)
    inputs.use_secret(value)
    return value
