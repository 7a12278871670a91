"""The one table of forbidden work: what a check may forbid (a suite's `forbid` marker names its labels), read by both
the child's watch (forbidden.py: entry points and aten operators, as the code runs) and the grader's reading of the
student's source (engine/static.py: names, after a check passed). Adding a forbidden call is one entry here.

Plain data and no import: the grader reads it before its child has imported torch, and the child (as `_child`) binds
what it names once, at its own import, before any student code runs.
"""
from types import MappingProxyType
from typing import NamedTuple

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)


class Forbidden(NamedTuple):
    """What one label forbids; the label itself is how the student's report names the work."""

    # Python functions by dotted path from torch, seen by the function mode (one this build lacks is skipped)
    entry_points: tuple[str, ...]
    # aten operators (overload packets), seen by either mode: called as torch.ops.aten.X, or run as a kernel
    operators: tuple[str, ...]
    # in the source: a bare name is any attribute, import or imported name so spelled (`.backward`);
    names: tuple[str, ...]
    # a dotted one only what the imports resolve to it (`torch.einsum`: `T.einsum`, not `np.einsum`) torch classes (and
    # their subclasses): every torch call their methods make is this work
    classes: tuple[str, ...] = ()
    # labels whose kernels, run inside this work, are this work's only (not the student's own call)
    covers: tuple[str, ...] = ()
    # every kernel the autograd engine runs, and a read of a tensor's .grad_fn by the student's code
    engine: bool = False


TABLE: "MappingProxyType[str, Forbidden]" = MappingProxyType(
    {
        "F.scaled_dot_product_attention": Forbidden(
            entry_points=(
                "torch.nn.functional.scaled_dot_product_attention",
                "torch._C._nn.scaled_dot_product_attention",
            ),
            operators=(
                "scaled_dot_product_attention",
                "_scaled_dot_product_attention_math",
                "_scaled_dot_product_attention_math_for_mps",
                "_scaled_dot_product_flash_attention",
                "_scaled_dot_product_flash_attention_for_cpu",
                "_scaled_dot_product_efficient_attention",
                "_scaled_dot_product_cudnn_attention",
                "_scaled_dot_product_fused_attention_overrideable",
                "_fused_sdp_choice",
                "_safe_softmax",  # only SDPA's math path uses it
                "_flash_attention_forward",
                "_efficient_attention_forward",
                "_cudnn_attention_forward",
            ),
            names=("scaled_dot_product_attention",),
        ),
        "nn.MultiheadAttention": Forbidden(
            entry_points=(
                "torch.nn.functional.multi_head_attention_forward",
                "torch._native_multi_head_attention",
                "torch._transformer_encoder_layer_fwd",
            ),
            operators=("_native_multi_head_attention", "_transformer_encoder_layer_fwd"),
            names=("MultiheadAttention", "multi_head_attention_forward"),
            classes=("torch.nn.MultiheadAttention",),  # torch.ao's quantizable one is a pure-Python subclass
            covers=("F.scaled_dot_product_attention",),
        ),  # the SDPA call nn.MultiheadAttention makes inside itself
        "torch.autograd": Forbidden(
            entry_points=(
                "torch.Tensor.backward",
                "torch.autograd.grad",
                "torch.autograd.backward",
                "torch._make_dual",
            ),
            operators=("_make_dual",),
            names=("autograd", "backward", "enable_grad", "requires_grad_", "vjp", "jacrev", "jacfwd", "functorch"),
            engine=True,
        ),
        "torch.einsum": Forbidden(
            entry_points=("torch.einsum", "torch._C._VariableFunctions.einsum"),
            operators=("einsum",),
            names=(
                "torch.einsum",
                "torch.functional.einsum",
                "torch._VF.einsum",
                "torch._C._VariableFunctions.einsum",
                "torch.ops.aten.einsum",
            ),
        ),
    }
)
LABELS: tuple[str, ...] = tuple(TABLE)
