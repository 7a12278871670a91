"""Correct (public code): the PyTorch seq2seq translation tutorial's BahdanauAttention, Va(tanh(Wa(query) + Ua(keys))), squeeze(2).unsqueeze(1), softmax, bmm."""
# Source: pytorch/tutorials, intermediate_source/seq2seq_translation_tutorial.py, class BahdanauAttention (used by
# AttnDecoderRNN): scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys))); weights = F.softmax(scores, dim=-1);
# context = torch.bmm(weights, keys).
# Adapted: the three nn.Linear layers written as F.linear with the given W, U, v; b plays Wa's bias, Ua and Va have none
# (the contract's score has one bias); a batch of one, query (1, 1, d_s), keys (1, T, d_h); (weights, context) in the
# contract's order (the tutorial returns context first).
import torch
import torch.nn.functional as F
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    query, keys = s.view(1, 1, -1), H.unsqueeze(0)
    scores = F.linear(torch.tanh(F.linear(query, W, b) + F.linear(keys, U)), v.unsqueeze(0))  # (1, T, 1)
    scores = scores.squeeze(2).unsqueeze(1)  # (1, 1, T)
    return scores.view(-1)


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    keys = H.unsqueeze(0)  # (1, T, d_h)
    scores = additive_scores(s, H, W, U, v, b).view(1, 1, -1)
    weights = F.softmax(scores, dim=-1)
    context = torch.bmm(weights, keys)  # (1, 1, d_h)
    return weights.view(-1), context.view(-1)
