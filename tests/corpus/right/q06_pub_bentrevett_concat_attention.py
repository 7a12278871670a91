"""Correct (public code): bentrevett's pytorch-seq2seq Attention: energy = tanh(attn(cat(hidden.repeat, encoder_outputs))), v without bias, softmax over src_len, bmm."""
# Source: bentrevett/pytorch-seq2seq, "Neural Machine Translation by Jointly Learning to Align and Translate" notebook,
# class Attention: `hidden.unsqueeze(1).repeat(1, src_len, 1)`, `torch.tanh(self.attn(torch.cat((hidden, encoder_outputs),
# dim=2)))`, `self.v = nn.Linear(dec_hid_dim, 1, bias=False)`, `F.softmax(attention, dim=1)`; the decoder's
# `torch.bmm(a.unsqueeze(1), encoder_outputs)` for the weighted source.
# Adapted: the concatenated layer's weight is [W | U] with bias b, so cat((s, h_j)) @ [W | U]^T = W s + U h_j.
import torch
import torch.nn.functional as F
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    src_len = H.shape[0]
    hidden = s.unsqueeze(0).unsqueeze(1).repeat(1, src_len, 1)  # (1, src_len, d_s)
    encoder_outputs = H.unsqueeze(0)  # (1, src_len, d_h)
    attn_weight = torch.cat((W, U), dim=1)  # (d_a, d_s + d_h)
    energy = torch.tanh(F.linear(torch.cat((hidden, encoder_outputs), dim=2), attn_weight, b))  # (1, src_len, d_a)
    attention = F.linear(energy, v.unsqueeze(0)).squeeze(2)  # (1, src_len)
    return attention.squeeze(0)


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    a = F.softmax(additive_scores(s, H, W, U, v, b).unsqueeze(0), dim=1)  # (1, src_len)
    weighted = torch.bmm(a.unsqueeze(1), H.unsqueeze(0))  # (1, 1, d_h)
    return a.squeeze(0), weighted.squeeze(1).squeeze(0)
