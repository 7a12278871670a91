"""Questions 3 and 5: the student's attention weights beside the reference's on the same seeded input."""
import numpy as np
import torch

from reference import dot_product

from ..engine.inputs import randn
from ..engine.proxy import Student
from ..suites.test_q05_multihead import _model, _weights
from .grid import Heatmaps
from .values import pair, table

T, D, DV = 6, 4, 3  # question 3: q, k (T, D), v (T, DV)
D_MODEL, HEADS, MAX_LEN = 8, 4, 16  # question 5: x (1, T, D_MODEL)
SEED = 3100
AXES = ("query i", "key j")


def _title(yours: np.ndarray, expected: np.ndarray) -> str:
    """The figure's title: the input, and how far the student's weights are from the reference's."""
    gap = float(np.abs(yours - expected).max())
    found = f"largest difference between yours and the reference: {gap:.2g}" if np.isfinite(gap) else "yours hold NaN or infinite values"
    return f"Causal attention weights on one seeded input (T = {T})\n{found}"


def single_head(student: Student, label: str) -> Heatmaps:
    """Question 3: attention(q, k, v) weights (T, T), the student's and the reference's, side by side."""
    q, k, v = (randn(T, width, seed=SEED + i) for i, width in enumerate((D, D, DV)))
    _, weights = pair(student.attention(q, k, v, causal=True), "attention(q, k, v)", "(output, weights)")
    expected = dot_product.attention(q, k, v, causal=True)[1].double().numpy()  # (T, T)
    yours = table(weights, (T, T), f"the weights of attention(q, k, v) for q, k of shape {(T, D)}")
    return Heatmaps("q03_attention_weights.png", _title(yours, expected), np.stack([yours, expected])[None],
                    ["one head"], [f"yours ({label})", "reference"], AXES)


def heads(student: Student, label: str) -> Heatmaps:
    """Question 5: MultiHeadSelfAttention's weights head by head, (HEADS, T, T) each, the student's and the reference's."""
    x = randn(1, T, D_MODEL, seed=SEED + 5)
    model = _model(student, D_MODEL, HEADS, MAX_LEN, SEED + 6, torch.float32)
    _, weights = pair(model(x, return_weights=True), "forward(x, return_weights=True)", "(output, weights)")
    expected = dot_product.multihead(_weights(D_MODEL, SEED + 6, torch.float32), x, HEADS)[1][0].double().numpy()  # (H, T, T)
    what = f"the weights of MultiHeadSelfAttention({D_MODEL}, {HEADS}) on x of shape {(1, T, D_MODEL)}"
    yours = table(weights, (1, HEADS, T, T), what)[0]  # (H, T, T)
    return Heatmaps("q05_head_weights.png", _title(yours, expected), np.stack([yours, expected], axis=1),
                    [f"head {h}" for h in range(HEADS)], [f"yours ({label})", "reference"], AXES)
