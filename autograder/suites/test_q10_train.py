"""Question 10: copy_batch, TinyAttentionLM, train_copy_task."""
import math

import pytest
import torch
import torch.nn.functional as F

from autograder.engine.asserts import first_position, kind, past_change, unmoved_from
from autograder.engine.inputs import case, seeded
from autograder.engine.proxy import (
    CallRecord,
    CheckFailure,
    Generator,
    Handle,
    Student,
    StudentError,
    structure,
    trained_share,
)
from autograder.i18n import _, number_text

# An optimizer's first step imports torch._dynamo (800 modules, over a second): done once in the sandbox, not per
# student. The training's seconds run beside the other questions' checks in one student's check (engine/lanes.py).
pytestmark = [pytest.mark.preload("torch._dynamo"), pytest.mark.beside]

VOCAB, T, D, HEADS = 64, 12, 32, 4


def tokens(B: int, length: int, seed: int) -> torch.Tensor:
    """Seeded uniform tokens (B, length) int64 below VOCAB (from the course secret in class grading)."""
    return torch.randint(VOCAB, (B, length), generator=torch.Generator().manual_seed(seeded(seed)))


def resampled(x: torch.Tensor, start: int, seed: int) -> torch.Tensor:
    """x with its positions from start on drawn again (seeded): the same past, another future."""
    changed = x.clone()
    changed[:, start:] = tokens(x.shape[0], x.shape[1] - start, seed)
    return changed


EVAL_TOKENS = tokens(3, T, 1001)
SIZES = {"vocab": VOCAB, "d_model": D, "n_heads": HEADS, "max_len": T}  # TinyAttentionLM's defaults
OTHER_SIZES = {"vocab": 10, "d_model": 8, "n_heads": 2, "max_len": 6}
MODEL_INPUTS = [
    case(x=tokens(2, 5, 1000), return_weights=True, future_from=None, sizes=None),
    case(x=tokens(2, 5, 999), return_weights=False, future_from=None, sizes=None),
    # future_from: resample x from there on, compare
    case(x=EVAL_TOKENS, return_weights=True, future_from=6, sizes=None),
    # sizes: init arguments
    case(x=tokens(2, 6, 998) % 10, return_weights=True, future_from=None, sizes=OTHER_SIZES),
]
# only shows the arguments are honoured
SHORT_KWARGS = {"epochs": 1, "steps_per_epoch": 3, "batch_size": 8, "lr": 3e-3, "seed": 1}
# 100 steps: a right answer's last losses average about 0.01 and its best head puts 0.97 of its weight on the previous
# token (seeds 0 to 2), far inside the bounds checked; the default 300 steps only triple the check's cost
TRAIN_KWARGS = {"epochs": 2, "steps_per_epoch": 50, "batch_size": 64, "lr": 3e-3, "seed": 0}
TRAIN_INPUTS = [case(**SHORT_KWARGS, held_out=EVAL_TOKENS), case(**TRAIN_KWARGS, held_out=tokens(256, T, 1003))]


def _relation(x: torch.Tensor, y: torch.Tensor) -> str:
    """What y is instead of the shifted x, when it is the unshifted or the wrongly shifted one: ` (y[:, t] is x[:,
    t], ...)`."""
    if torch.equal(y[:, 1:], x[:, 1:]):
        return _(" (y[:, t] is x[:, t], the token itself)")
    return _(" (y[:, t] is x[:, t + 1], the next token)") if torch.equal(y[:, :-1], x[:, 1:]) else ""


def _pairs(outs: list) -> None:
    """Every output is a tuple (x, y) of tensors."""
    for out in outs:
        assert isinstance(out, (tuple, list)) and len(out) == 2 and all(type(t) is torch.Tensor for t in out), _(
            "copy_batch returned {kind}; expected a tuple (x, y) of tensors"
        ).format(kind=kind(out))


