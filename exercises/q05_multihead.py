"""Question 5: a causal multi-head self-attention module."""
import torch
from torch import Tensor, nn

from .q01_causal_mask import causal_mask, mask_scores
from .q02_scaled_scores import scaled_scores
from .q04_heads import combine_heads, split_heads


class MultiHeadSelfAttention(nn.Module):
    """Causal multi-head self-attention: (B, T, D) -> (B, T, D)."""

    def __init__(self, d_model: int, n_heads: int, max_len: int = 1024) -> None:
        """Fused q/k/v projection `qkv`, output projection `proj`, causal mask buffer for max_len positions.

        qkv = nn.Linear(d_model, 3 * d_model): of its 3 * d_model outputs, the first d_model are q, the next d_model k,
        the last d_model v (the layout of nn.MultiheadAttention's in_proj_weight); proj = nn.Linear(d_model, d_model).
        Raises ValueError when d_model is not divisible by n_heads.
        """
        super().__init__()
        # TODO: validate the head count, create qkv and proj, register the mask as a buffer.
        raise NotImplementedError

    def forward(self, x: Tensor, return_weights: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """x (B, T, D) -> out (B, T, D), plus weights (B, H, T, T) when return_weights.

        Raises ValueError when T is larger than the max_len given to __init__.
        """
        # TODO: one qkv product, split into heads, masked softmax attention, combine, project.
        raise NotImplementedError
