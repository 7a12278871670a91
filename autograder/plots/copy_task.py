"""Question 10: the heads of the student's trained copy-task model on one sample sequence, the previous position
outlined, beside the loss of each training step."""
import math

import numpy as np

from ..engine.proxy import Student
from ..i18n import _, number_text
from ..suites.test_q10_train import HEADS, TRAIN_KWARGS, VOCAB, T, _trained_model, tokens
from .grid import Heatmaps
from .values import pair, table

SAMPLE_SEED = 1010


def previous_share(weights: np.ndarray) -> np.ndarray:
    """(H,) each head's mean weight on the previous position, from weights (H, T, T)."""
    return np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).mean(axis=-1)


def trained_heads(student: Student, label: str) -> Heatmaps:
    """train_copy_task with the suite's settings, then each head's weights (T, T) on a seeded sample of T tokens."""
    model, losses = _trained_model(student, TRAIN_KWARGS)[:2]
    model.eval()
    sample = tokens(1, T, SAMPLE_SEED)  # (1, T)
    with student.no_grad():
        _logits, weights = pair(
            model(sample, return_weights=True),
            _("the trained model's forward(x, return_weights=True)"),
            _("(logits, weights)"),
        )
    # (H, T, T)
    found = table(
        weights, (1, HEADS, T, T), _("the trained model's weights for x of shape {shape}").format(shape=(1, T))
    )[0]
    shares = previous_share(found)
    settings = ", ".join(f"{k}={v}" for k, v in TRAIN_KWARGS.items())
    title = _(
        "The heads of train_copy_task({settings}) of {label}\non {T} sample tokens; outlined: each position's previous "
        "one"
    ).format(settings=settings, label=label, T=T)
    return Heatmaps(
        "q10_trained_heads.png",
        title,
        found[None],
        [_("trained model")],
        [
            _("head {h}: {share} on the previous").format(h=h, share=number_text(share, ".2f"))
            for h, share in enumerate(shares)
        ],
        (_("query i"), _("key j")),
        diagonal=-1,
        losses=_finite_floats(losses),
        guessing=math.log(VOCAB),
    )


def _finite_floats(losses: object) -> list[float] | None:
    """The losses train_copy_task returned as a list of numbers (NaN and infinities kept out of the curve), None when
    they are not a list of numbers."""
    if not isinstance(losses, (list, tuple)) or not all(type(v) in (int, float) for v in losses):
        return None
    return [float(v) if math.isfinite(v) else float("nan") for v in losses]
