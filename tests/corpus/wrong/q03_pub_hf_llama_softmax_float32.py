"""Bug (public code): Hugging Face Llama's eager attention takes the softmax with dtype=torch.float32 and casts back, so float64 inputs lose their precision."""
# Source: Hugging Face transformers, models/llama/modeling_llama.py, LlamaAttention's eager path:
# `attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)` ("upcast
# attention to fp32"): an upcast for float16 and bfloat16, but a downcast for float64.
# Adapted: attention by hand with Llama's additive finfo.min causal mask and its softmax line kept as it is.
import math

import torch
from torch import Tensor, nn


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    head_dim = q.shape[-1]
    attn_weights = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(head_dim)
    if causal:
        tgt_len = q.shape[-2]
        causal_mask = torch.full((tgt_len, tgt_len), torch.finfo(q.dtype).min, dtype=q.dtype, device=q.device)
        causal_mask = torch.triu(causal_mask, diagonal=1)
        attn_weights = attn_weights + causal_mask
    # upcast attention to fp32
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(q.dtype)
    attn_output = torch.matmul(attn_weights, v)
    return attn_output, attn_weights


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    query_states, key_states, value_states = x @ W_q, x @ W_k, x @ W_v
    attn_output, _ = attention(query_states, key_states, value_states, causal=True)
    return attn_output
