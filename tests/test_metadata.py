"""Tests for TVM's ``#[metadata]`` section: NDArray blobs, reading and writing the JSON graph.

The worked example of the reference (§5.4) is checked byte for byte; everything else is
checked by bit-exact round trips and by malformed inputs that must raise ``MetadataError``.
"""

from __future__ import annotations

import base64
import json
import struct

import numpy as np
import numpy.typing as npt
import pytest
import sympy

from relay.semantics.text.metadata import (
    MetadataError,
    OpaqueMetaNode,
    decode_ndarray,
    encode_ndarray,
    parse_metadata,
    write_metadata,
)

# ---------------------------------------------------------------------------------------------
# The worked example (reference §5.4)

FLOAT32_1_2_B64 = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAACAPwAAAEA="
INT8_MINUS_3_B64 = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAAAAAAAIAQABAAAAAAAAAP0="

# As in the reference, "␠" marks the trailing space that ends a line.
WORKED_EXAMPLE = """\
{
  "root": 1,␠
  "nodes": [
    {
      "type_key": ""
    },␠
    {
      "type_key": "Map",␠
      "keys": [
        "relay.Constant"
      ],␠
      "data": [2]
    },␠
    {
      "type_key": "Array",␠
      "data": [3]
    },␠
    {
      "type_key": "relay.Constant",␠
      "attrs": {
        "_checked_type_": "0",␠
        "data": "0",␠
        "span": "0",␠
        "virtual_device_": "4"
      }
    },␠
    {
      "type_key": "VirtualDevice",␠
      "attrs": {
        "device_type_int": "-1",␠
        "memory_scope": "5",␠
        "target": "0",␠
        "virtual_device_id": "-1"
      }
    },␠
    {
      "type_key": "runtime.String"
    }
  ],␠
  "b64ndarrays": [
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAACAPwAAAEA="
  ],␠
  "attrs": {"tvm_version": "0.18.0"}
}""".replace("␠", " ")


def test_float32_blob_matches_worked_example() -> None:
    a = np.array([1.0, 2.0], dtype=np.float32)
    expected_bytes = bytes.fromhex(
        "3fa1b496f0405edd"  # magic
        "0000000000000000"  # reserved
        "0100000000000000"  # device type 1 (CPU), device id 0
        "0100000002200100"  # ndim 1 | code 2, bits 32, lanes 1
        "0200000000000000"  # shape[0] = 2
        "0800000000000000"  # byte size 8
        "0000803f00000040"  # 1.0f, 2.0f
    )
    assert base64.b64decode(encode_ndarray(a)) == expected_bytes
    assert encode_ndarray(a) == FLOAT32_1_2_B64
    decoded = decode_ndarray(FLOAT32_1_2_B64)
    assert decoded.dtype == np.float32 and decoded.shape == (2,)
    assert decoded.tolist() == [1.0, 2.0]


def test_int8_scalar_blob_matches_worked_example() -> None:
    a = np.array(-3, dtype=np.int8)
    assert len(base64.b64decode(encode_ndarray(a))) == 41
    assert encode_ndarray(a) == INT8_MINUS_3_B64
    decoded = decode_ndarray(INT8_MINUS_3_B64)
    assert isinstance(decoded, np.ndarray)
    assert decoded.dtype == np.int8 and decoded.shape == ()
    assert int(decoded) == -3


def test_write_metadata_matches_worked_example() -> None:
    text = write_metadata([np.array([1.0, 2.0], dtype=np.float32)])
    assert text == WORKED_EXAMPLE
    assert text.count(", \n") == 19 and not text.endswith("\n")  # 19 ␠ in the reference


# ---------------------------------------------------------------------------------------------
# NDArray round trips


def _float_specials(dtype: npt.DTypeLike) -> npt.NDArray[np.generic]:
    """Values whose bits a careless codec changes: NaN payloads, signalling NaN, -0.0, ±inf."""
    dt = np.dtype(dtype)
    uint = np.dtype(f"u{dt.itemsize}")
    bits = 8 * dt.itemsize
    mantissa = {16: 10, 32: 23, 64: 52}[bits]
    exponent_all_ones = ((1 << (bits - 1 - mantissa)) - 1) << mantissa
    sign = 1 << (bits - 1)
    quiet = 1 << (mantissa - 1)
    nan_bits = [
        exponent_all_ones | quiet | 0x5,  # quiet NaN with a payload
        exponent_all_ones | 0x1,  # signalling NaN
        sign | exponent_all_ones | quiet | 0x2A,  # negative NaN with a payload
    ]
    nans = np.array(nan_bits, dtype=uint).view(dt)
    finfo = np.finfo(dt)
    others = np.array(
        [-0.0, 0.0, np.inf, -np.inf, finfo.max, finfo.min, finfo.smallest_subnormal, 1.5],
        dtype=dt,
    )
    return np.concatenate([nans, others])


