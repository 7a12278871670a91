"""Correct variant: d2l.ai AdditiveAttention with its nn.Linear layers written as F.linear products, features via unsqueeze, torch.bmm read."""
import torch
import torch.nn.functional as F
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    queries = F.linear(s[None, None, :], W, b)  # (1, 1, d_a): W_q(queries)
    keys = F.linear(H[None], U)  # (1, T, d_a): W_k(keys)
    features = queries.unsqueeze(2) + keys.unsqueeze(1)  # (1, 1, T, d_a)
    features = torch.tanh(features)
    scores = F.linear(features, v[None]).squeeze(-1)  # w_v(features): (1, 1, T)
    return scores[0, 0]


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    attention_weights = F.softmax(additive_scores(s, H, W, U, v, b)[None, None, :], dim=-1)  # (1, 1, T)
    context = torch.bmm(attention_weights, H[None])  # (1, 1, d_h)
    return attention_weights[0, 0], context[0, 0]
