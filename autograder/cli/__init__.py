"""The command line: `python -m autograder check | list | hint | selftest` and the instructor and maintainer
commands."""
from .main import main

__all__ = ["main"]
