"""Bug: additive_scores applies v before the tanh: tanh(v . (W s + U h_j + b)) instead of v . tanh(...)."""
# mistake: q06.v_inside_tanh
import torch
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    return torch.tanh((W @ s + H @ U.T + b) @ v)


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    weights = torch.softmax(additive_scores(s, H, W, U, v, b), dim=-1)  # (T,)
    return weights, weights @ H  # (T,) @ (T, d_h) -> (d_h,)
