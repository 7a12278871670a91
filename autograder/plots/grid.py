"""Weight tables drawn as heatmaps in a grid: rows (heads, with or without tanh) by columns (yours, the reference's)."""
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle

from ..i18n import _, number_text

ANNOTATED_CELLS = 64  # tables with at most this many cells show their values in the cells
VALUE_POINTS = 9  # the size of the values written in the cells, as the axis labels
CELL_INCHES = 0.5  # the side of a cell of an annotated table: room for "0.25" at VALUE_POINTS (about 0.3 inch wide)
PANEL_INCHES = 2.5  # the least side of one table's panel


@dataclass(frozen=True)
class Heatmaps:
    """The tables to draw: panels[r, c] is the (Y, X) table in row r, column c of the grid."""

    name: str  # the PNG file's name
    title: str
    panels: np.ndarray  # (rows, cols, Y, X)
    row_labels: list[str]
    col_labels: list[str]
    axis_labels: tuple[str, str]  # (rows of a table, columns of a table): ("query i", "key j")
    diagonal: int | None = None  # offset of a diagonal to outline (-1: each position's previous one)
    losses: list[float] | None = None  # a training's loss at each step, drawn beside the tables (question 10)
    guessing: float | None = None  # the loss of a uniform guess, drawn as a dashed line across the losses

    def figure(self) -> Figure:
        """The grid as a matplotlib Figure (Agg canvas, no display): one heatmap per panel and one shared colour bar."""
        rows, cols, height, width = self.panels.shape
        side = (
            max(PANEL_INCHES, 0.6 + CELL_INCHES * max(height, width))
            if height * width <= ANNOTATED_CELLS
            else PANEL_INCHES
        )
        curve = 0 if self.losses is None else 1  # one more column, as tall as the grid, for the losses
        figure = Figure(figsize=(1.2 + (side + 0.3) * (cols + 1.4 * curve), 0.9 + side * rows), layout="constrained")
        FigureCanvasAgg(figure)
        finite = self.panels[np.isfinite(self.panels)]
        low, high = min(0.0, finite.min(initial=0.0)), max(1.0, finite.max(initial=1.0))
        grid = figure.add_gridspec(rows, cols + curve, width_ratios=[1.0] * cols + [1.4] * curve)
        axes = np.array([[figure.add_subplot(grid[r, c]) for c in range(cols)] for r in range(rows)])
        for r in range(rows):
            for c in range(cols):
                image = self._panel(axes[r, c], self.panels[r, c], low, high)
                axes[r, c].set_title(self.col_labels[c] if r == 0 else "", fontsize=9)
                axes[r, c].set_ylabel(f"{self.row_labels[r]}\n{self.axis_labels[0]}" if c == 0 else "", fontsize=9)
                axes[r, c].set_xlabel(self.axis_labels[1] if r == rows - 1 else "", fontsize=9)
        if self.losses is not None:
            self._losses(figure.add_subplot(grid[:, cols]))
        figure.colorbar(image, ax=axes, shrink=0.8, label=_("weight"))
        figure.suptitle(self.title, fontsize=10)
        return figure

    def _losses(self, ax: Axes) -> None:
        """The loss at each training step, and the uniform guess's loss dashed across: a training that fails shows
        here."""
        ax.plot(range(1, len(self.losses) + 1), self.losses, linewidth=1.0)
        if self.guessing is not None:
            ax.axhline(
                self.guessing,
                linestyle="--",
                color="grey",
                linewidth=0.8,
                label=_("guessing: {loss}").format(loss=number_text(self.guessing, ".2f")),
            )
            ax.legend(fontsize=8)
        ax.set_title(_("training loss"), fontsize=9)
        ax.set_xlabel(_("step"), fontsize=9)
        ax.tick_params(labelsize=8)

    def _panel(self, ax: Axes, table: np.ndarray, low: float, high: float) -> AxesImage:
        """Draw one (Y, X) table on ax, its values written in when it is small, the chosen diagonal outlined."""
        image = ax.imshow(table, vmin=low, vmax=high, cmap="viridis")
        height, width = table.shape
        ax.set_xticks(range(width))
        ax.set_yticks(range(height))
        ax.tick_params(labelsize=8)
        if table.size <= ANNOTATED_CELLS:
            for (i, j), value in np.ndenumerate(table):
                shade = (value - low) / (high - low) if np.isfinite(value) else 0.0
                ax.text(
                    j,
                    i,
                    number_text(value, ".2f"),
                    ha="center",
                    va="center",
                    fontsize=VALUE_POINTS,
                    color="black" if shade > 0.6 else "white",
                )
        if self.diagonal is not None:
            for i in range(height):
                j = i + self.diagonal
                if 0 <= j < width:
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=0.8))
        return image
