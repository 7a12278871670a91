"""Known mistakes of question 1: prefix averages and the causal mask."""
import torch
from torch import Tensor

from autograder.engine.mistakes import Bank, Mistake
from autograder.i18n import N_
from reference import masking


def _counts(x: Tensor, first: int) -> Tensor:
    """first, first + 1, ... down the time axis of x: (T, 1) in x's dtype."""
    return torch.arange(first, x.shape[-2] + first, dtype=x.dtype).unsqueeze(-1)


def _by_columns(x: Tensor) -> Tensor:
    """The lower-triangular ones divided by 1..T along the columns, times x: (..., T, d)."""
    steps = x.size(-2)
    return (torch.ones(steps, steps, dtype=x.dtype).tril() / torch.arange(1, steps + 1, dtype=x.dtype)) @ x


BANK = Bank(
    1,
    {"prefix_average": masking.prefix_average, "causal_mask": masking.causal_mask},
    (
        Mistake(
            "prefix_cumsum_dim0",
            N_(
                "the running sum runs over dim 0, which is the batch axis of a batched x; "
                "sum over the time axis, dim -2"
            ),
            1,
            {"prefix_average": lambda x: x.cumsum(dim=0) / _counts(x, 1)},
        ),
        Mistake(
            "prefix_off_by_one",
            N_("position i is divided by i, counting from 0, but its prefix holds i + 1 values"),
            1,
            {"prefix_average": lambda x: x.cumsum(dim=-2) / _counts(x, 0)},
        ),
        Mistake(
            "prefix_divide_by_T",
            N_("every prefix sum is divided by T, but the prefix ending at position i holds i + 1 values"),
            1,
            {"prefix_average": lambda x: x.cumsum(dim=-2) / x.shape[-2]},
        ),
        Mistake(
            "prefix_divide_by_column",
            N_(
                "the averaging matrix is divided column by column; row i should hold i + 1 equal "
                "weights (divide the rows)"
            ),
            1,
            {"prefix_average": _by_columns},
        ),
        Mistake(
            "mask_triu",
            N_("the mask keeps the upper triangle (triu), so each query sees the future instead of the past"),
            2,
            {"causal_mask": lambda T: torch.ones(T, T, dtype=torch.bool).triu()},
        ),
        Mistake(
            "mask_strict_lower",
            N_("the mask leaves out the diagonal, but a query may also see its own key (j <= i)"),
            2,
            {"causal_mask": lambda T: torch.ones(T, T, dtype=torch.bool).tril(diagonal=-1)},
        ),
        Mistake(
            "mask_inverted",
            N_(
                "the mask is True where a key is hidden; it should be True where query i may see key j (j <= i), "
                "and mask_scores fills where it is False"
            ),
            2,
            {"causal_mask": lambda T: torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)},
        ),
    ),
)
