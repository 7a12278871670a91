"""Question 5: MultiHeadSelfAttention against nn.MultiheadAttention loaded with the same weights."""
import pytest
import torch

from autograder.engine.asserts import assert_same, kind, known_mistake, past_change, softmax_axis, unmoved_from
from autograder.engine.inputs import case, randn
from autograder.engine.proxy import Handle, Student, StudentError, load_weights, structure
from autograder.i18n import N_, _
from reference import dot_product

FORBID = pytest.mark.forbid("F.scaled_dot_product_attention", "nn.MultiheadAttention")


def _weights(D: int, seed: int, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    scale = D**-0.5
    return {
        "qkv.weight": randn(3 * D, D, seed=seed, dtype=dtype, scale=scale),
        "qkv.bias": randn(3 * D, seed=seed + 1, dtype=dtype, scale=0.1),
        "proj.weight": randn(D, D, seed=seed + 2, dtype=dtype, scale=scale),
        "proj.bias": randn(D, seed=seed + 3, dtype=dtype, scale=0.1),
    }


def _model(student: Student, d_model: int, n_heads: int, max_len: int, seed: int, dtype: torch.dtype) -> Handle:
    """The student's module built, cast to dtype and loaded with the weights drawn from seed."""
    model = student.MultiHeadSelfAttention(d_model, n_heads, max_len=max_len).to(dtype)
    load_weights(model, _weights(d_model, seed, dtype))
    return model


def _forward(
    B: int, T: int, D: int, H: int, seed: int, dtype: torch.dtype = torch.float32, max_len: int = 16
) -> "pytest.param":
    return case(d_model=D, n_heads=H, max_len=max_len, x=randn(B, T, D, seed=seed + 9, dtype=dtype), seed=seed)


SHAPES = [
    (1, 1, 4, 2, 501),
    (2, 3, 6, 2, 502),
    (2, 5, 12, 3, 503),
    (1, 4, 8, 8, 504),
    (3, 6, 5, 1, 505),
    (2, 7, 16, 4, 506),
]
MATCH = [_forward(*shape) for shape in SHAPES] + [
    _forward(2, 4, 6, 3, 507, torch.float64),
    _forward(1, 6, 8, 2, 508, torch.float64),
    _forward(2, 6, 8, 2, 511, max_len=6),
]  # T == max_len is allowed
CAUSAL = [case(d_model=D, n_heads=H, x=randn(B, T, D, seed=seed + 9), seed=seed) for B, T, D, H, seed in SHAPES[1:4]]


@pytest.mark.points(2)
# builds the module only: forbidden work in forward is the other checks' to find
def test_layout(student: Student) -> None:
    """qkv and proj are the only parameters; the mask is a buffer"""
    D, max_len = 16, 10
    found = structure(student.MultiHeadSelfAttention(D, 4, max_len=max_len).to(torch.float32))
    expected = {"qkv.weight": [3 * D, D], "qkv.bias": [3 * D], "proj.weight": [D, D], "proj.bias": [D]}
    if found.parameters != expected:
        listed = ", ".join(f"{name} {tuple(shape)}" for name, shape in found.parameters.items()) or _("none")
        raise AssertionError(
            _(
                "the trainable parameters should be exactly qkv = nn.Linear({D}, {D3}) and proj = nn.Linear({D}, {D}); "
                "found {listed}"
            ).format(D=D, D3=3 * D, listed=listed)
        )
    assert found.children.get("qkv") == "Linear" and found.children.get("proj") == "Linear", _(
        "qkv and proj should be nn.Linear layers"
    )
    masks = [
        shape
        for shape, _ in found.buffers.values()
        if shape[-2:] == [max_len, max_len] and all(s == 1 for s in shape[:-2])
    ]
    assert masks, _(
        "no ({max_len}, {max_len}) causal mask among the module's buffers: create it once with register_buffer"
    ).format(max_len=max_len)


@FORBID
@pytest.mark.points(6)
@pytest.mark.parametrize("d_model, n_heads, max_len, x, seed", MATCH)
def test_matches_nn_multihead(
    student: Student, d_model: int, n_heads: int, max_len: int, x: torch.Tensor, seed: int
) -> None:
    """output and weights match nn.MultiheadAttention with the same weights"""
    model = _model(student, d_model, n_heads, max_len, seed, x.dtype)
    expected = dot_product.multihead(_weights(d_model, seed, x.dtype), x, n_heads)
    assert_same(model(x, return_weights=True), expected, (N_("the output"), N_("the weights")))


@FORBID
@pytest.mark.points(1)
def test_output_only(student: Student) -> None:
    """forward without return_weights returns only the output"""
    B, T, D, H, seed = 2, 3, 6, 2, 509
    x = randn(B, T, D, seed=seed + 9)
    model = _model(student, D, H, 16, seed, x.dtype)
    out = dot_product.multihead(_weights(D, seed, x.dtype), x, H)[0]
    assert_same(model(x), out, N_("forward(x) without return_weights"))


@FORBID
@pytest.mark.points(2)
@pytest.mark.parametrize("d_model, n_heads, x, seed", CAUSAL)
def test_future_blind(student: Student, d_model: int, n_heads: int, x: torch.Tensor, seed: int) -> None:
    """changing a later position of x never changes an earlier output"""
    batch, length, width = x.shape
    start = length // 2
    changed = x.clone()
    # the same x, its later positions drawn again
    changed[:, start:] = randn(batch, length - start, width, seed=seed + 99, dtype=x.dtype)
    model = _model(student, d_model, n_heads, 16, seed, x.dtype)
    first, second, again = model(x), model(changed), model(x)
    if type(first) is not torch.Tensor or type(second) is not torch.Tensor or first.shape != second.shape:
        raise AssertionError(
            _("forward(x) returned {kind}; expected a (B, T, D) torch.Tensor").format(kind=kind(first))
        )
    rerun, leak = past_change(first, again, length, dim=1), past_change(first, second, start, dim=1)
    assert not rerun, _(
        "two forwards of the same x gave different outputs ({change}): is dropout, or other randomness, left in the "
        "module?"
    ).format(change=rerun)
    if leak:
        mistake = known_mistake(again)  # the same output as a known mistake's: say which, rather than guess
        weights = model(x, return_weights=True) if not mistake else None
        axis = softmax_axis(weights[1]) if isinstance(weights, (tuple, list)) and len(weights) == 2 else ""
        raise AssertionError(
            _("changing x at positions {start} and later changed the output at an earlier position ({change})").format(
                start=start, change=leak
            )
            + (mistake or axis)
            if mistake or axis
            else _(
                "changing x at positions {start} and later changed the output at an earlier position ({change}): is "
                "the mask applied?"
            ).format(start=start, change=leak)
        )
    assert not unmoved_from(first, second, start, dim=1), _(
        "changing x at positions {start} and later changed no output, not even there: the output must depend on x"
    ).format(start=start)


@pytest.mark.points(1)
@pytest.mark.parametrize("d_model, n_heads", [case(d_model=10, n_heads=3), case(d_model=6, n_heads=4)])
def test_rejects_head_count(student: Student, d_model: int, n_heads: int) -> None:
    """ValueError when d_model % n_heads != 0"""
    try:
        student.MultiHeadSelfAttention(d_model, n_heads).to(torch.float32)
    except StudentError as error:
        if error.type == "ValueError":
            return
        raise
    raise AssertionError("no ValueError was raised")


@pytest.mark.points(1)
def test_rejects_long_input(student: Student) -> None:
    """ValueError when T > max_len"""
    try:
        student.MultiHeadSelfAttention(8, 2, max_len=4).to(torch.float32)(randn(1, 5, 8, seed=510))
    except StudentError as error:
        if error.type == "ValueError":
            return
        raise
    raise AssertionError("no ValueError was raised")
