"""TVM's ``#[metadata]`` section: the JSON object graph and its base64 NDArray blobs.

Everything after ``#[metadata]`` in a Relay text file is ``SaveJSON`` of the printer's meta
table, a ``Map`` from type key to ``Array`` of objects that the program refers to as
``meta[KEY][INDEX]`` (reference §5). The JSON is a flat object graph::

    {"root": R, "nodes": [...], "b64ndarrays": [...], "attrs": {"tvm_version": "0.18.0"}}

    node        = {"type_key": K, "repr_str" | "repr_b64": S, "attrs": {F: V}, "keys": [...],
                   "data": [I, ...]}      (each key only when non-empty, in this order)
    index 0     = the null placeholder {"type_key": ""}; a reference "0" means null
    attrs       = every reflected field as a string: a node index, an index into b64ndarrays,
                  a number, a dtype string or a raw string
    Array       = data holds the element indices
    Map         = keys holds the string keys, data the value indices aligned with them

Nodes are numbered depth-first pre-order from the root, so a shared object has one index.
Each ``b64ndarrays`` entry is base64 of TVM's NDArray blob, all integers little-endian::

    magic u64 = 0xDD5E40F096B4A13F | reserved u64 | device type i32 (1 = CPU) | device id i32
    | ndim i32 | dtype code u8, bits u8, lanes u16 | shape i64 * ndim | byte size i64 | data

``parse_metadata`` reads such a section into Python values (numpy arrays for constants, sympy
symbols for shape variables, ``OpaqueMetaNode`` for anything else); ``write_metadata`` writes
the section TVM v0.18.0 prints for a table of constants, byte for byte, including the
whitespace of dmlc-core's JSON writer.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import sympy

from .lexer import is_identifier

__all__ = [
    "MetadataError",
    "OpaqueMetaNode",
    "VirtualDeviceMeta",
    "decode_ndarray",
    "encode_ndarray",
    "parse_metadata",
    "write_metadata",
]


class MetadataError(Exception):
    """The metadata section, or one of its NDArray blobs, is malformed.

    ``line`` and ``column`` (1-based, relative to the start of the JSON text) are set when the
    error has a position, that is when the text is not JSON at all.
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        return f"{self.line}:{self.column}: {self.message}"


@dataclass(frozen=True, slots=True)
class VirtualDeviceMeta:
    """A ``VirtualDevice`` entry: DLPack device type, virtual device id, memory scope.

    -1, -1 and "" mean unconstrained. Its target is not kept: this project compiles for no
    TVM target, and placement does not change what a program computes.
    """

    device_type: int
    virtual_device_id: int
    memory_scope: str


@dataclass(frozen=True, slots=True)
class OpaqueMetaNode:
    """A meta table entry of a type this module does not decode (e.g. ``relay.attrs.*``)."""

    type_key: str


# ---------------------------------------------------------------------------------------------
# NDArray blobs (reference §5.3)

_NDARRAY_MAGIC = 0xDD5E40F096B4A13F
_DEVICE_CPU = 1
# magic, reserved, device type, device id, ndim, dtype code, bits, lanes: 32 bytes, no padding.
_HEADER = struct.Struct("<QQiiiBBH")
_INT64 = struct.Struct("<q")

_CODE_INT, _CODE_UINT, _CODE_FLOAT = 0, 1, 2