def _specials(dtype: npt.DTypeLike) -> npt.NDArray[np.generic]:
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([True, False, False, True, True], dtype=dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dt)
    return _float_specials(dt)


DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
]
SHAPES = [(), (7,), (3, 4), (2, 3, 2)]


def _example(dtype: str, shape: tuple[int, ...]) -> npt.NDArray[np.generic]:
    return np.resize(_specials(dtype), shape)


def _assert_bit_exact(actual: npt.NDArray[np.generic], expected: npt.NDArray[np.generic]) -> None:
    assert isinstance(actual, np.ndarray)
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    assert actual.tobytes() == expected.tobytes()


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"rank{len(s)}")
@pytest.mark.parametrize("dtype", DTYPES)
def test_ndarray_round_trip_is_bit_exact(dtype: str, shape: tuple[int, ...]) -> None:
    a = _example(dtype, shape)
    decoded = decode_ndarray(encode_ndarray(a))
    _assert_bit_exact(decoded, a)
    assert decoded.flags.owndata and decoded.flags.c_contiguous
    assert decoded.dtype.isnative


def test_float_specials_survive() -> None:
    # Spelled out once, so that a failure names the value rather than a byte string.
    a = _float_specials(np.float32)
    decoded = decode_ndarray(encode_ndarray(a))
    assert decoded.view(np.uint32).tolist() == a.view(np.uint32).tolist()
    assert np.signbit(decoded[3]) and decoded[3] == 0.0  # -0.0
    assert decoded[5] == np.inf and decoded[6] == -np.inf


def test_encode_accepts_any_layout_and_byte_order() -> None:
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    for variant in (a.T, a[:, ::2], a.astype(">f8"), np.asfortranarray(a)):
        decoded = decode_ndarray(encode_ndarray(variant))
        expected = np.ascontiguousarray(variant, dtype=np.float64)
        _assert_bit_exact(decoded, expected)
    big = np.array([1, -2], dtype=">i4")
    assert encode_ndarray(big) == encode_ndarray(np.array([1, -2], dtype="<i4"))


def test_bool_is_code_1_bits_1_one_byte_per_element() -> None:
    blob = base64.b64decode(encode_ndarray(np.array([True, False, True])))
    assert blob[28:32] == bytes([1, 1, 1, 0])
    (byte_size,) = struct.unpack_from("<q", blob, 40)
    assert byte_size == 3 and blob[48:] == b"\x01\x00\x01"


def test_zero_size_array_round_trips() -> None:
    a = np.zeros((0, 3), dtype=np.int16)
    _assert_bit_exact(decode_ndarray(encode_ndarray(a)), a)


def test_encode_rejects_unsupported_dtype() -> None:
    for a in (np.array([1 + 2j]), np.array(["x"]), np.array([1.0], dtype=np.longdouble)):
        if a.dtype == np.float64:  # longdouble is float64 on some platforms
            continue
        with pytest.raises(MetadataError, match="cannot encode an NDArray of dtype"):
            encode_ndarray(a)


# ---------------------------------------------------------------------------------------------
# Malformed NDArray blobs


def _blob(
    *,
    magic: int = 0xDD5E40F096B4A13F,
    device_type: int = 1,
    ndim: int = 1,
    code: int = 2,
    bits: int = 32,
    lanes: int = 1,
    shape: tuple[int, ...] = (2,),
    byte_size: int = 8,
    data: bytes = b"\x00\x00\x80\x3f\x00\x00\x00\x40",
) -> str:
    raw = struct.pack("<QQiiiBBH", magic, 0, device_type, 0, ndim, code, bits, lanes)
    raw += struct.pack(f"<{len(shape)}q", *shape) + struct.pack("<q", byte_size) + data
    return base64.b64encode(raw).decode("ascii")


