"""Bug (public issue): KEQA scored every (state, position) pair as a (S * T, 1) column and took F.softmax(..., dim=1): every weight is 1."""
# Source: DEEP-PolyU/KEQA_WSDM19, embedding.py, issue 2 "Attention Weight Bug in Embedding": `attn_weights =
# F.softmax(self.attn(torch.cat((x, outputs), 1)), dim=1)` on a (seq_len * batch_size, 1) tensor "results in all softmax
# results to be 1.0" (acknowledged by the authors).
# Adapted: weights_across_states concatenates each state with each source vector, scores the pairs with [W | U], b, tanh
# and v, and keeps KEQA's softmax over the size-1 axis before viewing the result as (S, T).
import torch
import torch.nn.functional as F
from torch import Tensor


def linear_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . (W s + U h_j + b), the additive score without tanh: -> (T,)."""
    return (H @ U.T + W @ s + b) @ v


def weights_across_states(
    states: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor, use_tanh: bool = True
) -> Tensor:
    """Attention weights for each decoder state: states (S, d_s) -> (S, T), one row per state."""
    S, T = states.shape[0], H.shape[0]
    x = states.repeat_interleave(T, dim=0)  # (S * T, d_s)
    outputs = H.repeat(S, 1)  # (S * T, d_h)
    hidden = F.linear(torch.cat((x, outputs), 1), torch.cat((W, U), dim=1), b)  # (S * T, d_a)
    if use_tanh:
        hidden = torch.tanh(hidden)
    attn = (hidden @ v).unsqueeze(1)  # (S * T, 1)
    attn_weights = F.softmax(attn, dim=1)
    return attn_weights.view(S, T)


def no_tanh_weights(H: Tensor, U: Tensor, v: Tensor) -> Tensor:
    """The weights every state gets without tanh: softmax over j of v . U h_j -> (T,)."""
    return torch.softmax(H @ U.T @ v, dim=0)