# (dtype code, bits) -> numpy dtype. bool is "uint1" to TVM but occupies one byte per element.
_DTYPE_OF_CODE: dict[tuple[int, int], np.dtype[np.generic]] = {
    (_CODE_UINT, 1): np.dtype(np.bool_),
    **{(_CODE_INT, 8 * n): np.dtype(f"i{n}") for n in (1, 2, 4, 8)},
    **{(_CODE_UINT, 8 * n): np.dtype(f"u{n}") for n in (1, 2, 4, 8)},
    **{(_CODE_FLOAT, 8 * n): np.dtype(f"f{n}") for n in (2, 4, 8)},
}
# numpy (kind, itemsize) -> (dtype code, bits); by kind so that any byte order is accepted.
_CODE_OF_KIND: dict[tuple[str, int], tuple[int, int]] = {
    (dt.kind, dt.itemsize): code for code, dt in _DTYPE_OF_CODE.items()
}
# Codes TVM knows but numpy cannot hold exactly; named so the error says what the blob was.
_UNSUPPORTED_CODE_NAMES = {3: "handle", 4: "bfloat", 6: "e4m3_float8", 7: "e5m2_float8"}


def encode_ndarray(a: npt.NDArray[np.generic]) -> str:
    """Base64 of TVM's NDArray blob for ``a`` (device CPU 0, lanes 1, little-endian data).

    Supported dtypes: bool, int8/16/32/64, uint8/16/32/64, float16/32/64, in any byte order
    and memory layout; anything else raises ``MetadataError``.
    """
    array = np.asarray(a)
    code_bits = _CODE_OF_KIND.get((array.dtype.kind, array.dtype.itemsize))
    if code_bits is None or array.dtype.fields is not None:
        raise MetadataError(
            f"cannot encode an NDArray of dtype {array.dtype}: expected bool, int8/16/32/64, "
            "uint8/16/32/64 or float16/32/64"
        )
    code, bits = code_bits
    # astype to the little-endian dtype keeps every bit (NaN payloads, -0.0); bool is stored
    # as one byte 0/1 per element, which is numpy's own bool layout.
    stored = np.dtype(np.uint8) if array.dtype.kind == "b" else array.dtype.newbyteorder("<")
    data = array.astype(stored).tobytes(order="C")
    blob = b"".join(
        [
            _HEADER.pack(_NDARRAY_MAGIC, 0, _DEVICE_CPU, 0, array.ndim, code, bits, 1),
            struct.pack(f"<{array.ndim}q", *array.shape),
            _INT64.pack(len(data)),
            data,
        ]
    )
    return base64.b64encode(blob).decode("ascii")