def test_blob_helper_builds_the_worked_example() -> None:
    assert _blob() == FLOAT32_1_2_B64


@pytest.mark.parametrize(
    ("b64", "message"),
    [
        ("not base64!", "not valid base64"),
        ("P6G0lvBAXt0", "not valid base64"),  # missing padding
        (_blob(magic=0xDD5E40F096B4A13E), "bad magic 0xDD5E40F096B4A13E"),
        (_blob(device_type=2), "device type 2: expected 1 (CPU)"),
        (_blob(code=4, bits=16, byte_size=4, data=b"\x00" * 4), "dtype code 4 (bfloat)"),
        (_blob(code=2, bits=128, byte_size=32, data=b"\x00" * 32), "dtype code 2"),
        (_blob(code=3, bits=64, byte_size=16, data=b"\x00" * 16), "(handle)"),
        (_blob(lanes=4), "4 lanes"),
        (_blob(byte_size=12), "byte size 12: shape [2] of float32 needs 8"),
        (_blob(data=b"\x00" * 4, byte_size=8), "truncated: expected 8 data bytes, found 4"),
        (_blob(data=b"\x00" * 9), "1 trailing bytes"),
        (_blob(ndim=-1, shape=()), "negative ndim"),
        (_blob(shape=(-2,)), "negative dimension"),
        (_blob(ndim=3, shape=(2,), byte_size=8), "truncated: expected 3 shape entries"),
        (_blob(ndim=70, shape=(1,) * 70, byte_size=4, data=b"\x00" * 4), "dimension"),
        (base64.b64encode(b"\x3f\xa1\xb4\x96").decode(), "truncated: expected a 32-byte header"),
        ("", "truncated"),
    ],
)
def test_decode_rejects_malformed_blob(b64: str, message: str) -> None:
    with pytest.raises(MetadataError) as info:
        decode_ndarray(b64)
    assert message in info.value.message
    assert info.value.line is None and info.value.column is None


# ---------------------------------------------------------------------------------------------
# parse_metadata


def test_parse_of_write_is_bit_exact() -> None:
    constants = [_example(dtype, shape) for dtype in DTYPES for shape in SHAPES]
    table = parse_metadata(write_metadata(constants))
    assert list(table) == ["relay.Constant"]
    assert len(table["relay.Constant"]) == len(constants)
    for actual, expected in zip(table["relay.Constant"], constants, strict=True):
        assert isinstance(actual, np.ndarray)
        _assert_bit_exact(actual, expected)


def test_write_shares_the_virtual_device_between_constants() -> None:
    # Every Constant points at the one static FullyUnconstrained VirtualDevice, and SaveJSON
    # gives a shared object one index: node 4, right after the first Constant.
    document = json.loads(write_metadata([np.array(1.0), np.array(2.0), np.array(3.0)]))
    nodes = document["nodes"]
    assert [n["type_key"] for n in nodes] == [
        "",
        "Map",
        "Array",
        "relay.Constant",
        "VirtualDevice",
        "runtime.String",
        "relay.Constant",
        "relay.Constant",
    ]
    assert nodes[2]["data"] == [3, 6, 7]
    assert [nodes[i]["attrs"]["virtual_device_"] for i in (3, 6, 7)] == ["4", "4", "4"]
    assert [nodes[i]["attrs"]["data"] for i in (3, 6, 7)] == ["0", "1", "2"]


def test_write_long_array_goes_multi_line() -> None:
    text = write_metadata([np.array(i, dtype=np.int32) for i in range(11)])
    assert '"data": [\n        3, \n        6, \n' in text
    assert '"data": [3, 6, 7, 8, 9, 10, 11, 12, 13, 14]' in write_metadata(
        [np.array(i, dtype=np.int32) for i in range(10)]
    )


def test_write_empty_table() -> None:
    text = write_metadata([])
    assert text == (
        '{\n  "root": 1, \n  "nodes": [\n    {\n      "type_key": ""\n    }, \n'
        '    {\n      "type_key": "Map", \n      "keys": [\n        "relay.Constant"\n'
        '      ], \n      "data": [2]\n    }, \n    {\n      "type_key": "Array"\n    }\n'
        '  ], \n  "b64ndarrays": [], \n  "attrs": {"tvm_version": "0.18.0"}\n}'
    )
    assert parse_metadata(text) == {"relay.Constant": []}


