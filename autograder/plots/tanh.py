"""Question 7: the weights of several decoder states over the same source, with and without tanh."""
import numpy as np
import torch

from reference import additive

from ..engine.inputs import randn
from ..engine.proxy import Student
from ..i18n import _, number_text
from ..suites.test_q06_additive import additive_args
from .grid import Heatmaps
from .values import table

S, T, D_S, D_H, D_A = 5, 6, 3, 4, 5  # decoder states, source positions, widths of s, h_j and the score layer
SEED = 7100


def spread(weights: np.ndarray) -> float:
    """How far apart the rows of a (S, T) table are: the largest difference within a column."""
    return float(np.max(weights.max(axis=0) - weights.min(axis=0)))


def tanh_removal(student: Student, label: str) -> Heatmaps:
    """weights_across_states (S, T) with and without tanh, the student's and the reference's, as a 2 x 2 grid."""
    args = additive_args(T, D_S, D_H, D_A, torch.float64, SEED)
    states = randn(S, D_S, seed=SEED + 10, dtype=torch.float64)  # (S, d_s): one decoder state per row
    inputs = (states, args["H"], args["W"], args["U"], args["v"], args["b"])
    rows = []
    for use_tanh in (True, False):
        got = student.weights_across_states(*inputs, use_tanh=use_tanh)
        yours = table(
            got,
            (S, T),
            _("weights_across_states(..., use_tanh={use_tanh}) for {S} states and T = {T}").format(
                use_tanh=use_tanh, S=S, T=T
            ),
        )
        rows.append([yours, additive.weights_across_states(*inputs, use_tanh=use_tanh).numpy()])
    panels = np.array(rows)  # (2, 2, S, T)
    title = _(
        "{S} decoder states attending over the same {T} source positions\nwithout tanh, the rows differ by up to "
        "{yours} in yours and {reference} in the reference"
    ).format(
        S=S, T=T, yours=number_text(spread(panels[1, 0]), ".2g"), reference=number_text(spread(panels[1, 1]), ".2g")
    )
    return Heatmaps(
        "q07_tanh_removal.png",
        title,
        panels,
        [_("with tanh"), _("without tanh")],
        [_("yours ({label})").format(label=label), _("reference")],
        (_("decoder state"), _("source position j")),
    )