def decode_ndarray(b64: str) -> npt.NDArray[np.generic]:
    """The array held by a ``b64ndarrays`` entry: the inverse of ``encode_ndarray``.

    Strict: invalid base64, a wrong magic number, a non-CPU device, a dtype other than those
    ``encode_ndarray`` writes, lanes other than 1, a byte size that does not match the shape,
    a short blob or trailing bytes raise ``MetadataError``. Like TVM's loader, the reserved
    word and the device id are not checked. The result is bit-exact (NaN payloads and -0.0
    survive), owns its data, is C-contiguous and native-endian; rank 0 gives a 0-d array.
    Bool bytes other than 0 and 1 read as True.
    """
    if not isinstance(b64, str):
        raise MetadataError(f"an NDArray blob must be a base64 string, found {type(b64).__name__}")
    try:
        blob = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError) as error:
        raise MetadataError(f"NDArray blob is not valid base64: {error}") from None
    if len(blob) < _HEADER.size:
        raise MetadataError(
            f"NDArray blob truncated: expected a {_HEADER.size}-byte header, "
            f"found {len(blob)} bytes"
        )
    magic, _reserved, device_type, _device_id, ndim, code, bits, lanes = _HEADER.unpack_from(blob)
    if magic != _NDARRAY_MAGIC:
        raise MetadataError(
            f"NDArray blob has bad magic 0x{magic:016X}: expected 0x{_NDARRAY_MAGIC:016X}"
        )
    if device_type != _DEVICE_CPU:
        raise MetadataError(f"NDArray blob has device type {device_type}: expected 1 (CPU)")
    if ndim < 0:
        raise MetadataError(f"NDArray blob has negative ndim {ndim}")
    dtype = _DTYPE_OF_CODE.get((code, bits))
    if dtype is None:
        name = _UNSUPPORTED_CODE_NAMES.get(code, "custom" if code >= 129 else "unknown")
        raise MetadataError(
            f"NDArray blob has unsupported dtype code {code} ({name}) with {bits} bits: expected "
            "bool, int8/16/32/64, uint8/16/32/64 or float16/32/64"
        )
    if lanes != 1:
        raise MetadataError(f"NDArray blob has {lanes} lanes: only 1 is supported")
    offset = _HEADER.size
    if len(blob) < offset + 8 * ndim + _INT64.size:
        raise MetadataError(
            f"NDArray blob truncated: expected {ndim} shape entries and a byte size after the "
            f"header, found {len(blob) - offset} bytes"
        )
    shape = struct.unpack_from(f"<{ndim}q", blob, offset)
    offset += 8 * ndim
    if any(d < 0 for d in shape):
        raise MetadataError(f"NDArray blob has a negative dimension in shape {list(shape)}")
    (byte_size,) = _INT64.unpack_from(blob, offset)
    offset += _INT64.size
    # TVM derives the element size from the bits, so bool (1 bit) is one byte per element.
    expected = math.prod(shape) * ((bits + 7) // 8)
    if byte_size != expected:
        raise MetadataError(
            f"NDArray blob has byte size {byte_size}: shape {list(shape)} of {dtype} needs "
            f"{expected}"
        )
    data = blob[offset:]
    if len(data) < byte_size:
        raise MetadataError(
            f"NDArray blob truncated: expected {byte_size} data bytes, found {len(data)}"
        )
    if len(data) > byte_size:
        raise MetadataError(
            f"NDArray blob has {len(data) - byte_size} trailing bytes after its {byte_size} "
            "data bytes"
        )
    stored = np.dtype(np.uint8) if dtype.kind == "b" else dtype.newbyteorder("<")
    try:
        view = np.frombuffer(data, dtype=stored).reshape(shape)
    except ValueError as error:  # e.g. more dimensions than numpy supports
        raise MetadataError(f"NDArray blob of shape {list(shape)}: {error}") from None
    # astype copies, so the result owns its data rather than viewing the bytes; it also gives
    # a 0-d array (not a numpy scalar) for rank 0, and maps any non-zero byte to True.
    return view.astype(dtype, order="C")


# ---------------------------------------------------------------------------------------------
# Reading the JSON graph (reference §5.2)

_DECIMAL = re.compile(r"[0-9]+")
_MAX_INDEX_DIGITS = 30
_SIGNED = re.compile(r"-?[0-9]{1,18}")
_VAR_TYPE_KEYS = frozenset({"tir.Var", "tir.SizeVar"})


def parse_metadata(text: str) -> dict[str, list[object]]:
    """The meta table in ``text``, the JSON after ``#[metadata]``: type key to its entries.

    Entries are decoded as far as a Relay program needs them: a ``relay.Constant`` becomes
    its numpy array, a ``tir.SizeVar`` or ``tir.Var`` becomes
    ``sympy.Symbol(name_hint, integer=True, nonnegative=True)``, and any other node an
    ``OpaqueMetaNode`` so that the caller can report it as unsupported where it is referenced.
    Reading is tolerant of TVM versions: unknown keys and fields are ignored (a Constant
    without ``virtual_device_`` reads; ``_checked_type_`` is not compared with the array).
    Anything malformed raises ``MetadataError``, never another exception.
    """
    try:
        document: object = json.loads(text, strict=False)  # dmlc writes control chars raw
    except json.JSONDecodeError as error:
        raise MetadataError(
            f"metadata is not valid JSON: {error.msg}", error.lineno, error.colno
        ) from None
    except RecursionError:
        raise MetadataError("metadata JSON is nested too deeply") from None
    except ValueError as error:  # e.g. an integer literal beyond Python's digit limit
        raise MetadataError(f"metadata is not valid JSON: {error}") from None
    return _GraphReader(document).meta_table()


@dataclass
class _GraphReader:
    """Resolves node indices of one ``SaveJSON`` document, memoising decoded entries."""

    document: object
    nodes: list[object] = field(init=False)
    b64ndarrays: list[object] = field(init=False)
    memo: dict[int, object] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.document, dict):
            raise MetadataError(
                "metadata must be a JSON object with root and nodes, found "
                f"{_json_kind(self.document)}"
            )
        for key in ("root", "nodes"):
            if key not in self.document:
                raise MetadataError(f"metadata JSON has no {key!r}")
        nodes = self.document["nodes"]
        if not isinstance(nodes, list):
            raise MetadataError(f"metadata 'nodes' must be an array, found {_json_kind(nodes)}")
        self.nodes = nodes
        b64ndarrays = self.document.get("b64ndarrays", [])
        if not isinstance(b64ndarrays, list):
            raise MetadataError(
                f"metadata 'b64ndarrays' must be an array, found {_json_kind(b64ndarrays)}"
            )
        self.b64ndarrays = b64ndarrays

    def meta_table(self) -> dict[str, list[object]]:
        """The root Map, each value an Array of decoded entries."""
        assert isinstance(self.document, dict)  # checked in __post_init__
        root = self.index(self.document["root"], "root")
        if root == 0:
            raise MetadataError("metadata root is null: expected a Map")
        map_node = self.node(root)
        if map_node.type_key != "Map":
            raise MetadataError(
                f"metadata root (node {root}) is a {map_node.type_key!r}: expected a Map"
            )
        if map_node.keys is None:
            if map_node.data:
                raise MetadataError(
                    f"metadata root (node {root}) is not a string-keyed Map: it has no 'keys'"
                )
            return {}
        if len(map_node.keys) != len(map_node.data):
            raise MetadataError(
                f"metadata root (node {root}) has {len(map_node.keys)} keys but "
                f"{len(map_node.data)} values"
            )
        table: dict[str, list[object]] = {}
        for key, value in zip(map_node.keys, map_node.data, strict=True):
            if key in table:
                raise MetadataError(f"metadata root (node {root}) has key {key!r} twice")
            array = self.node(value) if value != 0 else None
            if array is None or array.type_key != "Array":
                found = "null" if array is None else repr(array.type_key)
                raise MetadataError(
                    f"metadata key {key!r} maps to node {value}, a {found}: expected an Array"
                )
            table[key] = [self.entry(i, f"meta[{key}][{n}]") for n, i in enumerate(array.data)]
        return table

    def entry(self, index: int, where: str) -> object:
        """The decoded meta table entry at node ``index``."""
        if index == 0:
            raise MetadataError(f"{where} is null")
        if index in self.memo:
            return self.memo[index]
        node = self.node(index)
        value: object
        if node.type_key == "relay.Constant":
            value = self.constant(node, index, where)
        elif node.type_key in _VAR_TYPE_KEYS:
            name = self.string(self.attr_index(node, index, "name_hint", where), where)
            if not is_identifier(name):
                # The name is printed as a dimension, so it must read back as one: anything
                # else could inject text into what the printer writes.
                raise MetadataError(
                    f"{where}: the name_hint {name!r} of a {node.type_key} is not an identifier"
                )
            value = sympy.Symbol(name, integer=True, nonnegative=True)
        elif node.type_key == "VirtualDevice":
            value = self.virtual_device(node, index, where)
        else:
            value = OpaqueMetaNode(node.type_key)
        self.memo[index] = value
        return value

    def constant(self, node: _Node, index: int, where: str) -> npt.NDArray[np.generic]:
        """A ``relay.Constant``'s array, from its ``data`` field (an index into b64ndarrays)."""
        if "data" not in node.attrs:
            raise MetadataError(f"{where} (relay.Constant node {index}) has no 'data' field")
        slot = _parse_index(node.attrs["data"], f"{where} field 'data'")
        if slot >= len(self.b64ndarrays):
            raise MetadataError(
                f"{where} (relay.Constant node {index}) refers to b64ndarrays[{slot}], but there "
                f"are {len(self.b64ndarrays)}"
            )
        blob = self.b64ndarrays[slot]
        if not isinstance(blob, str):
            raise MetadataError(f"b64ndarrays[{slot}] must be a string, found {_json_kind(blob)}")
        try:
            return decode_ndarray(blob)
        except MetadataError as error:
            raise MetadataError(f"{where} (b64ndarrays[{slot}]): {error.message}") from None

    def virtual_device(self, node: _Node, index: int, where: str) -> VirtualDeviceMeta:
        """A ``VirtualDevice``'s device type, id and memory scope (each optional: unset)."""
        numbers: list[int] = []
        for name in ("device_type_int", "virtual_device_id"):
            raw = node.attrs.get(name, "-1")
            if not (isinstance(raw, str) and _SIGNED.fullmatch(raw)):
                raise MetadataError(
                    f"{where} (VirtualDevice node {index}) field {name!r} must be a small "
                    f"integer, found {json.dumps(raw)}"
                )
            numbers.append(int(raw))
        scope = ""
        if node.attrs.get("memory_scope", "0") != "0":
            slot = self.attr_index(node, index, "memory_scope", where)
            scope = self.string(slot, where, "memory_scope")
        return VirtualDeviceMeta(numbers[0], numbers[1], scope)

    def string(self, index: int, where: str, field: str = "name_hint") -> str:
        """The text of the ``runtime.String`` node at ``index`` (held by field ``field``)."""
        if index == 0:
            raise MetadataError(f"{where}: {field} is null")
        node = self.node(index)
        if node.type_key != "runtime.String":
            raise MetadataError(
                f"{where}: {field} is node {index}, a {node.type_key!r}: expected runtime.String"
            )
        if node.repr_str is not None:
            return node.repr_str
        if node.repr_b64 is not None:
            try:
                return base64.b64decode(node.repr_b64, validate=True).decode("utf-8")
            except (binascii.Error, ValueError) as error:
                raise MetadataError(
                    f"{where}: runtime.String node {index} has a bad repr_b64: {error}"
                ) from None
        return ""  # the empty string is written with neither repr key

    def attr_index(self, node: _Node, index: int, name: str, where: str) -> int:
        """The node index held by field ``name``."""
        if name not in node.attrs:
            raise MetadataError(f"{where} ({node.type_key} node {index}) has no {name!r} field")
        return self.index(node.attrs[name], f"{where} field {name!r}")

    def index(self, value: object, what: str) -> int:
        """``value`` as a node index within ``nodes``."""
        result = _parse_index(value, what)
        if result >= len(self.nodes):
            raise MetadataError(
                f"{what} refers to node {result}, but there are {len(self.nodes)} nodes"
            )
        return result

    def node(self, index: int) -> _Node:
        """The node at a valid, non-null ``index``, with its keys checked."""
        return _Node.from_json(self.nodes[index], index, self)


