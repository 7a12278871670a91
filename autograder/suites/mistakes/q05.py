"""Known mistakes of question 5: MultiHeadSelfAttention's forward, replayed with the weights the grader loaded."""
import torch
import torch.nn.functional as F
from torch import Tensor

from autograder.engine.mistakes import Bank, Built, Mistake
from autograder.i18n import N_
from reference import dot_product
from reference.masking import causal_mask


def _heads(built: Built) -> int:
    """n_heads, as the grader passed it to the constructor."""
    return built.args[1] if len(built.args) > 1 else built.kwargs["n_heads"]


def _correct(built: Built, x: Tensor, return_weights: bool = False) -> object:
    """nn.MultiheadAttention with the loaded weights: out (B, T, D), or (out, weights (B, H, T, T))."""
    out, weights = dot_product.multihead(built.state, x, _heads(built))
    return out if not return_weights else (out, weights)


def _multihead(built: Built, x: Tensor, return_weights: bool = False, *, order: tuple[int, int, int] = (0, 1, 2),
               split_per_head: bool = False, scale: float | None = None, dim: int = -1, wrong_mask: bool = False,
               merge_in_place: bool = False, project: bool = True, average: bool = False) -> object:
    """The forward by hand with one step changed by a keyword: out (B, T, D), or (out, weights (B, H, T, T))."""
    state, H = built.state, _heads(built)
    B, T, D = x.size()
    fused = F.linear(x, state["qkv.weight"], state["qkv.bias"])  # (B, T, 3D)
    if split_per_head:
        q, k, v = fused.reshape(B, T, H, 3 * (D // H)).transpose(1, 2).chunk(3, dim=-1)  # each (B, H, T, d)
    else:
        parts = fused.split(D, dim=-1)
        q, k, v = (dot_product.split_heads(parts[i], H) for i in order)  # each (B, H, T, d)
    scores = q @ k.transpose(-2, -1) * ((D // H) ** -0.5 if scale is None else scale)  # (B, H, T, T)
    visible = torch.ones(T, T, dtype=torch.bool).triu(diagonal=1) if wrong_mask else causal_mask(T)
    weights = torch.softmax(scores.masked_fill(~visible, float("-inf")), dim=dim)
    heads = weights @ v  # (B, H, T, d)
    merged = heads.reshape(B, T, D) if merge_in_place else dot_product.combine_heads(heads)
    out = F.linear(merged, state["proj.weight"], state["proj.bias"]) if project else merged
    shown = weights.mean(dim=1) if average else weights
    return (out, shown) if return_weights else out


def _variant(**change: object) -> dict:
    """The bank's entry for a forward with one step changed."""
    return {
        "MultiHeadSelfAttention": lambda built, x, return_weights=False: _multihead(built, x, return_weights, **change)
    }


def _dims(built: Built) -> tuple[int, int]:
    """(d_model, n_heads) as the grader passed them."""
    return (built.args[0] if built.args else built.kwargs["d_model"]), _heads(built)


BANK = Bank(
    5,
    {"MultiHeadSelfAttention": _correct},
    (
        Mistake(
            "softmax_query_axis",
            N_(
                "the weights' columns sum to 1, not their rows: the softmax runs over the query axis "
                "(dim -2) instead of the keys"
            ),
            2,
            _variant(dim=-2),
            hint_of=3,
        ),
        Mistake(
            "scale_sqrt_dmodel",
            N_("the scores are divided by sqrt(d_model); each head divides by sqrt(d_head)"),
            2,
            {
                "MultiHeadSelfAttention": lambda built, x, return_weights=False: _multihead(
                    built, x, return_weights, scale=_dims(built)[0] ** -0.5
                )
            },
        ),
        Mistake(
            "scale_multiplied",
            N_("the scores are multiplied by sqrt(d_head) instead of divided by it"),
            2,
            {
                "MultiHeadSelfAttention": lambda built, x, return_weights=False: _multihead(
                    built, x, return_weights, scale=(_dims(built)[0] // _dims(built)[1]) ** 0.5
                )
            },
        ),
        Mistake(
            "scale_precedence",
            N_("operator precedence: D // H ** 0.5 is D // sqrt(H); put brackets around D // H"),
            2,
            {
                "MultiHeadSelfAttention": lambda built, x, return_weights=False: _multihead(
                    built, x, return_weights, scale=1 / (_dims(built)[0] // _dims(built)[1] ** 0.5)
                )
            },
        ),
        Mistake(
            "qkv_order_kqv",
            N_("the fused projection is cut in the order k, q, v; it is q, then k, then v"),
            2,
            _variant(order=(1, 0, 2)),
        ),
        Mistake(
            "split_after_heads",
            N_("the fused projection is cut into heads before q, k and v are separated; cut it into three first"),
            2,
            _variant(split_per_head=True),
        ),
        Mistake(
            "combine_without_transpose",
            N_("the heads are merged by a plain reshape, without moving H back after T"),
            2,
            _variant(merge_in_place=True),
            hint_of=4,
        ),
        Mistake(
            "no_output_projection",
            N_("the combined heads never go through the output projection proj"),
            1,
            _variant(project=False),
        ),
        Mistake(
            "mask_wrong_way",
            N_("the mask hides the past and shows the future: the keys a query may see are j <= i"),
            2,
            _variant(wrong_mask=True),
            hint_of=1,
        ),
        Mistake(
            "weights_averaged",
            N_("the weights are averaged over the heads; return one (T, T) map per head, (B, H, T, T)"),
            1,
            _variant(average=True),
        ),
    ),
)
