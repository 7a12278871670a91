"""Correct variant: F.linear projections for all S states at once, (S, T, d_a) features, tanh optional, logsumexp-normalised rows."""
import torch
import torch.nn.functional as F
from torch import Tensor


def linear_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . (W s + U h_j + b), the additive score without tanh: -> (T,)."""
    return F.linear(F.linear(s, W, b) + F.linear(H, U), v[None]).squeeze(-1)


def weights_across_states(
    states: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor, use_tanh: bool = True
) -> Tensor:
    """Attention weights for each decoder state: states (S, d_s) -> (S, T), one row per state."""
    features = F.linear(states, W, b)[:, None, :] + F.linear(H, U)[None, :, :]  # (S, T, d_a)
    if use_tanh:
        features = features.tanh()
    scores = features @ v  # (S, T)
    return (scores - torch.logsumexp(scores, dim=1, keepdim=True)).exp()


def no_tanh_weights(H: Tensor, U: Tensor, v: Tensor) -> Tensor:
    """The weights every state gets without tanh: softmax over j of v . U h_j -> (T,)."""
    return F.softmax(torch.einsum("a,ah,th->t", v, U, H), dim=0)
