"""Bug (public issue): mask_scores calls the out-of-place masked_fill and drops its result, so the scores come back unmasked."""
# Source: QwenLM/Qwen issue 933: in modeling_qwen.py, `attention_mask.masked_fill(~causal_mask, torch.finfo(query.dtype).min)`
# was called without assigning the result (masked_fill returns a new tensor), so the mask was never lower-triangular.
# Adapted: the same line in mask_scores, with finfo(dtype).min as Qwen used; the scores are returned untouched.
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    counts = torch.arange(1, x.shape[-2] + 1, dtype=x.dtype, device=x.device).unsqueeze(-1)
    return x.cumsum(dim=-2) / counts


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    return torch.ones(T, T, dtype=torch.bool).tril()


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    attention_mask = scores.clone()
    attention_mask.masked_fill(~mask, torch.finfo(scores.dtype).min)
    return attention_mask
