"""Bug (public issue): PyTorch-NLP's Attention reshaped its scores to (batch * output_len, query_len) and took nn.Softmax(dim=0): with one state every weight is 1."""
# mistake: q06.softmax_size1_axis
# Source: PetrochukM/PyTorch-NLP, torchnlp/nn/attention.py, class Attention, issue 2 "Attention's softmax dimension is
# wrong?": `attention_scores.view(batch_size * output_len, query_len)` then `self.softmax = nn.Softmax(dim=0)`, "the weights
# computed by nn.Attention is always 1" (the same bug: DEEP-PolyU/KEQA_WSDM19 issue 2).
# Adapted: its reshape-softmax-reshape and bmm read moved onto the additive scores of one decoder state.
import torch
from torch import Tensor, nn


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    return torch.tanh((W @ s).unsqueeze(0) + H @ U.t() + b) @ v


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    batch_size, output_len, query_len = 1, 1, H.shape[0]
    softmax = nn.Softmax(dim=0)
    attention_scores = additive_scores(s, H, W, U, v, b).view(batch_size * output_len, query_len)
    attention_weights = softmax(attention_scores)
    attention_weights = attention_weights.view(batch_size, output_len, query_len)
    mix = torch.bmm(attention_weights, H.unsqueeze(0))  # (batch_size, output_len, dimensions)
    return attention_weights.view(-1), mix.view(-1)
