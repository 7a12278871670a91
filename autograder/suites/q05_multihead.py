"""Question 5: MultiHeadSelfAttention against nn.MultiheadAttention loaded with the same weights."""
import torch

from reference import dot_product

from ..checks import Check, randn
from ..compare import kind, output_mismatch, past_changed, tensor_mismatch
from ..probes.inputs import make

FORBID = ("F.scaled_dot_product_attention", "nn.MultiheadAttention")
CLASS = "MultiHeadSelfAttention"


def _weights(D: int, seed: int, dtype: str) -> dict:
    scale = D**-0.5
    return {
        "qkv.weight": randn([3 * D, D], seed, dtype, scale=scale),
        "qkv.bias": randn([3 * D], seed + 1, dtype, scale=0.1),
        "proj.weight": randn([D, D], seed + 2, dtype, scale=scale),
        "proj.bias": randn([D], seed + 3, dtype, scale=0.1),
    }


def _forward(B: int, T: int, D: int, H: int, seed: int, dtype: str = "float32", weights: bool = True, max_len: int = 16) -> dict:
    return {"cls": CLASS, "init": [D, H], "init_kwargs": {"max_len": max_len}, "dtype": dtype, "load": _weights(D, seed, dtype),
            "forward": [randn([B, T, D], seed + 9, dtype)], "forward_kwargs": {"return_weights": True} if weights else {}}


def _show(params: dict) -> str:
    x = params["forward"][0]
    return f"d_model={params['init'][0]}, n_heads={params['init'][1]}, x {x['dtype']} {tuple(x['randn'])}"


def _expected(params: dict) -> tuple:
    state = {name: make(spec) for name, spec in params["load"].items()}
    return dot_product.multihead(state, make(params["forward"][0]), params["init"][1])


def _matches(params: dict, result: dict) -> str | None:
    out, weights = _expected(params)
    if params["forward_kwargs"]:
        return output_mismatch(result["out"], (out, weights), ("the output", "the weights"))
    return tensor_mismatch(result["out"], out, "forward(x) without return_weights")


def _layout(params: dict, result: dict) -> str | None:
    D, max_len = params["init"][0], params["init_kwargs"]["max_len"]
    structure = result["structure"]
    expected = {"qkv.weight": [3 * D, D], "qkv.bias": [3 * D], "proj.weight": [D, D], "proj.bias": [D]}
    if structure["parameters"] != expected:
        found = ", ".join(f"{name} {tuple(shape)}" for name, shape in structure["parameters"].items()) or "none"
        return f"the trainable parameters should be exactly qkv = nn.Linear({D}, {3 * D}) and proj = nn.Linear({D}, {D}); found {found}"
    if structure["children"].get("qkv") != "Linear" or structure["children"].get("proj") != "Linear":
        return "qkv and proj should be nn.Linear layers"
    masks = [shape for shape, _ in structure["buffers"].values() if shape[-2:] == [max_len, max_len] and all(s == 1 for s in shape[:-2])]
    if not masks:
        return f"no ({max_len}, {max_len}) causal mask among the module's buffers: create it once with register_buffer"
    return None


def _rejects(params: dict, result: dict) -> str | None:
    return "no ValueError was raised"


def _causal(params: dict, result: dict) -> str | None:
    start = params["forward_alt"][0]["resample"]["from"]
    first, second = result["out"], result["out_alt"]
    if type(first) is not torch.Tensor or type(second) is not torch.Tensor or first.shape != second.shape:
        return f"forward(x) returned {kind(first)}; expected a (B, T, D) torch.Tensor"
    if past_changed(first, second, start, dim=1):
        return f"changing x at positions {start} and later changed the output at an earlier position: is the mask applied?"
    return None


SHAPES = [(1, 1, 4, 2, 501), (2, 3, 6, 2, 502), (2, 5, 12, 3, 503), (1, 4, 8, 8, 504), (3, 6, 5, 1, 505), (2, 7, 16, 4, 506)]
MATCH = [_forward(*shape) for shape in SHAPES] + [_forward(2, 4, 6, 3, 507, "float64"), _forward(1, 6, 8, 2, 508, "float64"),
                                                   _forward(2, 6, 8, 2, 511, max_len=6)]  # T == max_len is allowed
CAUSAL = []
for B, T, D, H, seed in SHAPES[1:4]:
    probe = _forward(B, T, D, H, seed, weights=False)
    probe["forward_alt"] = [randn([B, T, D], seed + 9, resample={"axis": 1, "from": T // 2, "seed": seed + 99})]
    CAUSAL.append(probe)

CHECKS = [
    Check("qkv and proj are the only parameters; the mask is a buffer", "module", [{"cls": CLASS, "init": [16, 4], "init_kwargs": {"max_len": 10}}],
          _layout, (CLASS,), 2, FORBID),
    Check("output and weights match nn.MultiheadAttention with the same weights", "module", MATCH, _matches, (CLASS,), 6, FORBID, _show),
    Check("forward without return_weights returns only the output", "module", [_forward(2, 3, 6, 2, 509, weights=False)], _matches, (CLASS,), 1, FORBID),
    Check("changing a later position of x never changes an earlier output", "module", CAUSAL, _causal, (CLASS,), 2, FORBID, _show),
    Check("ValueError when d_model % n_heads != 0", "module", [{"cls": CLASS, "init": [10, 3], "expect_error": "ValueError"}, {"cls": CLASS, "init": [6, 4], "expect_error": "ValueError"}],
          _rejects, (CLASS,), 1),
    Check("ValueError when T > max_len", "module",
          [{"cls": CLASS, "init": [8, 2], "init_kwargs": {"max_len": 4}, "forward": [randn([1, 5, 8], 510)], "expect_error": "ValueError"}],
          _rejects, (CLASS,), 1),
]
