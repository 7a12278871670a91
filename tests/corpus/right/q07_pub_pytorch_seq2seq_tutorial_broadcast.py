"""Correct (public code): the seq2seq tutorial's batched Wa(query) + Ua(keys), with every decoder state as one query row (S, 1, d_s) against keys (1, T, d_h)."""
# Source: pytorch/tutorials, intermediate_source/seq2seq_translation_tutorial.py, class BahdanauAttention (batched over the
# first axis: query (B, 1, H), keys (B, T, H), scores.squeeze(2).unsqueeze(1), F.softmax(scores, dim=-1)).
# Adapted: the S decoder states take the batch axis and broadcast against one set of keys; use_tanh switches the
# tutorial's torch.tanh off; the closed form drops Wa(query), the same for every key, and softmaxes Va(Ua(keys)).
import torch
import torch.nn.functional as F
from torch import Tensor


def linear_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . (W s + U h_j + b), the additive score without tanh: -> (T,)."""
    scores = F.linear(F.linear(s.view(1, 1, -1), W, b) + F.linear(H.unsqueeze(0), U), v.unsqueeze(0))  # (1, T, 1)
    return scores.view(-1)


def weights_across_states(
    states: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor, use_tanh: bool = True
) -> Tensor:
    """Attention weights for each decoder state: states (S, d_s) -> (S, T), one row per state."""
    query = states.unsqueeze(1)  # (S, 1, d_s)
    keys = H.unsqueeze(0)  # (1, T, d_h)
    hidden = F.linear(query, W, b) + F.linear(keys, U)  # (S, T, d_a)
    if use_tanh:
        hidden = torch.tanh(hidden)
    scores = F.linear(hidden, v.unsqueeze(0))  # (S, T, 1)
    scores = scores.squeeze(2).unsqueeze(1)  # (S, 1, T)
    weights = F.softmax(scores, dim=-1)
    return weights.squeeze(1)


def no_tanh_weights(H: Tensor, U: Tensor, v: Tensor) -> Tensor:
    """The weights every state gets without tanh: softmax over j of v . U h_j -> (T,)."""
    scores = F.linear(F.linear(H.unsqueeze(0), U), v.unsqueeze(0))  # (1, T, 1)
    return F.softmax(scores.squeeze(2), dim=-1).view(-1)