# A typed Constant, a SizeVar, a Var whose name is base64, an attrs node, and a Constant as
# older TVM wrote it (no virtual_device_), numbered as SaveJSON would number them.
HAND_WRITTEN = {
    "root": 1,
    "nodes": [
        {"type_key": ""},
        {
            "type_key": "Map",
            "keys": ["relay.Constant", "tir.SizeVar", "tir.Var", "relay.attrs.Conv2DAttrs"],
            "data": [2, 10, 14, 18],
        },
        {"type_key": "Array", "data": [3, 9]},
        {
            "type_key": "relay.Constant",
            "attrs": {
                "_checked_type_": "6",
                "data": "0",
                "span": "0",
                "virtual_device_": "4",
            },
        },
        {
            "type_key": "VirtualDevice",
            "attrs": {
                "device_type_int": "-1",
                "memory_scope": "5",
                "target": "0",
                "virtual_device_id": "-1",
            },
        },
        {"type_key": "runtime.String"},
        {"type_key": "relay.TensorType", "attrs": {"dtype": "float32", "shape": "7", "span": "0"}},
        {"type_key": "Array", "data": [8]},
        {"type_key": "IntImm", "attrs": {"dtype": "int32", "span": "0", "value": "2"}},
        {"type_key": "relay.Constant", "attrs": {"_checked_type_": "0", "data": "1", "span": "0"}},
        {"type_key": "Array", "data": [11]},
        {
            "type_key": "tir.SizeVar",
            "attrs": {"dtype": "int32", "name_hint": "12", "span": "0", "type_annotation": "13"},
        },
        {"type_key": "runtime.String", "repr_str": "n"},
        {"type_key": "PrimType", "attrs": {"dtype": "int32", "span": "0"}},
        {"type_key": "Array", "data": [15, 11]},
        {
            "type_key": "tir.Var",
            "attrs": {"dtype": "int64", "name_hint": "16", "span": "0", "type_annotation": "17"},
        },
        {"type_key": "runtime.String", "repr_b64": base64.b64encode(b"batch").decode()},
        {"type_key": "PrimType", "attrs": {"dtype": "int64", "span": "0"}},
        {"type_key": "Array", "data": [19]},
        {"type_key": "relay.attrs.Conv2DAttrs", "attrs": {"channels": "0"}},
    ],
    "b64ndarrays": [FLOAT32_1_2_B64, INT8_MINUS_3_B64],
    "attrs": {"tvm_version": "0.18.0"},
}


def test_parse_hand_written_tvm_json() -> None:
    table = parse_metadata(json.dumps(HAND_WRITTEN, indent=2))
    assert list(table) == ["relay.Constant", "tir.SizeVar", "tir.Var", "relay.attrs.Conv2DAttrs"]
    typed, untyped = table["relay.Constant"]
    assert isinstance(typed, np.ndarray) and isinstance(untyped, np.ndarray)
    _assert_bit_exact(typed, np.array([1.0, 2.0], dtype=np.float32))
    _assert_bit_exact(untyped, np.array(-3, dtype=np.int8))
    (n,) = table["tir.SizeVar"]
    assert n == sympy.Symbol("n", integer=True, nonnegative=True)
    assert isinstance(n, sympy.Symbol) and n.is_integer and n.is_nonnegative
    batch, same_n = table["tir.Var"]
    assert batch == sympy.Symbol("batch", integer=True, nonnegative=True)
    assert same_n is n  # a shared node is decoded once
    assert table["relay.attrs.Conv2DAttrs"] == [OpaqueMetaNode("relay.attrs.Conv2DAttrs")]


@pytest.mark.parametrize(
    "name",
    ["", "1), float32]) { %x }\ndef @evil(%x: Tensor[(1", "let", "True", "_", "a b", "inff", "2n"],
)
def test_a_shape_variable_name_must_be_an_identifier(name: str) -> None:
    # The name is printed as a dimension: an empty one would drop a dimension, others would
    # inject text into the printed module.
    document = json.loads(json.dumps(HAND_WRITTEN))
    document["nodes"][12] = {"type_key": "runtime.String", "repr_str": name}
    with pytest.raises(MetadataError, match="is not an identifier"):
        parse_metadata(json.dumps(document))


