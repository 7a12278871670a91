"""Correct variant: everything computed in float64 (addmv for the projections, log-softmax exp) and cast back to the input dtype."""
import torch
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    s64, H64, W64, U64, v64, b64 = (t.double() for t in (s, H, W, U, v, b))
    state_part = torch.addmv(b64, W64, s64)  # b + W s, (d_a,)
    hidden = torch.tanh(state_part.unsqueeze(0) + torch.mm(H64, U64.t()))  # (T, d_a)
    return torch.mv(hidden, v64).to(s.dtype)


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    e = additive_scores(s, H, W, U, v, b).double()
    weights = torch.exp(torch.log_softmax(e, dim=0))
    context = (weights.unsqueeze(1) * H.double()).sum(dim=0)
    return weights.to(H.dtype), context.to(H.dtype)
