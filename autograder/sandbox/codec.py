"""The sandbox's wire format: plain data and CPU tensors as bytes, read back without unpickling anything.

Both sides use it: the grader for its requests and to read answers, the child (which loads this file by
path in the zygote, before any student code runs) to read requests and write answers. A value is a
tree of None, bool, int, float, str, torch.dtype, list, tuple, dict (str or int keys) and dense CPU
tensors; each node is a one-byte tag and its payload, little-endian. `decode` trusts nothing: a frame
that is not exactly one well-formed value, nests too deeply, holds too many nodes or declares more bytes
than it has raises ValueError. It replaces torch.save / torch.load(weights_only=True), which cost about
a millisecond per message on each side.
"""
import hashlib
import struct
from typing import Callable

import torch

import builtins

__builtins__ = dict(vars(builtins))  # a private copy, taken before any student code (docs/sandbox.md)

_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex64, torch.complex128,
           torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool)
_CODES = {dtype: code for code, dtype in enumerate(_DTYPES)}
_SIZES = tuple(torch.empty((), dtype=dtype).element_size() for dtype in _DTYPES)
MAX_DEPTH = 64  # deeper than any answer the child's plain() sends (it stops at 8) or any request
MAX_NODES = 1 << 20
MAX_DIMS = 32

# Bound at import, in the zygote, before any student code runs: patching torch or struct later does not reach the codec.
_pack, _Tensor, _uint8 = struct.pack, torch.Tensor, torch.uint8
_detach, _contiguous, _resolve_conj, _resolve_neg = (
    torch.Tensor.detach,
    torch.Tensor.contiguous,
    torch.Tensor.resolve_conj,
    torch.Tensor.resolve_neg,
)
_reshape, _view, _numpy, _clone, _frombuffer, _empty = (
    torch.Tensor.reshape,
    torch.Tensor.view,
    torch.Tensor.numpy,
    torch.Tensor.clone,
    torch.frombuffer,
    torch.empty,
)
_type, _len, _isinstance = type, len, isinstance
_I64 = (-(1 << 63), (1 << 63) - 1)
KEY_BYTES, TAG_BYTES = 32, 16  # a child's answer key (random, per child) and the tag each answer frame ends with
# a C type that cannot be patched (hmac.HMAC, a Python class, can: a patched copy() would hand over its state)
_blake2b = hashlib.blake2b
_STRUCTS = {
    fmt: struct.Struct(fmt)
    for fmt in ("<c", "<q", "<I", "<d", "<B", "<BB", "<Q", *(f"<{dims}q" for dims in range(MAX_DIMS + 1)))
}


def encode(value: object) -> bytes:
    """value as bytes; TypeError for anything that is not plain data or a dense CPU tensor."""
    parts: list[bytes] = []
    _encode(value, parts, 0)
    return b"".join(parts)


