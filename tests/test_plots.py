"""`plot N`: each picture is gathered from the right values (the student's from the sandbox, the reference's beside
them), drawn from exactly those values, and written as a PNG that shows something; bad input and failing code get
one line."""
import shutil
import sys
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import pytest
from matplotlib.image import imread

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from autograder.cli.main import main
from autograder.cli.report import render
from autograder.course.manifest import load_course
from autograder.course.results import FAILED, NOT_ATTEMPTED, CaseResult, QuestionResult, Report
from autograder.engine.proxy import CheckFailure
from autograder.i18n import set_language
from autograder.plots import PICTURES
from autograder.plots.copy_task import previous_share
from autograder.plots.grid import Heatmaps
from autograder.plots.make import GATHER, gather, write
from autograder.plots.tanh import spread
from autograder.plots.timing import Timings, fitted
from autograder.suites.test_q10_train import TRAIN_KWARGS
from autograder.suites.test_q09_timing import WALL
from reference import cost

COURSE = load_course(ROOT)
WRONG = ROOT / "tests" / "corpus" / "wrong"
PLANTED = {  # solution modules with a planted change
    "cubic": lambda source: (
        source + "\n\ndef time_attention(T: int, d: int = 64, repeats: int = 5) -> float:\n    return 1e-10 * T**3\n"
    ),
    "untrained": lambda source: source.replace("range(epochs * steps_per_epoch)", "range(0)"),
}


def _package(folder: Path, module: str, source: str) -> Path:
    """A copy of solutions/ in folder/exercises with the exercise module `module` (q03_attention) replaced by source."""
    package = folder / "exercises"
    shutil.copytree(ROOT / "solutions", package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / f"{module}.py").write_text(source)
    return package


@pytest.fixture(scope="module")
def picture(
    tmp_path_factory: pytest.TempPathFactory, session_sandbox: object
) -> Iterator[Callable[[str, int], Heatmaps | Timings]]:
    """picture(package, N): question N's picture data for `solutions`, `exercises` or a corpus file's name (cached),
    gathered in the session's sandbox."""
    sandbox, cache = session_sandbox, {}

    def get(package: str, number: int) -> Heatmaps | Timings:
        if (package, number) not in cache:
            module = COURSE.question(number).module
            if package in ("solutions", "exercises"):
                folder = ROOT / package
            elif package in PLANTED:
                folder = _package(
                    tmp_path_factory.mktemp(package),
                    module,
                    PLANTED[package]((ROOT / "solutions" / f"{module}.py").read_text()),
                )
            else:
                folder = _package(tmp_path_factory.mktemp(package), module, (WRONG / f"{package}.py").read_text())
            cache[package, number] = gather(COURSE, folder, number, sandbox)
        return cache[package, number]

    yield get


def test_every_picture_has_a_gatherer() -> None:
    assert set(GATHER) == set(PICTURES) == {3, 5, 7, 9, 10}


def test_q3_weights_are_the_students_beside_the_references(picture: Callable) -> None:
    right, wrong = picture("solutions", 3), picture("q03_softmax_dim_minus2", 3)
    assert right.panels.shape == wrong.panels.shape == (1, 2, 6, 6)
    np.testing.assert_allclose(right.panels[0, 0], right.panels[0, 1], atol=1e-6)
    np.testing.assert_allclose(right.panels[0, 0].sum(axis=1), 1, atol=1e-6)  # rows of the weights sum to 1
    # the reference's side does not depend on the student
    np.testing.assert_array_equal(wrong.panels[0, 1], right.panels[0, 1])
    np.testing.assert_allclose(wrong.panels[0, 0].sum(axis=0), 1, atol=1e-6)  # the bug: columns sum to 1 instead
    assert np.abs(wrong.panels[0, 0] - wrong.panels[0, 1]).max() > 0.1
    assert "largest difference between yours and the reference: 0." in wrong.title


def test_q5_weights_head_by_head(picture: Callable) -> None:
    right, wrong = picture("solutions", 5), picture("q05_softmax_over_queries", 5)
    assert right.panels.shape == (4, 2, 6, 6) and right.row_labels == [f"head {h}" for h in range(4)]
    np.testing.assert_allclose(right.panels[:, 0], right.panels[:, 1], atol=1e-6)
    np.testing.assert_allclose(right.panels[:, 0].sum(axis=-1), 1, atol=1e-6)
    assert np.ptp(right.panels[:, 0], axis=0).max() > 0.1  # the heads are not copies of one another
    for head in range(4):
        assert np.abs(wrong.panels[head, 0] - wrong.panels[head, 1]).max() > 0.05, f"head {head} of the bug looks right"