@dataclass(frozen=True, slots=True)
class _Node:
    """One entry of ``nodes``, validated: the keys the reader uses, in their JSON types."""

    type_key: str
    repr_str: str | None
    repr_b64: str | None
    attrs: dict[str, object]
    keys: list[str] | None
    data: list[int]

    @staticmethod
    def from_json(raw: object, index: int, reader: _GraphReader) -> _Node:
        where = f"node {index}"
        if not isinstance(raw, dict):
            raise MetadataError(f"{where} must be an object, found {_json_kind(raw)}")
        type_key = raw.get("type_key")
        if not isinstance(type_key, str):
            raise MetadataError(f"{where} has no string 'type_key'")
        repr_str = _optional_str(raw, "repr_str", where)
        repr_b64 = _optional_str(raw, "repr_b64", where)
        attrs = raw.get("attrs", {})
        if not isinstance(attrs, dict):
            raise MetadataError(f"{where} 'attrs' must be an object, found {_json_kind(attrs)}")
        keys = raw.get("keys")
        if keys is not None and not (
            isinstance(keys, list) and all(isinstance(k, str) for k in keys)
        ):
            raise MetadataError(f"{where} 'keys' must be an array of strings")
        data = raw.get("data", [])
        if not isinstance(data, list):
            raise MetadataError(f"{where} 'data' must be an array, found {_json_kind(data)}")
        indices = [reader.index(d, f"{where} data[{n}]") for n, d in enumerate(data)]
        return _Node(type_key, repr_str, repr_b64, attrs, keys, indices)


