"""Fixtures shared by the kit's test modules."""
import pytest
from test_corpus import Graded


@pytest.fixture(scope="session")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    """Corpus results, graded on demand, each question's files in one sandbox; shared by test_corpus and test_mistakes."""
    return Graded(tmp_path_factory.mktemp("corpus"))