def test_q7_without_tanh_every_state_gets_the_same_row(picture: Callable) -> None:
    right, wrong = picture("solutions", 7), picture("q07_ignores_use_tanh", 7)
    assert right.panels.shape == (2, 2, 5, 6) and right.row_labels == ["with tanh", "without tanh"]
    np.testing.assert_allclose(right.panels[:, 0], right.panels[:, 1], atol=1e-12)
    assert spread(right.panels[1, 0]) < 1e-12 and spread(right.panels[1, 1]) < 1e-12
    assert spread(right.panels[0, 0]) > 0.1
    assert spread(wrong.panels[1, 0]) > 0.1  # the bug keeps tanh: its rows still differ, as the title says
    np.testing.assert_array_equal(wrong.panels[1, 0], wrong.panels[0, 0])
    assert f"differ by up to {spread(wrong.panels[1, 0]):.2g} in yours" in wrong.title


def test_q9_plots_the_students_timings_and_their_fitted_slope(picture: Callable) -> None:
    timings = picture("cubic", 9)  # time_attention returns 1e-10 T^3: every size fits in the budget
    np.testing.assert_array_equal(timings.Ts, WALL["Ts"])
    np.testing.assert_allclose(timings.seconds, 1e-10 * np.array(WALL["Ts"], dtype=float) ** 3)
    assert timings.slope == pytest.approx(3.0)
    # the fitted line goes through exact power-law points
    np.testing.assert_allclose(timings.line(timings.slope), timings.seconds)
    quadratic = timings.line(2.0)
    assert np.log(quadratic[-1] / quadratic[0]) / np.log(timings.Ts[-1] / timings.Ts[0]) == pytest.approx(2.0)


def test_fitted_slope_is_the_least_squares_one() -> None:
    Ts, seconds = [64, 128, 256, 512], [3e-5, 2.2e-4, 4.1e-4, 2.6e-3]
    timings = fitted(Ts, seconds, "exercises/")
    assert timings.slope == pytest.approx(cost.fit_exponent(Ts, seconds))
    line = np.log(timings.line(timings.slope))
    residuals = np.log(seconds) - line
    # the normal equations of least squares
    assert abs(residuals.sum()) < 1e-9 and abs((residuals * np.log(Ts)).sum()) < 1e-9


def test_q10_trained_heads_show_the_previous_token(picture: Callable) -> None:
    trained, untrained = picture("solutions", 10), picture("untrained", 10)
    assert trained.panels.shape == (1, 4, 12, 12) and trained.diagonal == -1
    weights = trained.panels[0]  # (H, T, T)
    np.testing.assert_allclose(weights.sum(axis=-1), 1, atol=1e-5)
    assert np.abs(np.triu(weights, k=1)).max() == 0  # causal
    shares = previous_share(weights)
    assert shares.max() > 0.5
    assert trained.col_labels == [f"head {h}: {share:.2f} on the previous" for h, share in enumerate(shares)]
    assert previous_share(untrained.panels[0]).max() < 0.5  # no training step: no diagonal


def test_failing_code_cannot_be_drawn(picture: Callable) -> None:
    with pytest.raises(CheckFailure, match="`attention` still raises NotImplementedError"):
        picture("exercises", 3)


