"""Question 5: a causal multi-head self-attention module."""
import torch
from torch import Tensor, nn

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores
from .q04_heads import combine_heads, split_heads


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions."""
        super().__init__()
        # TODO: validate the head count, create qkv and proj, register the mask as a buffer.
        raise NotImplementedError

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights."""
        # TODO: one qkv product, split into heads, masked softmax attention, combine, project.
        raise NotImplementedError
