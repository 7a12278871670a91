"""Question 10: copy_batch, TinyAttentionLM, train_copy_task."""
import math

import torch
import torch.nn.functional as F

from ..checks import Check
from ..compare import kind, past_changed
from ..probes.inputs import make

VOCAB, T, D, HEADS = 64, 12, 32, 4


def _pairs(outs: list) -> str | None:
    for out in outs:
        if not isinstance(out, (tuple, list)) or len(out) != 2 or any(type(t) is not torch.Tensor for t in out):
            return f"copy_batch returned {kind(out)}; expected a tuple (x, y) of tensors"
    return None


def _shifted(params: dict, result: dict) -> str | None:
    """x int64 (B, T) in range; y[:, 0] = -100 and y[:, t] = x[:, t - 1]."""
    problem = _pairs(result["outs"])
    if problem:
        return problem
    for call, (x, y) in zip(params["calls"], result["outs"]):
        B, kwargs = call["args"][0], call["kwargs"]
        length, vocab = kwargs.get("T", T), kwargs.get("vocab", VOCAB)
        for name, tensor in (("x", x), ("y", y)):
            if tensor.shape != (B, length) or tensor.dtype != torch.int64:
                return f"{name} is {tensor.dtype} {tuple(tensor.shape)}; expected torch.int64 {(B, length)}"
        if x.min() < 0 or x.max() >= vocab:
            return f"x has tokens outside 0..{vocab - 1}"
        if not bool((y[:, 0] == -100).all()):
            return "y[:, 0] should be -100 (no earlier token to copy, ignored by the loss)"
        if not torch.equal(y[:, 1:], x[:, :-1]):
            return "y[:, t] should be x[:, t - 1], the token one step earlier"
    return None


def _drawn(params: dict, result: dict) -> str | None:
    """Same generator seed, same batch; other seed, other batch; tokens spread evenly over the vocabulary."""
    problem = _pairs(result["outs"])
    if problem:
        return problem
    (first, _), (again, _), (other, _), (large, _) = result["outs"]
    if not torch.equal(first, again):
        return "two generators with the same seed gave different batches: draw with generator=generator"
    if torch.equal(first, other):
        return "generators with different seeds gave the same batch: draw with generator=generator"
    counts = torch.bincount(large.flatten(), minlength=5).double() / large.numel() if large.dtype == torch.int64 and large.min() >= 0 else None
    if counts is None or len(counts) != 5 or not bool(((counts > 0.15) & (counts < 0.25)).all()):
        return "with vocab=5 each token should appear about 1/5 of the time: draw tokens uniformly"
    return None


def _batch_call(B: int, seed: int, **kwargs: int) -> dict:
    return {"fn": "copy_batch", "args": [B], "kwargs": {**kwargs, "generator": {"generator": seed}}}


def _model(params: dict, result: dict) -> str | None:
    """Layout of TinyAttentionLM, logits and weights shapes for any T <= max_len, and causality."""
    structure = result["structure"]
    wanted = {"tok": "Embedding", "pos": "Embedding", "attn": "MultiHeadSelfAttention", "head": "Linear"}
    for name, cls in wanted.items():
        if structure["children"].get(name) != cls:
            return f"TinyAttentionLM().{name} should be a {cls}; found {structure['children'].get(name, 'nothing')}"
    shapes = {"tok.weight": [VOCAB, D], "pos.weight": [T, D], "head.weight": [VOCAB, D]}
    for name, shape in shapes.items():
        if structure["parameters"].get(name) != shape:
            return f"{name} should have shape {tuple(shape)}; found {structure['parameters'].get(name)}"
    out = result["out"]
    B, length = params["forward"][0]["randint"]
    if not params["forward_kwargs"]:  # plain forward(x): the logits alone
        if type(out) is not torch.Tensor or out.shape != (B, length, VOCAB):
            return f"forward(x) returned {kind(out) if type(out) is not torch.Tensor else tuple(out.shape)}; expected logits {(B, length, VOCAB)} alone"
        return None
    if not isinstance(out, (tuple, list)) or len(out) != 2 or any(type(t) is not torch.Tensor for t in out):
        return f"forward(x, return_weights=True) returned {kind(out)}; expected (logits, weights)"
    if out[0].shape != (B, length, VOCAB) or out[1].shape != (B, HEADS, length, length):
        return (f"for x of shape {(B, length)}: logits {tuple(out[0].shape)} and weights {tuple(out[1].shape)}; "
                f"expected {(B, length, VOCAB)} and {(B, HEADS, length, length)}")
    if "forward_alt" in params:
        alt = result["out_alt"]
        start = params["forward_alt"][0]["resample"]["from"]
        if not isinstance(alt, (tuple, list)) or type(alt[0]) is not torch.Tensor or alt[0].shape != out[0].shape:
            return f"forward(x, return_weights=True) returned {kind(alt)}; expected (logits, weights)"
        if past_changed(out[0], alt[0], start, dim=1):
            return f"changing the tokens from position {start} on changed earlier logits: the model sees the future"
    return None


