"""Question 9: the student's time_attention on the real clock against T, log-log, with the fitted slope and T^2."""
import math
from dataclasses import dataclass

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from reference import cost

from ..engine.proxy import CheckFailure, Student
from ..i18n import _, number_text
from ..suites.test_q09_timing import WALL


@dataclass(frozen=True)
class Timings:
    """Real timings and the slope of the least-squares line through them in log-log space (seconds ~ T^slope)."""

    name: str  # the PNG file's name
    label: str  # whose timings: `exercises/`
    Ts: np.ndarray  # (n,) sequence lengths
    seconds: np.ndarray  # (n,) the student's figure for each
    slope: float

    def line(self, power: float) -> np.ndarray:
        """(n,) seconds along T^power through the timings' centre in log-log space, where the least-squares line
        passes."""
        log_T = np.log(self.Ts)
        return np.exp(np.log(self.seconds).mean() + power * (log_T - log_T.mean()))

    def figure(self) -> Figure:
        """One log-log axes: the timings as points, the fitted line, and a T^2 line for comparison (Agg canvas)."""
        figure = Figure(figsize=(6.4, 4.4), layout="constrained")
        FigureCanvasAgg(figure)
        ax = figure.subplots()
        ax.loglog(
            self.Ts, self.seconds, "o", color="black", label=_("time_attention of {label}").format(label=self.label)
        )
        ax.loglog(
            self.Ts,
            self.line(self.slope),
            "-",
            color="tab:blue",
            label=_("least-squares fit: T^{slope}").format(slope=number_text(self.slope, ".2f")),
        )
        ax.loglog(self.Ts, self.line(2.0), ":", color="tab:red", label=_("T^2, for comparison"))
        ax.xaxis.set_minor_locator(NullLocator())  # the measured sizes are the ticks, as they were measured
        ax.set_xticks(self.Ts, [f"{T:g}" for T in self.Ts])
        ax.set_xlabel(_("sequence length T"))
        ax.set_ylabel(_("seconds per forward"))
        ax.set_title(
            _("Real timings on this machine (not graded): time grows like T^{slope}").format(
                slope=number_text(self.slope, ".2f")
            ),
            fontsize=10,
        )
        ax.legend()
        return figure


def fitted(Ts: list[int], seconds: list[float], label: str) -> Timings:
    """Timings (n,) with the slope the reference's fit_exponent finds in them."""
    return Timings(
        "q09_timings.png",
        label,
        np.array(Ts, dtype=float),
        np.array(seconds, dtype=float),
        cost.fit_exponent(Ts, seconds),
    )


def real_timings(student: Student, label: str) -> Timings:
    """Question 9: the student's time_attention on the real clock for growing T (the ungraded note's sizes and
    budget)."""
    measured = student.wall_times("time_attention", WALL["Ts"], WALL["d"], WALL["budget"])
    try:
        Ts, seconds = [int(T) for T in measured["Ts"]], [float(s) for s in measured["seconds"]]
        readable = len(Ts) == len(seconds)
    except (TypeError, KeyError, ValueError):
        readable = False
    if not readable:
        raise CheckFailure(_("sent back timings the grader cannot read"))
    if len(Ts) < 2:
        raise CheckFailure(
            _("time_attention took more than {budget} s for T = {T}: too slow for a second size").format(
                budget=number_text(WALL['budget']), T=WALL['Ts'][0]
            )
        )
    if not all(math.isfinite(s) and s > 0 for s in seconds):
        raise CheckFailure(
            _("time_attention returned {seconds}; a log-log plot needs positive seconds").format(
                seconds=", ".join(f"{s:g}" for s in seconds)
            )
        )
    return fitted(Ts, seconds, label)
