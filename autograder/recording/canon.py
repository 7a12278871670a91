"""A canonical digest of a call's arguments, and plain encodings of results: what a recording keys and stores."""
import dataclasses
import hashlib
import json
import math
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

import torch

FORMAT = b"attention-kit recording 2\n"
FLOAT_DIGITS = 13  # significant digits a recorded Python float keeps (checks compare numbers to 1e-6 at the finest)


class Uncanonical(TypeError):
    """An argument the digest cannot name (an object of unknown kind): such a call is never recorded."""


def _canon(value: object, out: list[bytes]) -> None:
    """Append the canonical bytes of value to out."""
    if type(value) is torch.Tensor or isinstance(value, torch.nn.Parameter):
        tensor = value.detach().cpu().contiguous()
        out.append(b"T%s%s:" % (str(tensor.dtype).encode(), str(tuple(tensor.shape)).encode()))
        out.append(
            hashlib.sha256(
                tensor.numpy().tobytes()
                if tensor.dtype != torch.bfloat16
                else tensor.view(torch.int16).numpy().tobytes()
            ).digest()
        )
    elif value is None or isinstance(value, (bool, int, float, str)):
        out.append(b"%s:%s;" % (type(value).__name__.encode(), repr(value).encode()))
    elif isinstance(value, torch.dtype):
        out.append(b"D%s;" % str(value).encode())
    elif isinstance(value, (tuple, list)):
        out.append(b"(" if isinstance(value, tuple) else b"[")
        for item in value:
            _canon(item, out)
        out.append(b")")
    elif isinstance(value, dict):
        out.append(b"{")
        for key in sorted(value, key=repr):
            _canon(key, out)
            _canon(value[key], out)
        out.append(b"}")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        out.append(b"C%s(" % type(value).__name__.encode())
        for field in dataclasses.fields(value):
            _canon(field.name, out)
            _canon(getattr(value, field.name), out)
        out.append(b")")
    # the grader's function, where it is written
    elif callable(value) and hasattr(value, "__qualname__") and hasattr(value, "__code__"):
        out.append(
            b"F%s.%s:%d;" % (str(value.__module__).encode(), value.__qualname__.encode(), value.__code__.co_firstlineno)
        )
    else:
        raise Uncanonical(f"no canonical form for {type(value).__name__}")


def digest(args: tuple, kwargs: dict) -> str:
    """The key of a call: its positional and keyword arguments by dtype, shape and bytes (tensors) or value."""
    out: list[bytes] = []
    _canon((tuple(args), dict(kwargs)), out)
    return hashlib.sha256(b"".join(out)).hexdigest()[:32]


class Blobs(list):
    """The tensors' bytes of one recording, each distinct content kept once."""

    def __init__(self) -> None:
        super().__init__()
        self.where: dict[bytes, int] = {}

    def add(self, data: bytes) -> int:
        """The index of data, appended when new."""
        if data not in self.where:
            self.where[data] = len(self)
            self.append(data)
        return self.where[data]


class Results(dict):
    """A table of results by digest: written as a section of its own, parsed only when a lookup first needs it."""


class Section(Mapping):
    """A results table as read: its JSON text, parsed at the first lookup (a check reads a few of its question's
    tables)."""

    def __init__(self, text: bytes) -> None:
        self.text, self.table = text, None

    def _parsed(self) -> dict:
        if self.table is None:
            self.table = json.loads(self.text)
        return self.table

    def __getitem__(self, key: str) -> Any:
        return self._parsed()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._parsed())

    def __len__(self) -> int:
        return len(self._parsed())


SECTION = "results_section"  # the node standing for a Results table in the file's outline: its index


class Raised(Exception):
    """What a recorded call raised, raised again by its lookup: `ValueError: ...` as the recorded type's name."""


