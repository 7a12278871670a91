"""Bug (public issue): CNTK's AttentionModel summed the projected encoder states h_enc_proj with the weights, not the encoder states themselves."""
# mistake: q06.context_projected
# Source: microsoft/CNTK, cntk/layers/models/attention.py, AttentionModel.attention, issue 2083 "Possible implementation
# error": `h_att = C.reduce_sum(C.element_times(h_enc_proj, attention_weights), axis=attention_axis)`; "according to
# Bahdanau's paper, attention weight is applied on the h_enc before projection" (confirmed and fixed in 2.2).
# Adapted: CNTK's encoder projection is U h_j (no bias), its decoder projection W s + b; the read keeps the projected rows.
import torch
from torch import Tensor


def additive_scores(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> Tensor:
    """e_j = v . tanh(W s + U h_j + b): s (d_s,), H (T, d_h), W (d_a, d_s), U (d_a, d_h), v, b (d_a,) -> (T,)."""
    h_enc_proj = H @ U.T  # (T, d_a)
    h_dec_proj = W @ s + b  # (d_a,)
    u = torch.tanh(h_enc_proj + h_dec_proj)
    return u @ v


def additive_attention(s: Tensor, H: Tensor, W: Tensor, U: Tensor, v: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """(weights (T,) = softmax(e), context (d_h,) = weights @ H) for one decoder state."""
    h_enc_proj = H @ U.T  # (T, d_a)
    attention_weights = torch.softmax(additive_scores(s, H, W, U, v, b), dim=0)
    h_att = (h_enc_proj * attention_weights[:, None]).sum(dim=0)
    return attention_weights, h_att
