"""Known mistakes of question 4: splitting the width into heads and merging them back."""
from torch import Tensor

from autograder.engine.mistakes import Bank, Mistake
from autograder.i18n import N_
from reference import dot_product


def _no_transpose(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) reshaped straight to (B, H, T, D // H)."""
    batch, steps, width = x.shape
    return x.reshape(batch, n_heads, steps, width // n_heads)


def _interleaved(x: Tensor, n_heads: int) -> Tensor:
    """The width cut as (d, H), head h taking every H-th column: (B, H, T, d)."""
    batch, steps, width = x.shape
    return x.reshape(batch, steps, width // n_heads, n_heads).permute(0, 3, 1, 2)


def _transpose_first(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) transposed to (B, D, T), then reshaped to (B, H, T, d)."""
    batch, steps, width = x.shape
    return x.transpose(1, 2).reshape(batch, n_heads, steps, width // n_heads)


def _merge(x: Tensor, order: tuple[int, int, int, int]) -> Tensor:
    """(B, H, T, d) permuted to order, then reshaped to (B, T, H * d)."""
    batch, heads, steps, width = x.shape
    return x.permute(order).reshape(batch, steps, heads * width)


BANK = Bank(
    4,
    {"split_heads": dot_product.split_heads, "combine_heads": dot_product.combine_heads},
    (
        Mistake(
            "split_no_transpose",
            N_(
                "the width is reshaped straight to (B, H, T, d), which mixes positions into heads; "
                "split the last axis first, then move H before T"
            ),
            1,
            {"split_heads": _no_transpose},
        ),
        Mistake(
            "split_interleaved",
            N_(
                "the width is cut as (d, H) instead of (H, d), so head h gets every H-th column "
                "instead of a block of d neighbours"
            ),
            1,
            {"split_heads": _interleaved},
        ),
        Mistake(
            "split_transpose_first",
            N_(
                "T and D are swapped before the reshape, which scrambles positions and columns; "
                "split the last axis first"
            ),
            1,
            {"split_heads": _transpose_first},
        ),
        Mistake(
            "combine_no_transpose",
            N_("the heads are merged by a plain reshape, without moving H back after T"),
            2,
            {"combine_heads": lambda x: _merge(x, (0, 1, 2, 3))},
        ),
        Mistake(
            "combine_wrong_permute",
            N_(
                "the axes are put in the order (B, T, d, H) before merging, which interleaves the heads' "
                "columns; the order is (B, T, H, d)"
            ),
            2,
            {"combine_heads": lambda x: _merge(x, (0, 2, 3, 1))},
        ),
        Mistake(
            "combine_flatten_from1",
            N_("every axis after the batch is flattened; merge only the last two, to (B, T, H * d)"),
            2,
            {"combine_heads": lambda x: x.transpose(1, 2).flatten(1)},
        ),
    ),
)
