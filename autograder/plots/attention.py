"""Questions 3 and 5: the student's attention weights beside the reference's on the same seeded input."""
import numpy as np
import torch

from reference import dot_product

from ..engine.inputs import randn
from ..engine.proxy import Student
from ..i18n import N_, _, number_text
from ..suites.test_q05_multihead import _model, _weights
from .grid import Heatmaps
from .values import pair, table

T, D, DV = 6, 4, 3  # question 3: q, k (T, D), v (T, DV)
D_MODEL, HEADS, MAX_LEN = 8, 4, 16  # question 5: x (1, T, D_MODEL)
SEED = 3100
AXES = (N_("query i"), N_("key j"))  # translated where drawn


def _title(yours: np.ndarray, expected: np.ndarray) -> str:
    """The figure's title: the input, and how far the student's weights are from the reference's."""
    gap = float(np.abs(yours - expected).max())
    found = (
        _("largest difference between yours and the reference: {gap}").format(gap=number_text(gap, ".2g"))
        if np.isfinite(gap)
        else _("yours hold NaN or infinite values")
    )
    return _("Causal attention weights on one seeded input (T = {T})").format(T=T) + f"\n{found}"


def single_head(student: Student, label: str) -> Heatmaps:
    """Question 3: attention(q, k, v) weights (T, T), the student's and the reference's, side by side."""
    q, k, v = (randn(T, width, seed=SEED + i) for i, width in enumerate((D, D, DV)))
    _output, weights = pair(student.attention(q, k, v, causal=True), "attention(q, k, v)", _("(output, weights)"))
    expected = dot_product.attention(q, k, v, causal=True)[1].double().numpy()  # (T, T)
    yours = table(
        weights, (T, T), _("the weights of attention(q, k, v) for q, k of shape {shape}").format(shape=(T, D))
    )
    return Heatmaps(
        "q03_attention_weights.png",
        _title(yours, expected),
        np.stack([yours, expected])[None],
        [_("one head")],
        [_("yours ({label})").format(label=label), _("reference")],
        (_(AXES[0]), _(AXES[1])),
    )


def heads(student: Student, label: str) -> Heatmaps:
    """Question 5: MultiHeadSelfAttention's weights head by head, (HEADS, T, T) each, the student's and the
    reference's."""
    x = randn(1, T, D_MODEL, seed=SEED + 5)
    model = _model(student, D_MODEL, HEADS, MAX_LEN, SEED + 6, torch.float32)
    _output, weights = pair(model(x, return_weights=True), "forward(x, return_weights=True)", _("(output, weights)"))
    # (H, T, T)
    expected = dot_product.multihead(_weights(D_MODEL, SEED + 6, torch.float32), x, HEADS)[1][0].double().numpy()
    what = _("the weights of MultiHeadSelfAttention({d_model}, {heads}) on x of shape {shape}").format(
        d_model=D_MODEL, heads=HEADS, shape=(1, T, D_MODEL)
    )
    yours = table(weights, (1, HEADS, T, T), what)[0]  # (H, T, T)
    return Heatmaps(
        "q05_head_weights.png",
        _title(yours, expected),
        np.stack([yours, expected], axis=1),
        [_("head {h}").format(h=h) for h in range(HEADS)],
        [_("yours ({label})").format(label=label), _("reference")],
        (_(AXES[0]), _(AXES[1])),
    )
