"""The hidden suites' hypothesis inputs (engine/strategies.py) are the same on every run and every installation."""
import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import given
from hypothesis import settings as _settings

from autograder.engine.strategies import dtypes, seeds, settings, sizes


def _drawn() -> list[tuple]:
    """Examples drawn as question 6's additive_scores check draws them (its strategies, the suites' settings), in
    order."""
    seen = []

    @_settings(settings, max_examples=400)  # more draws than a suite's 25: some of them draw from the constants
    @given(T=sizes(1, 6), d_s=sizes(), d_h=sizes(), d_a=sizes(), dtype=dtypes(), seed=seeds())
    def record(T: int, d_s: int, d_h: int, d_a: int, dtype: torch.dtype, seed: int) -> None:
        seen.append((T, d_s, d_h, d_a, dtype, seed))

    record()
    return seen


def test_the_examples_drawn_do_not_depend_on_the_source_of_the_modules_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hypothesis draws some integers from the constants written in the source of every module loaded from outside
    site-packages (the kit's own, in a checkout or a student build; none when the kit is pip-installed): a check's
    inputs would then change with any edit of the kit and from one installation to another, and its reading of ~60
    modules cost `check` of question 6 about 0.2 s. The suites' draws ignore them: loading a module full of
    in-range constants draws the same examples."""
    before = _drawn()
    probe = tmp_path / "kit_constants_probe.py"
    probe.write_text("SIZES = (2, 3, 4, 5)\nSEEDS = (" + ", ".join(str(7919 * n) for n in range(1, 120)) + ")\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module("kit_constants_probe")
        assert _drawn() == before
    finally:
        sys.modules.pop("kit_constants_probe", None)


def test_a_hypothesis_without_source_constants_still_loads_the_settings() -> None:
    """pyproject asks only hypothesis>=6: one older than its source-constants feature (no
    `hypothesis.internal.constants_ast`) must still give the suites their settings, with nothing to turn off."""
    script = (
        "import sys, hypothesis.internal.conjecture.providers\n"
        "sys.modules['hypothesis.internal.constants_ast'] = None  # as if this hypothesis had no such module\n"
        "import autograder.engine.strategies as s\n"
        "assert s._providers is None and s.settings.derandomize, s._providers\n"
        "print('loaded')"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "loaded", done.stderr[-2000:]