def test_invalid_json_has_line_and_column() -> None:
    with pytest.raises(MetadataError) as info:
        parse_metadata('\n{\n  "root": 1, \n  "nodes": [\n}')
    assert info.value.message.startswith("metadata is not valid JSON")
    assert (info.value.line, info.value.column) == (5, 1)
    assert str(info.value).startswith("5:1: ")


def _mutated(change: str) -> str:
    """HAND_WRITTEN with one defect, as JSON text."""
    document = json.loads(json.dumps(HAND_WRITTEN))
    nodes = document["nodes"]
    match change:
        case "missing root":
            del document["root"]
        case "missing nodes":
            del document["nodes"]
        case "root out of range":
            document["root"] = 99
        case "root null":
            document["root"] = 0
        case "root not a map":
            document["root"] = 2
        case "index out of range":
            nodes[2]["data"] = [3, 99]
        case "attr index out of range":
            nodes[11]["attrs"]["name_hint"] = "99"
        case "ndarray index out of range":
            nodes[3]["attrs"]["data"] = "7"
        case "bad index text":
            nodes[3]["attrs"]["data"] = "-1"
        case "bad magic":
            raw = bytearray(base64.b64decode(FLOAT32_1_2_B64))
            raw[0] ^= 0xFF
            document["b64ndarrays"][0] = base64.b64encode(bytes(raw)).decode()
        case "truncated blob":
            document["b64ndarrays"][1] = INT8_MINUS_3_B64[:-4]
        case "value not an array":
            nodes[1]["data"][1] = 11
        case "keys and data differ":
            nodes[1]["data"] = [2]
        case "keys not strings":
            nodes[1]["keys"][0] = 5
        case "constant without data":
            del nodes[9]["attrs"]["data"]
        case "name not a string":
            nodes[11]["attrs"]["name_hint"] = "13"
        case "null entry":
            nodes[2]["data"] = [3, 0]
        case "node not an object":
            nodes[3] = "relay.Constant"
        case "nodes not a list":
            document["nodes"] = {"0": {}}
        case "b64ndarrays not a list":
            document["b64ndarrays"] = FLOAT32_1_2_B64
        case "unkeyed map":
            del nodes[1]["keys"]
        case _:
            raise AssertionError(change)
    return json.dumps(document)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("missing root", "has no 'root'"),
        ("missing nodes", "has no 'nodes'"),
        ("root out of range", "root refers to node 99, but there are 20 nodes"),
        ("root null", "root is null"),
        ("root not a map", "is a 'Array': expected a Map"),
        ("index out of range", "node 2 data[1] refers to node 99"),
        ("attr index out of range", "field 'name_hint' refers to node 99"),
        ("ndarray index out of range", "refers to b64ndarrays[7], but there are 2"),
        ("bad index text", 'must be a non-negative index, found "-1"'),
        ("bad magic", "meta[relay.Constant][0] (b64ndarrays[0]): NDArray blob has bad magic"),
        ("truncated blob", "meta[relay.Constant][1] (b64ndarrays[1]): NDArray blob truncated"),
        ("value not an array", "maps to node 11, a 'tir.SizeVar': expected an Array"),
        ("keys and data differ", "has 4 keys but 1 values"),
        ("keys not strings", "'keys' must be an array of strings"),
        ("constant without data", "has no 'data' field"),
        ("name not a string", "a 'PrimType': expected runtime.String"),
        ("null entry", "meta[relay.Constant][1] is null"),
        ("node not an object", "node 3 must be an object, found a string"),
        ("nodes not a list", "'nodes' must be an array, found an object"),
        ("b64ndarrays not a list", "'b64ndarrays' must be an array, found a string"),
        ("unkeyed map", "not a string-keyed Map"),
    ],
)
def test_parse_rejects_malformed_graph(change: str, message: str) -> None:
    with pytest.raises(MetadataError) as info:
        parse_metadata(_mutated(change))
    assert message in info.value.message


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[1, 2]",
        "null",
        '"root"',
        "[" * 100_000,
        '{"root": 1, "nodes": [], "x": ' + "9" * 5000,
        '{"root": "' + "9" * 5000 + '", "nodes": []}',
        '{"root": ' + "9" * 5000 + ', "nodes": []}',
        '{"root": 1e999, "nodes": []}',
        '{"root": NaN, "nodes": []}',
    ],
)
def test_parse_never_raises_another_exception(text: str) -> None:
    with pytest.raises(MetadataError):
        parse_metadata(text)
