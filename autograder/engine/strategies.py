'''Hypothesis for the hidden suites: one shared `settings` object and small strategies for sizes, dtypes and seeds.

A check written with hypothesis draws the few numbers its tensors are built from, never the tensors
themselves: on a failure the kit appends hypothesis's shrunk example to the check's message, and it
must read like `[smallest failing input: T=1, d_h=1, dtype=torch.float32, seed=0]`:

    @pytest.mark.points(5)
    @settings
    @given(T=sizes(1, 6), d_h=sizes(), dtype=dtypes(), seed=seeds())
    def test_scores(student: Student, T: int, d_h: int, dtype: torch.dtype, seed: int) -> None:
        """scores match"""
        H = randn(T, d_h, seed=seed, dtype=dtype)
        ...

The settings make every run the same (derandomized, no example database, no constants read from the kit's own
source: below), never time a test case
(a call into the sandbox is a round trip between processes), keep the report to one failure (the
shrunk one) without a reproduction blob, and leave out the explain phase, whose comments would end up
in the student's message.
'''
import torch
from hypothesis import HealthCheck, Phase
from hypothesis import settings as _settings
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

try:  # a hypothesis that draws from the source's constants (6.131 and later); an older one reads none
    from hypothesis.internal.conjecture import providers as _providers
    from hypothesis.internal.constants_ast import Constants
except ImportError:  # pragma: no cover - depends on the installed hypothesis
    _providers = None

DTYPES = (torch.float32, torch.float64)  # shrinks towards the first

settings = _settings(
    derandomize=True,  # the same examples on every run and every machine: a grade never changes between runs
    database=None,  # nothing written to or replayed from .hypothesis/
    deadline=None,  # a sandbox round trip can be slow on a loaded machine; the question's time limit still applies
    max_examples=25,
    print_blob=False,  # no "@reproduce_failure(...)" note
    report_multiple_bugs=False,  # one failure, the shrunk one, never several grouped
    phases=(Phase.explicit, Phase.generate, Phase.shrink),  # no explain phase: its comments would reach the message
    # too_slow: a check's calls are round trips to the sandboxed child, slow on a loaded machine.
    # function_scoped_fixture: a fixture shared by every example is what a suite wants (`student` is one child per
    # question, module-scoped; `note` would be function-scoped), and only hypothesis's pytest plugin would raise it.
    suppress_health_check=(HealthCheck.too_slow, HealthCheck.function_scoped_fixture),
)


def _no_local_constants() -> "Constants":
    """No constants: hypothesis would draw some integers from those written in every module loaded from outside
    site-packages (the kit's own in a checkout or a student build, none when it is pip-installed), so that a check's
    inputs changed with any edit of the kit and between installations; and reading them (~60 modules) cost question
    6's check about 0.2 s (issue 27)."""
    return Constants()


# hypothesis has no setting for it: its provider reads the module's function at each draw that wants a constant
if _providers is not None and hasattr(_providers, "_get_local_constants"):
    _providers._get_local_constants = _no_local_constants


def sizes(low: int = 1, high: int = 5) -> SearchStrategy[int]:
    """A dimension size from low to high (shrinks towards low)."""
    return st.integers(low, high)


def dtypes() -> SearchStrategy[torch.dtype]:
    """torch.float32 or torch.float64 (shrinks towards float32)."""
    return st.sampled_from(DTYPES)


def seeds() -> SearchStrategy[int]:
    """A seed for randn, below 10**6 as in the kit's draw() (shrinks towards 0)."""
    return st.integers(0, 10**6 - 1)


__all__ = ["DTYPES", "dtypes", "seeds", "settings", "sizes"]
