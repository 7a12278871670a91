"""The sandbox's wire format: every value a request or an answer holds comes back equal; a forged frame is refused."""
import math
import struct

import pytest
import torch

from autograder.sandbox import codec

VALUES = [
    None,
    True,
    False,
    0,
    -7,
    2**63 - 1,
    -(2**63),
    2**80,
    -(2**70),
    1.5,
    float("inf"),
    -0.0,
    "",
    "héllo \ud800",
    torch.float64,
    torch.bool,
    [],
    (),
    {},
    [1, (2, [3.0, None])],
    {"a": 1, 3: ["x"]},
    torch.randn(3, 4),
    torch.randn(2, 1, 3, dtype=torch.float64),
    torch.tensor(5),
    torch.zeros(0, 3),
    torch.arange(6).reshape(2, 3),
    torch.tensor([True, False]),
    torch.randn(2, 2).to(torch.bfloat16),
    torch.randn(3, dtype=torch.complex64),
    torch.randn(4, 3).t(),
    torch.randn(5)[::2],
    torch.randn(2, dtype=torch.complex64).conj(),
    {"ok": True, "value": (torch.ones(2, 2), torch.eye(2)), "after": [torch.zeros(1)], "spied": ["x"], "reads": 3},
]


def same(a: object, b: object) -> bool:
    """Equal values of equal types, tensors compared exactly (dtype, shape, entries)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, torch.Tensor):
        return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a.resolve_conj(), b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b and (not isinstance(a, float) or math.copysign(1, a) == math.copysign(1, b))


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_round_trip(value: object) -> None:
    """decode(encode(v)) equals v, type and dtype included."""
    assert same(codec.decode(codec.encode(value)), value)


def test_nan_round_trip() -> None:
    """NaN stays NaN, in a float and in a tensor."""
    assert math.isnan(codec.decode(codec.encode(float("nan"))))
    assert torch.isnan(codec.decode(codec.encode(torch.tensor([float("nan")])))).all()


@pytest.mark.parametrize(
    "value",
    [object(), {(1, 2): 3}, torch.nn.Linear(2, 2), torch.Size([2]), torch.zeros(2).to_sparse()],
    ids=["object", "tuple key", "module", "size", "sparse"],
)
def test_unsendable_values_raise_type_error(value: object) -> None:
    """Anything that is not plain data or a dense CPU tensor is refused when encoding."""
    with pytest.raises(TypeError):
        codec.encode(value)


def tensor_header(dims: tuple[int, ...], size: int, code: int = 0) -> bytes:
    """A tensor node's header as the codec writes it: tag, dtype code, dims, shape, byte count."""
    return struct.pack(f"<cBB{len(dims)}qQ", b"X", code, len(dims), *dims, size)


FORGED = {
    "empty": b"",
    "unknown tag": b"Z",
    "trailing bytes": codec.encode(1) + b"N",
    "truncated int": codec.encode(123)[:-1],
    "string longer than the frame": struct.pack("<cI", b"s", 10**6) + b"abc",
    "list longer than the frame": struct.pack("<cI", b"l", 2**31),
    "huge tensor declared, few bytes": tensor_header((2**20, 2**20), 2**40 * 4) + b"\0" * 16,
    "tensor bytes not matching its shape": tensor_header((2, 2), 12) + b"\0" * 12,
    "negative dimension": tensor_header((-1, 4), 0),
    "unknown dtype": tensor_header((1,), 4, code=200) + b"\0" * 4,
    "list key": struct.pack("<cI", b"d", 1) + struct.pack("<cI", b"l", 0) + b"N",
    "nested too deeply": b"".join(struct.pack("<cI", b"l", 1) for _ in range(codec.MAX_DEPTH + 2)) + b"N",
    "invalid utf-8": struct.pack("<cI", b"s", 2) + b"\xff\xfe",
}


@pytest.mark.parametrize("frame", FORGED.values(), ids=FORGED.keys())
def test_forged_frames_raise_value_error(frame: bytes) -> None:
    """A frame that is not exactly one well-formed value within the limits raises ValueError, never anything else."""
    with pytest.raises(ValueError):
        codec.decode(frame)


def test_decoded_tensors_do_not_share_the_frame() -> None:
    """A decoded tensor owns its memory: changing it leaves a second decode of the same frame unchanged."""
    frame = codec.encode(torch.ones(3))
    first = codec.decode(frame)
    first += 1
    assert torch.equal(codec.decode(frame), torch.ones(3))


def test_a_decoded_tensor_can_be_resized() -> None:
    """A student's resize_ (or `out=`) on a tensor the grader sent works: its storage is its own, not the frame's."""
    x = codec.decode(codec.encode(torch.zeros(2, 2)))
    x.resize_(3, 5).fill_(4.0)
    assert x.shape == (3, 5) and float(x.sum()) == 60.0
