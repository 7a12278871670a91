"""Known mistakes of question 3: attention by hand and single_head."""
import math
from typing import Callable

import torch
from torch import Tensor

from autograder.engine.mistakes import Bank, Mistake
from autograder.i18n import N_
from reference import dot_product


def _attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True, *, divide: float | None = None,
               visible: Callable[[int], Tensor] = lambda T: torch.ones(T, T, dtype=torch.bool).tril(), dim: int = -1,
               mask_after: bool = False) -> tuple[Tensor, Tensor]:
    """Attention with one step changed by a keyword: (out (..., Tq, dv), weights (..., Tq, Tk))."""
    scores = q @ k.transpose(-2, -1) / (math.sqrt(q.shape[-1]) if divide is None else divide)  # (..., Tq, Tk)
    hidden = ~visible(q.shape[-2]) if causal else torch.zeros(scores.shape[-2:], dtype=torch.bool)
    weights = torch.softmax(scores if mask_after else scores.masked_fill(hidden, float("-inf")), dim=dim)
    weights = weights.masked_fill(hidden, 0.0) if mask_after else weights
    return torch.matmul(weights, v), weights


def _scores_as_weights(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """The right output, with the masked scores before the softmax as the weights."""
    scores = dot_product.scaled_scores(q, k)
    if causal:
        scores = scores.masked_fill(~torch.ones(scores.shape[-2:], dtype=torch.bool).tril(), float("-inf"))
    return dot_product.attention(q, k, v, causal)[0], scores


def _times_q(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """The right weights, multiplying the queries instead of the values."""
    weights = dot_product.attention(q, k, v, causal)[1]
    return weights @ q, weights


def _extra_axis(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """The right answer, with a leading axis of size 1 added to unbatched results when causal (a (1, T, T) mask)."""
    out, weights = dot_product.attention(q, k, v, causal)
    return (out[None], weights[None]) if causal and q.dim() == 2 else (out, weights)


def _single(attention: Callable[..., tuple[Tensor, Tensor]]) -> Callable[..., Tensor]:
    """single_head built on a (wrong) attention: x (T, D), W (D, d) -> (T, d)."""
    return lambda x, W_q, W_k, W_v: attention(x @ W_q, x @ W_k, x @ W_v)[0]


def _both(attention: Callable[..., tuple[Tensor, Tensor]]) -> dict[str, Callable[..., object]]:
    """A wrong attention, and single_head built on it."""
    return {"attention": attention, "single_head": _single(attention)}


BANK = Bank(
    3,
    {"attention": dot_product.attention, "single_head": dot_product.single_head},
    (
        Mistake(
            "softmax_query_axis",
            N_(
                "the weights' columns sum to 1, not their rows: the softmax runs over the query axis "
                "(dim -2) instead of the keys"
            ),
            2,
            _both(lambda q, k, v, causal=True: _attention(q, k, v, causal, dim=-2)),
        ),
        Mistake(
            "mask_after_softmax",
            N_(
                "the future is zeroed after the softmax, so the rows of weights no longer sum to 1; "
                "mask the scores before it"
            ),
            1,
            _both(lambda q, k, v, causal=True: _attention(q, k, v, causal, mask_after=True)),
        ),
        Mistake(
            "no_scaling",
            N_("the scores are not divided by sqrt(d)"),
            2,
            _both(lambda q, k, v, causal=True: _attention(q, k, v, causal, divide=1.0)),
            hint_of=2,
        ),
        Mistake(
            "scale_by_d",
            N_("the scores are divided by d instead of sqrt(d)"),
            2,
            _both(lambda q, k, v, causal=True: _attention(q, k, v, causal, divide=q.shape[-1])),
            hint_of=2,
        ),
        Mistake(
            "scale_by_dv",
            N_("the scores are divided by the square root of the values' width dv, not of the queries' width d"),
            2,
            _both(lambda q, k, v, causal=True: _attention(q, k, v, causal, divide=math.sqrt(v.shape[-1]))),
            hint_of=2,
        ),
        Mistake(
            "mask_diagonal_plus1",
            N_("the mask also shows each query the next key (tril with diagonal=1)"),
            2,
            _both(
                lambda q, k, v, causal=True: _attention(
                    q, k, v, causal, visible=lambda T: torch.ones(T, T, dtype=torch.bool).tril(diagonal=1)
                )
            ),
            hint_of=1,
        ),
        Mistake(
            "mask_wrong_way",
            N_("the mask hides the past and shows the future: the keys a query may see are j <= i"),
            2,
            _both(
                lambda q, k, v, causal=True: _attention(
                    q, k, v, causal, visible=lambda T: torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)
                )
            ),
            hint_of=1,
        ),
        Mistake(
            "mask_strict_lower",
            N_("the mask also hides the diagonal: a query may see its own key too (j <= i, tril)"),
            2,
            _both(
                lambda q, k, v, causal=True: _attention(
                    q, k, v, causal, visible=lambda T: torch.ones(T, T, dtype=torch.bool).tril(diagonal=-1)
                )
            ),
            hint_of=1,
        ),
        Mistake(
            "returns_scores_as_weights",
            N_("the weights returned are the scores before the softmax"),
            1,
            {"attention": _scores_as_weights},
        ),
        Mistake(
            "weights_times_q",
            N_("the weights multiply the queries; the output is the weighted sum of the values"),
            1,
            _both(_times_q),
        ),
        Mistake(
            "mask_extra_axis",
            N_("a (1, T, T) mask adds a batch axis to unbatched inputs; build a (T, T) mask sized from the scores"),
            3,
            _both(_extra_axis),
        ),
        Mistake(
            "k_v_swapped",
            N_("the keys and the values are swapped: the keys come from W_k, the values from W_v"),
            3,
            {"single_head": lambda x, W_q, W_k, W_v: dot_product.attention(x @ W_q, x @ W_v, x @ W_k)[0]},
        ),
        Mistake(
            "single_head_not_causal",
            N_("single_head attends without the causal mask, so each position reads the future"),
            1,
            {"single_head": lambda x, W_q, W_k, W_v: dot_product.attention(x @ W_q, x @ W_k, x @ W_v, causal=False)[0]},
        ),
        Mistake(
            "single_head_returns_tuple",
            N_("single_head returns attention's whole (output, weights) pair; return the output alone"),
            1,
            {"single_head": lambda x, W_q, W_k, W_v: dot_product.attention(x @ W_q, x @ W_k, x @ W_v)},
        ),
    ),
)