def _optional_str(raw: dict[str, object], key: str, where: str) -> str | None:
    value = raw.get(key)
    if value is None or isinstance(value, str):
        return value
    raise MetadataError(f"{where} {key!r} must be a string, found {_json_kind(value)}")


def _parse_index(value: object, what: str) -> int:
    """A non-negative index written as a decimal string (TVM) or as a JSON integer."""
    if isinstance(value, str) and _DECIMAL.fullmatch(value):
        if len(value) > _MAX_INDEX_DIGITS:  # no table is that long; int() would refuse it
            raise MetadataError(f"{what} is out of range: an index of {len(value)} digits")
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise MetadataError(f"{what} must be a non-negative index, found {json.dumps(value)}")


def _json_kind(value: object) -> str:
    """The JSON name of ``value``'s type, for messages."""
    match value:
        case None:
            return "null"
        case bool():
            return "a boolean"
        case int() | float():
            return "a number"
        case str():
            return "a string"
        case list():
            return "an array"
        case dict():
            return "an object"
        case _:
            return type(value).__name__


# ---------------------------------------------------------------------------------------------
# Writing (reference §5.2, whitespace from dmlc-core's include/dmlc/json.h)

_TVM_VERSION = "0.18.0"
# dmlc's WriteString escapes exactly these; anything else, control characters included, is raw.
_DMLC_ESCAPES = str.maketrans({"\r": "\\r", "\n": "\\n", "\\": "\\\\", "\t": "\\t", '"': '\\"'})