@pytest.mark.points(2)
def test_copy_batch_shift(student: Student) -> None:
    """copy_batch: targets are the inputs shifted by one"""
    calls = [(4, {}), (2, {"T": 5, "vocab": 7})]
    outs = [student.copy_batch(B, **kwargs, generator=Generator(seed)) for (B, kwargs), seed in zip(calls, (1, 2))]
    _pairs(outs)
    for (B, kwargs), (x, y) in zip(calls, outs):
        length, vocab = kwargs.get("T", T), kwargs.get("vocab", VOCAB)
        for name, tensor in (("x", x), ("y", y)):
            assert tensor.shape == (B, length) and tensor.dtype == torch.int64, _(
                "{name} is {dtype} {shape}; expected torch.int64 {expected}"
            ).format(name=name, dtype=tensor.dtype, shape=tuple(tensor.shape), expected=(B, length))
        assert not (x.min() < 0 or x.max() >= vocab), _("x has tokens outside 0..{last}").format(last=vocab - 1)
        seen = _relation(x, y)
        assert bool((y[:, 0] == -100).all()), _(
            "y[:, 0] holds {value}{seen}; it should be -100 (no earlier token to copy, ignored by the loss)"
        ).format(value=y[:, 0][y[:, 0] != -100][0].item(), seen=seen)
        wrong = y[:, 1:] != x[:, :-1]
        row, column = first_position(wrong) if wrong.any() else (0, 0)
        assert not wrong.any(), _(
            "y[{row}, {next}] is not x[{row}, {column}]{seen}: y[:, t] should be x[:, t - 1], the token one step "
            "earlier"
        ).format(row=row, next=column + 1, column=column, seen=seen)


@pytest.mark.points(1)
def test_copy_batch_generator(student: Student) -> None:
    """copy_batch draws uniform tokens from the generator"""
    outs = [
        student.copy_batch(4, generator=Generator(3)),
        student.copy_batch(4, generator=Generator(3)),
        student.copy_batch(4, generator=Generator(4)),
        student.copy_batch(512, T=7, vocab=5, generator=Generator(5)),
    ]
    _pairs(outs)
    first, again, other, large = (pair[0] for pair in outs)
    assert torch.equal(first, again), _(
        "two generators with the same seed gave different batches: draw with generator=generator"
    )
    assert not torch.equal(first, other), _(
        "generators with different seeds gave the same batch: draw with generator=generator"
    )
    counts = (
        torch.bincount(large.flatten(), minlength=5).double() / large.numel()
        if large.dtype == torch.int64 and large.min() >= 0
        else None
    )
    measured = (
        _(" (measured: {counts})").format(counts=", ".join(number_text(c, ".2f") for c in counts.tolist()))
        if counts is not None
        else ""
    )
    assert counts is not None and len(counts) == 5 and bool(((counts > 0.15) & (counts < 0.25)).all()), _(
        "with vocab=5 each token should appear about 1/5 of the time{measured}: draw tokens uniformly"
    ).format(measured=measured)


@pytest.mark.points(3)
@pytest.mark.parametrize("x, return_weights, future_from, sizes", MODEL_INPUTS)
def test_tiny_attention_lm(
    student: Student, x: torch.Tensor, return_weights: bool, future_from: int | None, sizes: dict | None
) -> None:
    """TinyAttentionLM: layout, shapes, and no look at the future"""
    model = student.TinyAttentionLM(**sizes) if sizes else student.TinyAttentionLM()
    sizes = sizes or SIZES
    built = (
        f"TinyAttentionLM({', '.join(f'{k}={v}' for k, v in sizes.items())})"
        if sizes is not SIZES
        else "TinyAttentionLM()"
    )
    vocab, width, heads = sizes["vocab"], sizes["d_model"], sizes["n_heads"]
    layout = structure(model)
    wanted = {"tok": "Embedding", "pos": "Embedding", "attn": "MultiHeadSelfAttention", "head": "Linear"}
    for name, cls in wanted.items():
        assert layout.children.get(name) == cls, _("{built}.{name} should be a {cls}; found {found}").format(
            built=built, name=name, cls=cls, found=layout.children.get(name) or _("nothing")
        )
    for name, shape in {
        "tok.weight": [vocab, width],
        "pos.weight": [sizes["max_len"], width],
        "head.weight": [vocab, width],
    }.items():
        assert layout.parameters.get(name) == shape, _(
            "{built}: {name} should have shape {shape}; found {found} (use the arguments)"
        ).format(built=built, name=name, shape=tuple(shape), found=layout.parameters.get(name))
    B, length = x.shape
    if not return_weights:  # plain forward(x): the logits alone
        out = model(x)
        assert type(out) is torch.Tensor and out.shape == (B, length, vocab), _(
            "forward(x) returned {found}; expected logits {expected} alone"
        ).format(found=kind(out) if type(out) is not torch.Tensor else tuple(out.shape), expected=(B, length, vocab))
        return
    out = model(x, return_weights=True)
    assert isinstance(out, (tuple, list)) and len(out) == 2 and all(type(t) is torch.Tensor for t in out), _(
        "forward(x, return_weights=True) returned {kind}; expected (logits, weights)"
    ).format(kind=kind(out))
    assert out[0].shape == (B, length, vocab) and out[1].shape == (B, heads, length, length), _(
        "{built}, x of shape {shape}: logits {logits} and weights {weights}; expected {expected_logits} and "
        "{expected_weights}"
    ).format(
        built=built,
        shape=(B, length),
        logits=tuple(out[0].shape),
        weights=tuple(out[1].shape),
        expected_logits=(B, length, vocab),
        expected_weights=(B, heads, length, length),
    )
    if future_from is not None:
        alt = model(resampled(x, future_from, 1002), return_weights=True)
        assert isinstance(alt, (tuple, list)) and type(alt[0]) is torch.Tensor and alt[0].shape == out[0].shape, _(
            "forward(x, return_weights=True) returned {kind}; expected (logits, weights)"
        ).format(kind=kind(alt))
        change = past_change(out[0], alt[0], future_from, dim=1)
        assert not change, _(
            "changing the tokens from position {start} on changed earlier logits ({change}): the model sees the future"
        ).format(start=future_from, change=change)
        assert not unmoved_from(out[0], alt[0], future_from, dim=1), _(
            "changing the tokens from position {start} on changed no logits, not even there: the logits must depend on "
            "the tokens"
        ).format(start=future_from)