@pytest.mark.parametrize(
    "package, number", [("solutions", 3), ("solutions", 5), ("solutions", 7), ("cubic", 9), ("solutions", 10)]
)
def test_figure_is_drawn_from_the_data_and_saved(picture: Callable, tmp_path: Path, package: str, number: int) -> None:
    data = picture(package, number)
    figure = data.figure()
    if isinstance(data, Heatmaps):
        rows, cols = data.panels.shape[:2]
        curve = int(data.losses is not None)  # question 10: its losses beside the heads
        assert len(figure.axes) == rows * cols + curve + 1  # the heatmaps, the losses, one colour bar
        if curve:
            (line,) = figure.axes[rows * cols].lines[:1]
            np.testing.assert_array_equal(line.get_ydata(), data.losses)
            steps = TRAIN_KWARGS["epochs"] * TRAIN_KWARGS["steps_per_epoch"]
            assert len(data.losses) == steps and data.losses[-1] < 1.0 < data.guessing
        for index, ax in enumerate(figure.axes[: rows * cols]):
            np.testing.assert_array_equal(ax.images[0].get_array(), data.panels[index // cols, index % cols])
        assert [ax.get_title() for ax in figure.axes[:cols]] == data.col_labels
        assert len(figure.axes[0].patches) == (data.panels.shape[-1] - 1 if data.diagonal == -1 else 0)
    else:
        (ax,) = figure.axes
        points, fit, quadratic = ax.lines
        np.testing.assert_array_equal(points.get_xdata(), data.Ts)
        np.testing.assert_array_equal(points.get_ydata(), data.seconds)
        np.testing.assert_allclose(fit.get_ydata(), data.line(data.slope))
        np.testing.assert_allclose(quadratic.get_ydata(), data.line(2.0))
        assert ax.get_xscale() == ax.get_yscale() == "log"
        np.testing.assert_array_equal(ax.get_xticks(), data.Ts)  # the ticks are the sizes measured, labelled as such
        assert [label.get_text() for label in ax.get_xticklabels()] == [f"{T:g}" for T in data.Ts] and len(
            ax.get_xticks(minor=True)
        ) == 0
    image = imread(write(data, tmp_path / "out"))
    assert (tmp_path / "out" / data.name).exists() and image.ndim == 3 and image.shape[0] > 300 and image.shape[1] > 500
    ink = (image[..., :3] < 0.9).any(axis=-1).mean()  # share of pixels that are not white
    assert 0.05 < ink < 0.95 and image[..., :3].std() > 0.1


@pytest.mark.parametrize("number", [3, 5, 7])
def test_the_values_in_the_cells_are_readable_and_fit_their_cells(picture: Callable, number: int) -> None:
    data = picture("solutions", number)
    set_language("fr")
    try:
        figure = data.figure()  # the French figure: decimal commas, which are as wide as points
    finally:
        set_language(None)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    heatmaps = figure.axes[:-1]
    for ax, table in zip(heatmaps, data.panels.reshape(-1, *data.panels.shape[2:])):
        assert [text.get_text() for text in ax.texts] == [f"{value:.2f}".replace(".", ",") for value in table.ravel()]
        (x0, y0), (x1, y1) = ax.transData.transform([(0, 0), (1, 1)])  # one cell, in pixels
        for text in ax.texts:
            box = text.get_window_extent(renderer)
            assert text.get_fontsize() >= 8 and box.width < 0.85 * abs(x1 - x0) and box.height < 0.85 * abs(y1 - y0), (
                text.get_text()
            )
        labels = ax.get_xticklabels() + ax.get_yticklabels()
        # as large as the ticks
        assert all(text.get_fontsize() >= min(label.get_fontsize() for label in labels) for text in ax.texts)


def test_cli_prints_the_path_of_the_png(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, shared_sandbox: object
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["plot", "3", "--solutions", "--out", str(tmp_path)]) == 0  # in this process, to save a start of torch
    out, err = capsys.readouterr()
    assert out.splitlines() == [str(tmp_path / "q03_attention_weights.png")] and err == ""
    assert imread(out.strip()).shape[-1] == 4


@pytest.mark.parametrize(
    "args, code, needle",
    [
        (["plot", "4"], 2, "question '4' has no picture: questions 3, 5, 7, 9, 10 have one"),
        (["plot", "3"], 1, "cannot draw question 3: not attempted: `attention` still raises"),
    ],
)
def test_cli_says_in_one_line_why_there_is_no_picture(
    args: list[str],
    code: int,
    needle: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
    shared_sandbox: object,
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(args) == code  # plot 3 draws the stubs in exercises/
    out, err = capsys.readouterr()
    assert out == "" and needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_check_report_points_to_the_picture() -> None:
    results = [
        QuestionResult(number, COURSE.question(number).title, 8, status, [CaseResult("a check", False, "differs")])
        for number, status in ((3, FAILED), (4, FAILED), (5, NOT_ATTEMPTED))
    ]
    text = " ".join(render(Report(results), COURSE, "exercises/").split())
    assert "picture: `python -m autograder plot 3` draws your attention weights beside the reference's" in text
    assert "plot 4" not in text and "plot 5" not in text
