"""Bug (public issue): labml's DDPM UNet attention takes attn.softmax(dim=1) on its 'bijh' scores, the query axis i, not the keys j."""
# mistake: q03.softmax_query_axis
# Source: labmlai/annotated_deep_learning_paper_implementations, labml_nn/diffusion/ddpm/unet.py, AttentionBlock:
# `attn = torch.einsum('bihd,bjhd->bijh', q, k) * self.scale` then `attn = attn.softmax(dim=1)`; issue 146 "Bug in SA
# for DDPM UNet?" (confirmed: "a typo and a big bug").
# Adapted: the einsum over the contract's (..., T, d) layout puts i at dim -2, and the softmax keeps to the i axis.
import torch
from torch import Tensor


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    scale = q.shape[-1] ** -0.5
    attn = torch.einsum("...id,...jd->...ij", q, k) * scale
    if causal:
        i = torch.arange(attn.shape[-2], device=q.device)
        attn = attn.masked_fill(i[None, :] > i[:, None], float("-inf"))
    attn = attn.softmax(dim=-2)
    res = torch.einsum("...ij,...jd->...id", attn, v)
    return res, attn


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    res, _ = attention(x @ W_q, x @ W_k, x @ W_v)
    return res