class _DmlcJsonWriter:
    """dmlc::JSONWriter method for method: TVM's whitespace is exactly what this class writes.

    A scope is multi-line or not; in a multi-line scope every item starts on a new line indented
    two spaces per open scope, and items are separated by ``", "`` written *before* that
    newline, which is why those lines end in a space.
    """

    def __init__(self) -> None:
        self.out: list[str] = []
        self.multi_line: list[bool] = []
        self.counts: list[int] = []

    def separator(self) -> None:
        if not self.multi_line or self.multi_line[-1]:
            self.out.append("\n" + "  " * len(self.multi_line))

    def begin(self, bracket: str, multi_line: bool) -> None:
        self.out.append(bracket)
        self.multi_line.append(multi_line)
        self.counts.append(0)

    def end(self, bracket: str) -> None:
        # As in dmlc, the scope is popped first, so the closing line is indented to the
        # enclosing level (and only broken when the enclosing scope is multi-line).
        multi_line = self.multi_line.pop()
        count = self.counts.pop()
        if multi_line and count != 0:
            self.separator()
        self.out.append(bracket)

    def key(self, key: str) -> None:
        """WriteObjectKeyValue up to the value; dmlc writes the key without escaping."""
        if self.counts[-1] != 0:
            self.out.append(", ")
        self.separator()
        self.out.append(f'"{key}": ')
        self.counts[-1] += 1

    def item(self) -> None:
        """WriteArrayItem up to the value."""
        if self.counts[-1] != 0:
            self.out.append(", ")
        self.counts[-1] += 1
        self.separator()

    def string(self, s: str) -> None:
        self.out.append('"' + s.translate(_DMLC_ESCAPES) + '"')

    def number(self, n: int) -> None:
        self.out.append(str(n))

    def strings(self, items: Sequence[str]) -> None:
        """A vector of strings: not POD, so always multi-line."""
        self.begin("[", True)
        for s in items:
            self.item()
            self.string(s)
        self.end("]")

    def numbers(self, items: Sequence[int]) -> None:
        """A vector of integers: POD, so on one line unless longer than 10."""
        self.begin("[", len(items) > 10)
        for n in items:
            self.item()
            self.number(n)
        self.end("]")

    def string_map(self, entries: dict[str, str]) -> None:
        """A std::map<string, string>: sorted by key, on one line when it has one entry."""
        self.begin("{", len(entries) > 1)
        for k in sorted(entries):
            self.key(k)
            self.string(entries[k])
        self.end("}")

    def text(self) -> str:
        return "".join(self.out)