def _trained(params: dict, result: dict) -> str | None:
    """Loss starts near log(vocab), ends below 1, held-out loss below 1, one head reads the previous position."""
    losses = result["losses"]
    if not isinstance(losses, (list, tuple)):
        return f"the losses should be a list of Python floats (loss.item()); got {kind(losses)}"
    odd = next((v for v in losses if type(v) not in (int, float)), None)
    if odd is not None:
        return f"the losses should be Python floats (loss.item()); one is {kind(odd)}"
    steps = params["kwargs"]["epochs"] * params["kwargs"]["steps_per_epoch"]
    if len(losses) != steps:
        return f"{len(losses)} losses for epochs * steps_per_epoch = {steps} steps: record every step's loss, use the arguments"
    if not all(math.isfinite(v) for v in losses):
        return "some losses are NaN or infinite"
    if abs(losses[0] - math.log(VOCAB)) > 1.0:
        return f"the first loss is {losses[0]:.2f}; an untrained model should be near log({VOCAB}) = {math.log(VOCAB):.2f}"
    if steps < 100:  # a short run only shows that the arguments are honoured
        return None
    final = sum(losses[-10:]) / 10
    if final >= 1.0:
        return f"the last losses average {final:.2f}; they should end well below 1.0 (is position 0 ignored, is the optimiser stepping?)"
    x = make(params["eval_tokens"])
    logits, weights = result["logits"], result["weights"]
    if type(logits) is not torch.Tensor or logits.shape != (*x.shape, VOCAB):
        return f"the trained model's logits are {kind(logits)}; expected a {(*x.shape, VOCAB)} tensor"
    held_out = F.cross_entropy(logits[:, 1:].reshape(-1, VOCAB).float(), x[:, :-1].reshape(-1)).item()
    if held_out >= 1.0:
        return f"on a fresh batch the trained model's loss is {held_out:.2f}; it should be well below 1.0"
    if (logits[:, 0].argmax(dim=-1) == 0).double().mean() > 0.5:
        return "the model learned to predict token 0 at position 0: targets of -100 must be ignored by the loss, not replaced"
    if type(weights) is not torch.Tensor or weights.shape != (x.shape[0], HEADS, T, T):
        return f"the trained model's weights are {kind(weights)}; expected {(x.shape[0], HEADS, T, T)}"
    previous = weights.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))  # (H,): weight on position t - 1
    if previous.max() <= 0.5:
        return f"no head puts most of its weight on the previous position (best head: {previous.max():.2f})"
    return None


TRAIN_KWARGS = {"epochs": 3, "steps_per_epoch": 100, "batch_size": 64, "lr": 3e-3, "seed": 0}
SHORT_KWARGS = {"epochs": 1, "steps_per_epoch": 3, "batch_size": 8, "lr": 3e-3, "seed": 1}
TOKENS = {"randint": [3, T], "high": VOCAB, "seed": 1001}

CHECKS = [
    Check("copy_batch: targets are the inputs shifted by one", "calls",
          [{"calls": [_batch_call(4, 1), _batch_call(2, 2, T=5, vocab=7)]}], _shifted, ("copy_batch",), 2),
    Check("copy_batch draws uniform tokens from the generator", "calls",
          [{"calls": [_batch_call(4, 3), _batch_call(4, 3), _batch_call(4, 4), _batch_call(512, 5, T=7, vocab=5)]}], _drawn, ("copy_batch",), 1),
    Check("TinyAttentionLM: layout, shapes, and no look at the future", "module",
          [{"cls": "TinyAttentionLM", "forward": [{"randint": [2, 5], "high": VOCAB, "seed": 1000}], "forward_kwargs": {"return_weights": True}},
           {"cls": "TinyAttentionLM", "forward": [{"randint": [2, 5], "high": VOCAB, "seed": 999}], "forward_kwargs": {}},
           {"cls": "TinyAttentionLM", "forward": [TOKENS], "forward_kwargs": {"return_weights": True},
            "forward_alt": [{**TOKENS, "resample": {"axis": 1, "from": 6, "seed": 1002}}]}], _model, ("TinyAttentionLM",), 3),
    Check("train_copy_task honours its arguments and learns to copy the previous token", "train",
          [{"kwargs": SHORT_KWARGS, "eval_tokens": TOKENS},
           {"kwargs": TRAIN_KWARGS, "eval_tokens": {"randint": [256, T], "high": VOCAB, "seed": 1003}}], _trained, ("train_copy_task",), 6),
]
