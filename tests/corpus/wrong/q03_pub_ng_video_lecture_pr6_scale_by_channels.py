"""Bug (public issue): single_head is the lecture's Head, which scales by C**-0.5 with C the input width D, not the head size d."""
# Source: karpathy/ng-video-lecture, gpt.py, class Head: `wei = q @ k.transpose(-2, -1) * C**-0.5`, fixed by pull request 6
# "We should scale attention by head size" (the same report: Graylab/DL4Proteins-notebooks issue 12).
# Adapted: Head.forward becomes single_head with the W matrices in place of the nn.Linear layers and T, C = x.shape;
# attention itself is written correctly.
import torch
import torch.nn.functional as F
from torch import Tensor


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = True) -> tuple[Tensor, Tensor]:
    """Attention by hand: q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv) -> (out (..., Tq, dv), weights (..., Tq, Tk))."""
    wei = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
    if causal:
        T = q.shape[-2]
        tril = torch.tril(torch.ones(T, T, device=q.device))
        wei = wei.masked_fill(tril == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    return wei @ v, wei


def single_head(x: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> Tensor:
    """One causal attention head: x (T, D), each W (D, d) -> (T, d)."""
    T, C = x.shape
    k = x @ W_k  # (T, hs)
    q = x @ W_q  # (T, hs)
    # compute attention scores ("affinities")
    wei = q @ k.transpose(-2, -1) * C**-0.5  # (T, hs) @ (hs, T) -> (T, T)
    tril = torch.tril(torch.ones(T, T))
    wei = wei.masked_fill(tril == 0, float("-inf"))  # (T, T)
    wei = F.softmax(wei, dim=-1)  # (T, T)
    # perform the weighted aggregation of the values
    v = x @ W_v  # (T, hs)
    out = wei @ v  # (T, T) @ (T, hs) -> (T, hs)
    return out