@dataclass(frozen=True, slots=True)
class _JsonNode:
    """A node as TVM's JSONNode holds it before saving."""

    type_key: str
    attrs: dict[str, str] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    data: list[int] = field(default_factory=list)

    def save(self, w: _DmlcJsonWriter) -> None:
        """JSONNode::Save: each key only when non-empty (no node here has a repr)."""
        w.begin("{", True)
        w.key("type_key")
        w.string(self.type_key)
        if self.attrs:
            w.key("attrs")
            w.string_map(self.attrs)
        if self.keys:
            w.key("keys")
            w.strings(self.keys)
        if self.data:
            w.key("data")
            w.numbers(self.data)
        w.end("}")


def write_metadata(constants: Sequence[npt.NDArray[np.generic]]) -> str:
    """The text TVM v0.18.0's ``AsText`` prints after ``#[metadata]\\n`` for the meta table
    ``{"relay.Constant": [c0, c1, ...]}`` of untyped, span-less constants (no trailing newline).

    Node numbering is depth-first pre-order: 0 null, 1 the Map, 2 the Array, 3 the first
    Constant, 4 its VirtualDevice, 5 that one's empty ``memory_scope`` String, then the other
    Constants. Every Constant built by ``relay.Constant`` points at the same static
    ``VirtualDevice::FullyUnconstrained()`` object, and a shared object gets one index, so the
    later Constants all refer to node 4 too. Constant ``i`` holds ``b64ndarrays[i]``.

    With no constants the result is that same map with an empty Array (TVM itself prints no
    metadata section for an empty table, so this text is SaveJSON's, not AsText's).
    """
    virtual_device = _JsonNode(
        "VirtualDevice",
        attrs={
            "device_type_int": "-1",
            "virtual_device_id": "-1",
            "target": "0",
            "memory_scope": "5",
        },
    )
    constant_nodes: list[_JsonNode] = []
    constant_ids: list[int] = []
    for i in range(len(constants)):
        constant_ids.append(3 + len(constant_nodes))
        constant_nodes.append(
            _JsonNode(
                "relay.Constant",
                attrs={"data": str(i), "virtual_device_": "4", "span": "0", "_checked_type_": "0"},
            )
        )
        if i == 0:  # the shared VirtualDevice is numbered where it is first reached
            constant_nodes += [virtual_device, _JsonNode("runtime.String")]
    nodes = [
        _JsonNode(""),
        _JsonNode("Map", keys=["relay.Constant"], data=[2]),
        _JsonNode("Array", data=constant_ids),
        *constant_nodes,
    ]

    # JSONGraph::Save
    w = _DmlcJsonWriter()
    w.begin("{", True)
    w.key("root")
    w.number(1)
    w.key("nodes")
    w.begin("[", True)
    for node in nodes:
        w.item()
        node.save(w)
    w.end("]")
    w.key("b64ndarrays")
    w.strings([encode_ndarray(c) for c in constants])
    w.key("attrs")
    w.string_map({"tvm_version": _TVM_VERSION})
    w.end("}")
    return w.text()