def _trained_model(student: Student, kwargs: dict) -> tuple[Handle, object, CallRecord]:
    """train_copy_task(**kwargs) as (the model's handle, the losses, the record of the call: its backward passes,
    those into gradients left from before, torch.optim's steps); a first item that is no nn.Module fails the
    check."""
    with student.counting_backward():
        result = student.train_copy_task(**kwargs)
    passes = student.last
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise CheckFailure(
            _("train_copy_task should return (model, losses); it returned {kind}").format(kind=kind(result))
        )
    trained = result[0]
    not_a_module = CheckFailure(
        _("train_copy_task should return (model, losses); its first item is {kind}").format(kind=kind(trained))
    )
    if not isinstance(trained, Handle):
        raise not_a_module
    try:
        structure(trained)  # the child raises TypeError for anything but an nn.Module
    except StudentError:
        raise not_a_module from None
    return trained, result[1], passes


def _honours_seed_and_lr(student: Student, kwargs: dict, losses: list[float]) -> None:
    """The same seed gives the same losses again; another seed, or another lr, other losses."""
    again = _trained_model(student, kwargs)[1]
    assert again == losses, _(
        "two runs with the same seed gave different losses: seed torch with `seed` (model and batches)"
    )
    other_seed = _trained_model(student, kwargs | {"seed": kwargs["seed"] + 1})[1]
    assert other_seed != losses, _("seeds {first} and {second} gave the same losses: use the `seed` argument").format(
        first=kwargs["seed"], second=kwargs["seed"] + 1
    )
    other_lr = _trained_model(student, kwargs | {"lr": kwargs["lr"] * 10})[1]
    assert other_lr != losses, _("lr={first} and lr={second} gave the same losses: give `lr` to the optimiser").format(
        first=f"{kwargs['lr']:g}", second=f"{kwargs['lr'] * 10:g}"
    )


