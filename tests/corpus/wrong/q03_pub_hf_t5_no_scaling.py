"""Bug (public code): Hugging Face T5's attention has no 1/sqrt(d) ("Mesh TensorFlow initialization to avoid scaling before softmax")."""
# mistake: q03.no_scaling
# Source: Hugging Face transformers, models/t5/modeling_t5.py, T5Attention.forward: `scores = torch.matmul(query_states,
# key_states.transpose(3, 2))` with no division (T5 folds the scale into its weight initialisation), the mask added as a
# position bias, then `nn.functional.softmax(scores.float(), dim=-1).type_as(scores)`.
# Adapted: the causal mask becomes the additive position bias of 0 and finfo.min; T5's softmax line is kept as it is.
import torch
from torch import Tensor, nn


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    scores = torch.matmul(q, k.transpose(-1, -2))  # equivalent of torch.einsum("bnqd,bnkd->bnqk"), compatible with onnx op>9
    if causal:
        length = q.shape[-2]
        position_bias = torch.zeros(length, length, dtype=scores.dtype, device=scores.device)
        future = torch.ones(length, length, dtype=torch.bool, device=scores.device).triu(1)
        position_bias = position_bias.masked_fill(future, torch.finfo(scores.dtype).min)
        scores += position_bias
    attn_weights = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
    attn_output = torch.matmul(attn_weights, v)
    return attn_output, attn_weights


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    return attention(x @ W_q, x @ W_k, x @ W_v)[0]