def _encode(value: object, parts: list[bytes], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ValueError("a value nested too deeply to send")
    kind = _type(value)
    if value is None:
        parts.append(b"N")
    elif kind is bool:
        parts.append(b"T" if value else b"F")
    elif kind is int:
        if _I64[0] <= value <= _I64[1]:
            parts.append(_pack("<cq", b"i", value))
        else:
            text = str(value).encode()
            parts.append(_pack("<cI", b"I", _len(text)) + text)
    elif kind is float:
        parts.append(_pack("<cd", b"f", value))
    elif kind is str:
        text = value.encode("utf-8", "surrogatepass")
        parts.append(_pack("<cI", b"s", _len(text)) + text)
    elif kind is torch.dtype:
        parts.append(_pack("<cB", b"D", _CODES[value]))
    elif kind is list or kind is tuple:
        parts.append(_pack("<cI", b"l" if kind is list else b"t", _len(value)))
        for item in value:
            _encode(item, parts, depth + 1)
    elif kind is dict:
        parts.append(_pack("<cI", b"d", _len(value)))
        for key, item in value.items():
            if _type(key) not in (str, int):
                raise TypeError(f"a dict key of type {_type(key).__name__} cannot be sent")
            _encode(key, parts, depth + 1)
            _encode(item, parts, depth + 1)
    elif kind is _Tensor or kind is torch.nn.Parameter:
        _encode_tensor(value, parts)
    else:
        raise TypeError(f"a {kind.__name__} cannot be sent")


def _encode_tensor(tensor: torch.Tensor, parts: list[bytes]) -> None:
    if tensor.device.type != "cpu" or tensor.layout != torch.strided or tensor.dtype not in _CODES:
        raise TypeError(f"a {tensor.dtype} {tensor.layout} tensor on {tensor.device} cannot be sent")
    flat = _reshape(_contiguous(_resolve_neg(_resolve_conj(_detach(tensor)))), (-1,))
    data = _numpy(_view(flat, _uint8)).tobytes() if flat.numel() else b""
    shape = tuple(tensor.shape)
    parts.append(_pack(f"<cBB{_len(shape)}qQ", b"X", _CODES[tensor.dtype], _len(shape), *shape, _len(data)) + data)


def sealer(key: bytes) -> Callable[[bytes], bytes]:
    """The tag function of one child's answers: keyed BLAKE2b (a MAC) over the answer's number and its bytes, so that an
    answer the child's own loop did not send (forged, replayed or reordered) has a wrong tag. Both sides number the
    answers from 0; the key itself is not kept (the keyed state is, and its repr shows nothing)."""
    keyed, sealed = _blake2b(key=key, digest_size=TAG_BYTES), [0]

    def tag(data: bytes) -> bytes:
        state = keyed.copy()
        state.update(_pack("<Q", sealed[0]))
        state.update(data)
        sealed[0] += 1
        return state.digest()

    return tag


def decode(frame: bytes) -> object:
    """The value encoded in frame; ValueError when frame is not exactly one well-formed value within the limits."""
    reader = _Reader(memoryview(frame))
    try:
        value = reader.value(0)
    except (struct.error, UnicodeDecodeError, IndexError, RuntimeError, TypeError) as error:
        raise ValueError(f"a malformed frame ({type(error).__name__})") from None
    if reader.position != _len(frame):
        raise ValueError("bytes left over after the value")
    return value


class _Reader:
    """Walks a frame, one node at a time."""

    def __init__(self, frame: memoryview) -> None:
        self.frame, self.position, self.nodes = frame, 0, 0

    def _take(self, fmt: str) -> tuple:
        reader = _STRUCTS[fmt]
        values = reader.unpack_from(self.frame, self.position)
        self.position += reader.size
        return values

    def _bytes(self, size: int) -> memoryview:
        if size > _len(self.frame) - self.position:
            raise ValueError("a length beyond the end of the frame")
        start, self.position = self.position, self.position + size
        return self.frame[start : self.position]

    def value(self, depth: int) -> object:
        """The next value of the frame."""
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            raise ValueError("a value nested too deeply or too large")
        (tag,) = self._take("<c")
        if tag == b"N":
            return None
        if tag in (b"T", b"F"):
            return tag == b"T"
        if tag == b"i":
            return self._take("<q")[0]
        if tag == b"I":
            return int(str(self._bytes(self._take("<I")[0]), "ascii"))
        if tag == b"f":
            return self._take("<d")[0]
        if tag == b"s":
            return str(self._bytes(self._take("<I")[0]), "utf-8", "surrogatepass")
        if tag == b"D":
            return _DTYPES[self._take("<B")[0]]
        if tag in (b"l", b"t"):
            count = self._count()
            items = [self.value(depth + 1) for _ in range(count)]
            return items if tag == b"l" else tuple(items)
        if tag == b"d":
            found = {}
            for _ in range(self._count()):
                key = self.value(depth + 1)
                if _type(key) not in (str, int):
                    raise ValueError("a dict key that is not a str or an int")
                found[key] = self.value(depth + 1)
            return found
        if tag == b"X":
            return self._tensor()
        raise ValueError(f"an unknown tag {tag!r}")

    def _count(self) -> int:
        (count,) = self._take("<I")
        if count > _len(self.frame) - self.position:  # every item takes at least one byte
            raise ValueError("more items than the frame has bytes")
        return count

    def _tensor(self) -> torch.Tensor:
        code, dims = self._take("<BB")
        if code >= _len(_DTYPES) or dims > MAX_DIMS:
            raise ValueError("an unknown dtype or too many dimensions")
        dtype, shape = _DTYPES[code], self._take(f"<{dims}q")
        (size,) = self._take("<Q")
        numel = 1
        for extent in shape:
            if extent < 0:
                raise ValueError("a negative dimension")
            numel *= extent
        if size != numel * _SIZES[code]:
            raise ValueError("a tensor whose bytes do not match its shape")
        data = self._bytes(size)
        if not numel:
            return _empty(shape, dtype=dtype)
        # cloned: storage of its own, which can grow
        return _reshape(_clone(_frombuffer(bytearray(data), dtype=dtype)), shape)