def encode(value: object, blobs: Blobs) -> Any:
    """value as a JSON-able node; each tensor's storage bytes appended to blobs, the node naming its index."""
    if type(value) is torch.Tensor or isinstance(value, torch.nn.Parameter):
        tensor = value.detach().cpu()
        size = 1 + sum((n - 1) * s for n, s in zip(tensor.shape, tensor.stride())) if tensor.numel() else 0
        start = tensor.storage_offset() * tensor.element_size()
        data = bytes(tensor.untyped_storage())[start : start + size * tensor.element_size()]
        return {
            "t": [
                blobs.add(data),
                str(tensor.dtype).removeprefix("torch."),
                list(tensor.shape),
                list(tensor.stride()),
                int(value.requires_grad),
            ]
        }
    if isinstance(value, BaseException):
        return {"raised": type(value).__name__}
    if isinstance(value, float) and math.isfinite(value):
        # LAPACK's last bits vary with memory alignment: a release stays the same bytes
        return float(f"{value:.{FLOAT_DIGITS}g}")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, torch.dtype):
        return {"dtype_value": str(value).removeprefix("torch.")}
    if isinstance(value, (tuple, list)):
        return {"tuple" if isinstance(value, tuple) else "list": [encode(item, blobs) for item in value]}
    if isinstance(value, dict):
        return {"dict": [[encode(key, blobs), encode(item, blobs)] for key, item in value.items()]}
    raise Uncanonical(f"a result of kind {type(value).__name__} cannot be recorded")


def decode(node: Any, blobs: list[bytes]) -> object:
    """The value encode() wrote as node; a recorded exception is raised again as Raised."""
    if not isinstance(node, dict):
        return node
    if "t" in node:
        index, kind, shape, stride, grad = node["t"]
        dtype, data = getattr(torch, kind), blobs[index]
        if not data:
            tensor = torch.empty_strided(shape, stride, dtype=dtype)
        else:
            tensor = torch.frombuffer(bytearray(data), dtype=dtype).as_strided(shape, stride)
        return tensor.requires_grad_(True) if grad else tensor
    if "raised" in node:
        raise Raised(node["raised"])
    if "dtype_value" in node:
        return getattr(torch, node["dtype_value"])
    if "tuple" in node:
        return tuple(decode(item, blobs) for item in node["tuple"])
    if "list" in node:
        return [decode(item, blobs) for item in node["list"]]
    return {decode(key, blobs): decode(item, blobs) for key, item in node["dict"]}


def _outline(node: Any, sections: list[bytes]) -> Any:
    """node with each Results table in it replaced by {SECTION: index}, its JSON text appended to sections."""
    if isinstance(node, Results):
        sections.append(json.dumps(node, sort_keys=True, separators=(",", ":")).encode())
        return {SECTION: len(sections) - 1}
    if isinstance(node, dict):
        return {key: _outline(value, sections) for key, value in node.items()}
    if isinstance(node, list):
        return [_outline(value, sections) for value in node]
    return node


def _filled(node: Any, sections: list[Section]) -> Any:
    """The outline node with each {SECTION: index} replaced by its Section."""
    if isinstance(node, dict):
        if set(node) == {SECTION}:
            return sections[node[SECTION]]
        return {key: _filled(value, sections) for key, value in node.items()}
    if isinstance(node, list):
        return [_filled(value, sections) for value in node]
    return node


def _spans(parts: list[bytes]) -> list[list[int]]:
    """[offset, size] of each of parts laid end to end."""
    spans, start = [], 0
    for part in parts:
        spans.append([start, len(part)])
        start += len(part)
    return spans


def dump(table: dict, blobs: list[bytes]) -> bytes:
    """The bytes of a recording file: a header line, then compressed: the outline's length and JSON text, each Results
    table's JSON text, then the tensors' bytes."""
    sections: list[bytes] = []
    outline = _outline(table, sections)
    body = sections + list(blobs)
    spans = _spans(body)
    text = json.dumps(
        {"table": outline, "sections": spans[: len(sections)], "blobs": spans[len(sections) :]},
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    return FORMAT + zlib.compress(b"%d\n" % len(text) + text + b"".join(body), 9)


def load(data: bytes) -> tuple[dict, list[bytes]]:
    """(table, blobs) of a recording file's bytes, its results tables parsed when first read; ValueError when they
    are not one."""
    if not data.startswith(FORMAT):
        raise ValueError("not a recording of this kit")
    rest = zlib.decompress(data[len(FORMAT) :])
    length, _, rest = rest.partition(b"\n")
    document = json.loads(rest[: int(length)])
    body = memoryview(rest)[int(length) :]
    sections = [Section(bytes(body[start : start + size])) for start, size in document["sections"]]
    return _filled(document["table"], sections), [
        bytes(body[start : start + size]) for start, size in document["blobs"]
    ]