@pytest.mark.points(6)
@pytest.mark.parametrize("epochs, steps_per_epoch, batch_size, lr, seed, held_out", TRAIN_INPUTS)
def test_train_copy_task(
    student: Student, epochs: int, steps_per_epoch: int, batch_size: int, lr: float, seed: int, held_out: torch.Tensor
) -> None:
    """train_copy_task honours its arguments and learns to copy the previous token"""
    model, losses, record = _trained_model(
        student,
        {"epochs": epochs, "steps_per_epoch": steps_per_epoch, "batch_size": batch_size, "lr": lr, "seed": seed},
    )
    model.eval()
    with student.no_grad():
        evaluated = model(held_out, return_weights=True)  # (B, T) tokens drawn here, not by the student
    if not isinstance(evaluated, (tuple, list)) or len(evaluated) != 2:
        raise CheckFailure(
            _("forward(x, return_weights=True) returned {kind}; expected (logits, weights)").format(
                kind=kind(evaluated)
            )
        )
    logits, weights = evaluated
    assert isinstance(losses, (list, tuple)), _(
        "the losses should be a list of Python floats (loss.item()); got {kind}"
    ).format(kind=kind(losses))
    odd = next((v for v in losses if type(v) not in (int, float)), None)
    assert odd is None, _("the losses should be Python floats (loss.item()); one is {kind}").format(kind=kind(odd))
    steps = epochs * steps_per_epoch
    assert len(losses) == steps, _(
        "{count} losses for epochs * steps_per_epoch = {steps} steps: record every step's loss, use the arguments"
    ).format(count=len(losses), steps=steps)
    assert record.backward_passes == steps, _(
        "the autograd engine ran {passes} backward passes in train_copy_task for {steps} steps: "
        "train the model, one loss.backward() per step"
    ).format(passes=record.backward_passes, steps=steps)
    assert record.stale_passes == 0, _(
        "in {stale} of {steps} steps loss.backward() added its gradients to those left from an earlier step: the "
        "gradients pile up; clear them before each backward (optimizer.zero_grad())"
    ).format(stale=record.stale_passes, steps=steps)
    assert record.optimizer_steps == steps, _(
        "the torch.optim optimiser took {taken} steps in {steps} batches: call optimizer.step() once per batch, after "
        "loss.backward()"
    ).format(taken=record.optimizer_steps, steps=steps)
    assert all(math.isfinite(v) for v in losses), _("some losses are NaN or infinite")
    assert abs(losses[0] - math.log(VOCAB)) <= 1.0, _(
        "the first loss is {loss}; an untrained model should be near log({vocab}) = {expected}"
    ).format(loss=number_text(losses[0], ".2f"), vocab=VOCAB, expected=number_text(math.log(VOCAB), ".2f"))
    if steps < 100:  # a short run only shows that the arguments are honoured: seed and lr among them
        _honours_seed_and_lr(
            student,
            {"epochs": epochs, "steps_per_epoch": steps_per_epoch, "batch_size": batch_size, "lr": lr, "seed": seed},
            losses,
        )
        return
    assert type(logits) is torch.Tensor and logits.shape == (*held_out.shape, VOCAB), _(
        "the trained model's logits are {kind}; expected a {shape} tensor"
    ).format(kind=kind(logits), shape=(*held_out.shape, VOCAB))
    final = sum(losses[-10:]) / 10
    probabilities = bool((logits >= 0).all()) and torch.allclose(
        logits.double().sum(dim=-1), torch.ones(held_out.shape, dtype=torch.float64), atol=1e-3
    )
    assert not (final >= 1.0 and probabilities), _(
        "the model's outputs are probabilities (each row is at least 0 and sums to 1), and the losses end at an "
        "average of {final}: cross_entropy applies the softmax itself; give it the logits"
    ).format(final=number_text(final, ".2f"))
    assert final < 1.0, _(
        "the last losses average {final}; they should end well below 1.0. The gradients are cleared before each "
        "backward and the optimiser steps once per batch: look at what the loss is given (logits and the targets "
        "y, with position 0 ignored) and at the learning rate"
    ).format(final=number_text(final, ".2f"))
    loss = F.cross_entropy(logits[:, 1:].reshape(-1, VOCAB).float(), held_out[:, :-1].reshape(-1)).item()
    reached, total = trained_share(model)
    assert reached, _(
        "the model returned is not the one trained (the training's backward passes reach none of its {total} "
        "parameters): return the model you trained"
    ).format(total=total)
    assert abs(loss - final) <= 0.1 + 0.5 * max(loss, final), _(
        "the last losses average {final}, yet on a fresh copy batch (uniform tokens, y[:, t] = x[:, t - 1]) the model "
        "trained, which is the one returned, has a loss of {loss}: it was trained on other batches than these, or the "
        "losses recorded are not its loss"
    ).format(final=number_text(final, ".2f"), loss=number_text(loss, ".2f"))
    assert loss < 1.0, _("on a fresh batch the trained model's loss is {loss}; it should be well below 1.0").format(
        loss=number_text(loss, ".2f")
    )
    assert (logits[:, 0].argmax(dim=-1) == 0).double().mean() <= 0.5, _(
        "the model learned to predict token 0 at position 0: targets of -100 must be ignored by the loss, not replaced"
    )
    assert type(weights) is torch.Tensor and weights.shape == (held_out.shape[0], HEADS, T, T), _(
        "the trained model's weights are {kind}; expected {shape}"
    ).format(kind=kind(weights), shape=(held_out.shape[0], HEADS, T, T))
    previous = weights.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))  # (H,): weight on position t - 1
    assert previous.max() > 0.5, _(
        "no head puts most of its weight on the previous position (best head: {best})"
    ).format(best=number_text(previous.max().item(), ".2f"))
