"""Correct (public code): Hugging Face Llama's _make_causal_mask recipe: arange comparison mask_cond < (mask_cond + 1).view(T, 1), masked with finfo(dtype).min."""
# Source: Hugging Face transformers, models/llama/modeling_llama.py, `_make_causal_mask` (the 4.3x releases).
# Adapted: the additive (T, T) mask of finfo.min above the diagonal becomes a bool table for causal_mask, and
# mask_scores fills with torch.finfo(scores.dtype).min as Llama does, instead of -inf; prefix_average reuses the mask.
import torch
from torch import Tensor


def prefix_average(x: Tensor) -> Tensor:
    """Row i of the result is the mean of rows 0..i of x: (..., T, d) -> (..., T, d)."""
    tgt_len = x.shape[-2]
    mask = causal_mask(tgt_len).to(x.dtype)
    mask = mask / mask.sum(-1, keepdim=True)
    return torch.matmul(mask, x)


def causal_mask(T: int) -> Tensor:
    """Boolean (T, T) table, True where key j may be seen by query i (j <= i)."""
    mask_cond = torch.arange(T)
    return mask_cond < (mask_cond + 1).view(T, 1)


def mask_scores(scores: Tensor, mask: Tensor) -> Tensor:
    """New tensor: scores where mask is True, -inf where it is False; (..., Tq, Tk), mask broadcasts."""
    min_value = torch.finfo(scores.dtype).min
    return scores.masked_fill(mask.logical_not(), min_value)
