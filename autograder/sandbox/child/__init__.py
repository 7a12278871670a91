"""The code that runs in the sandboxed child beside the student's: it uses torch only, never the grader.

The worker loads this package as `_child` in the zygote, before any student code runs.
"""
from . import clock, forbidden, helpers, plain, session

__all__ = ["clock", "forbidden", "helpers", "plain", "session"]
