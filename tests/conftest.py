"""Fixtures shared by the kit's test modules."""
import os

import pytest
from test_corpus import Graded

# Class grading draws its inputs from the course secret; the tests compare it with `check` message for message, so they
# grade classes on the public seeds (test_secret.py tries the secret itself). Subprocesses inherit it.
os.environ.setdefault("AUTOGRADER_SECRET", "")


@pytest.fixture(scope="session")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    """Corpus results, graded on demand, each question's files in one sandbox; shared by test_corpus and test_mistakes."""
    return Graded(tmp_path_factory.mktemp("corpus"))
