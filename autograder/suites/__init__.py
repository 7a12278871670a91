"""The hidden suites: one module per question, named like the exercise, each defining CHECKS."""
import importlib

from ..checks import Check, Note
from ..manifest import Question


def checks_for(question: Question) -> list[Check]:
    """The checks of question, from autograder/suites/<module>.py."""
    return importlib.import_module(f"{__name__}.{question.module}").CHECKS


def notes_for(question: Question) -> list[Note]:
    """The ungraded notes of question (NOTES in its suite), often none."""
    return getattr(importlib.import_module(f"{__name__}.{question.module}"), "NOTES", [])
