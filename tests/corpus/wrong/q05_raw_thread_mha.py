"""Bug (forbidden): forward runs nn.MultiheadAttention in a thread started with _thread.start_new_thread during the call, around threading's hook that gives new threads the watch."""
import _thread

import torch
from torch import Tensor, nn

from .q01_causal_mask import causal_mask


def _in_raw_thread(work):
    """work() run in a thread the threading module never sees; its result, or its exception raised here."""
    box, done = {}, _thread.allocate_lock()
    done.acquire()

    def body():
        try:
            box["value"] = work()
        except BaseException as error:  # noqa: BLE001
            box["error"] = error
        finally:
            done.release()

    _thread.start_new_thread(body, ())
    done.acquire()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _library(x: Tensor, qkv: nn.Linear, proj: nn.Linear, n_heads: int, hidden: Tensor) -> tuple[Tensor, Tensor]:
    """torch.nn.MultiheadAttention loaded with qkv/proj (a module-level helper: the source check reads only the class)."""
    D = x.shape[-1]
    module = nn.MultiheadAttention(D, n_heads, batch_first=True, dtype=x.dtype)
    with torch.no_grad():
        module.in_proj_weight.copy_(qkv.weight)
        module.in_proj_bias.copy_(qkv.bias)
        module.out_proj.weight.copy_(proj.weight)
        module.out_proj.bias.copy_(proj.bias)
    return _in_raw_thread(lambda: module(x, x, x, attn_mask=hidden, need_weights=True, average_attn_weights=False))


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.max_len = max_len
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.register_buffer("mask", causal_mask(max_len), persistent=False)

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        T = x.shape[1]
        if T > self.max_len:
            raise ValueError(f"sequence length {T} exceeds max_len={self.max_len}")
        out, weights = _library(x, self.qkv, self.proj, self.n_heads, ~self.mask[:T, :T])
        return (out, weights) if return_weights else out
