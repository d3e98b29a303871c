"""The dynamic (``dyn.*``) and quantized operators: relations, shape functions, references.

Relations are checked on examples (good and bad, with their messages); shape functions
against the static operator's relation on the same values; references on hand-computed
examples, against onnxruntime (Expand, ConstantOfShape, QuantizeLinear, DequantizeLinear) and
against independent formulations (the static reshape, Python slicing, exact rational
arithmetic for fixed-point multiplication).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import RelayRuntimeError, UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.qnn import DequantizeAttrs, FixedPointMultiplyAttrs, QuantizeAttrs
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.ops.transform import InitOpAttrs, ReshapeAttrs, StridedSliceAttrs
from relay.semantics.syntax import ANY, TensorType, Type, dim_symbol

Array = npt.NDArray[Any]
n = dim_symbol("n")

DYN = ("dyn.reshape", "dyn.broadcast_to", "dyn.zeros", "dyn.ones", "dyn.full")
DYN_ALL = (*DYN, "dyn.strided_slice")
QNN = ("qnn.quantize", "qnn.dequantize", "fixed_point_multiply")


def T(shape: tuple[Any, ...], dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


def rel(op: str, attrs: Attrs | None, *args: Type) -> Type:
    relation = OPS[op].relation
    assert relation is not None
    return relation(tuple(args), attrs)


def ref(op: str, attrs: Attrs | None, *args: Array) -> Array:
    reference = OPS[op].reference
    assert reference is not None
    out = reference(tuple(args), attrs)
    assert isinstance(out, np.ndarray)
    return out


def shape_func(op: str, attrs: Attrs | None, *args: Array) -> tuple[int, ...]:
    func = OPS[op].shape_func
    assert func is not None
    out = func(tuple(args), attrs)
    return tuple(int(d) for d in out)  # type: ignore[arg-type]


def vec(*values: int, dtype: str = "int64") -> Array:
    return np.asarray(values, dtype=dtype).reshape(-1)


RESHAPE = ReshapeAttrs.from_kwargs({"newshape": ()})
INIT = InitOpAttrs.from_kwargs({"shape": None, "dtype": ""})
SLICE = StridedSliceAttrs.from_kwargs({"begin": None, "end": None, "strides": None, "axes": None})


def init(dtype: str) -> InitOpAttrs:
    return InitOpAttrs.from_kwargs({"shape": None, "dtype": dtype})


@pytest.mark.parametrize("name", DYN_ALL + QNN)
def test_records(name: str) -> None:
    op = OPS[name]
    assert op.relation is not None and op.reference is not None
    assert op.family == ("dynamic" if name.startswith("dyn.") else "quantized")
    assert op.check.startswith(("onnxruntime:", "independent:"))
    assert (op.shape_func is not None) == name.startswith("dyn.")


# ---------------------------------------------------------------------------------------------
# Relations


def test_dynamic_relations_give_unknown_dims_of_static_rank() -> None:
    assert rel("dyn.reshape", RESHAPE, T((2, 3)), T((3,), "int64")) == T((ANY, ANY, ANY))
    assert rel("dyn.broadcast_to", INIT, T((1, n), "int8"), T((3,), "int32")) == T(
        (ANY, ANY, ANY), "int8"
    )
    assert rel("dyn.zeros", init("int32"), T((2,), "int64")) == T((ANY, ANY), "int32")
    assert rel("dyn.full", INIT, T((), "uint8"), T((0,), "int64")) == T((), "uint8")
    assert rel("dyn.full", init("float16"), T((), "int8"), T((1,), "int64")) == T((ANY,), "float16")
    got = rel("dyn.strided_slice", SLICE, T((4, n, 5)), *[T((2,), "int64")] * 3)
    assert got == T((ANY, ANY, 5))


@pytest.mark.parametrize(
    ("op", "attrs", "args", "message"),
    [
        ("dyn.reshape", RESHAPE, (T((2,)), T((ANY,), "int64")), "expected a static length"),
        ("dyn.reshape", RESHAPE, (T((2,)), T((2, 1), "int64")), "expected a rank-1 tensor"),
        ("dyn.reshape", RESHAPE, (T((2,)), T((2,), "float32")), "expected an integer dtype"),
        ("dyn.broadcast_to", INIT, (T((2, 3)), T((1,), "int64")), "cannot broadcast a rank-2"),
        ("dyn.zeros", INIT, (T((2,), "int64"),), 'expected a dtype attribute, found ""'),
        ("dyn.full", INIT, (T((2,)), T((2,), "int64")), "expected a scalar fill_value"),
        (
            "dyn.strided_slice",
            SLICE,
            (T((4, 4)), T((2,), "int64"), T((1,), "int64"), T((2,), "int64")),
            "same length, found 2, 1 and 2",
        ),
        (
            "dyn.strided_slice",
            SLICE,
            (T((4,)), T((2,), "int64"), T((2,), "int64"), T((2,), "int64")),
            "at most 1 sliced axes",
        ),
    ],
)
def test_dynamic_relation_errors(
    op: str, attrs: Attrs, args: tuple[Type, ...], message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(op, attrs, *args)


def q_attrs(out_dtype: str, axis: int = -1) -> QuantizeAttrs:
    return QuantizeAttrs.from_kwargs({"out_dtype": out_dtype, "axis": axis})


def dq_attrs(axis: int = -1, out_dtype: str = "float32") -> DequantizeAttrs:
    return DequantizeAttrs.from_kwargs({"out_dtype": out_dtype, "axis": axis})


def test_quantize_relations() -> None:
    f32, i32 = T((), "float32"), T((), "int32")
    assert rel("qnn.quantize", q_attrs("uint8"), T((2, 3)), f32, i32) == T((2, 3), "uint8")
    assert rel("qnn.quantize", q_attrs("int8", 0), T((2, 3)), T((2,)), T((2,), "int32")) == T(
        (2, 3), "int8"
    )
    assert rel("qnn.dequantize", dq_attrs(), T((n, 4), "int8"), T((1,)), i32) == T((n, 4))
    fpm = FixedPointMultiplyAttrs.from_kwargs({"multiplier": 1 << 30, "shift": 0})
    assert rel("fixed_point_multiply", fpm, T((3,), "int32")) == T((3,), "int32")


@pytest.mark.parametrize(
    ("op", "attrs", "args", "message"),
    [
        ("qnn.quantize", q_attrs("int8"), (T((2,), "float64"), T(()), T((), "int32")), "float32"),
        ("qnn.quantize", q_attrs("int64"), (T((2,)), T(()), T((), "int32")), 'found "int64"'),
        ("qnn.quantize", q_attrs("int8", 2), (T((2,)), T(()), T((), "int32")), "axis 2 is out"),
        (
            "qnn.quantize",
            q_attrs("int8", 1),
            (T((2, 3)), T((2,)), T((), "int32")),
            "expected 3 values for output_scale",
        ),
        (
            "qnn.dequantize",
            dq_attrs(),
            (T((2,), "float32"), T(()), T((), "int32")),
            "expected data",
        ),
        (
            "qnn.dequantize",
            dq_attrs(),
            (T((2,), "int8"), T(()), T(())),
            "expected int32 for input_z",
        ),
        (
            "qnn.dequantize",
            dq_attrs(out_dtype="int8"),
            (T((2,), "int8"), T(()), T((), "int32")),
            "float16",
        ),
    ],
)
def test_quantize_relation_errors(
    op: str, attrs: Attrs, args: tuple[Type, ...], message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(op, attrs, *args)


def test_fixed_point_multiply_needs_int32() -> None:
    fpm = FixedPointMultiplyAttrs.from_kwargs({"multiplier": 1 << 30, "shift": 0})
    with pytest.raises(RelationError, match="expected int32 data, found int64"):
        rel("fixed_point_multiply", fpm, T((3,), "int64"))


# ---------------------------------------------------------------------------------------------
# Dynamic references and shape functions


def test_dyn_reshape_examples_from_tvm() -> None:
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for newshape, expected in [
        ((4, 0, 2), (4, 3, 2)),
        ((2, 0, 0), (2, 3, 4)),
        ((6, 1, -1), (6, 1, 4)),
        ((3, -1, 8), (3, 1, 8)),
        ((-1,), (24,)),
        ((-3, 4), (6, 4)),
        ((0, -3), (2, 12)),
    ]:
        out = ref("dyn.reshape", RESHAPE, data, vec(*newshape))
        assert out.shape == expected
        np.testing.assert_array_equal(out.reshape(-1), data.reshape(-1))
    allowzero = ReshapeAttrs.from_kwargs({"newshape": (), "allowzero": True})
    empty = np.zeros((0, 3), np.int8)
    assert ref("dyn.reshape", allowzero, empty, vec(3, 0)).shape == (3, 0)


def test_dyn_reshape_failures() -> None:
    data = np.zeros((2, 3), np.float32)
    with pytest.raises(RelayRuntimeError, match="-2"):
        ref("dyn.reshape", RESHAPE, data, vec(-2))
    with pytest.raises(RelayRuntimeError, match="one and only one"):
        ref("dyn.reshape", RESHAPE, data, vec(-1, -1))
    with pytest.raises(RelayRuntimeError, match="-3"):
        ref("dyn.reshape", RESHAPE, data, vec(2, -3))
    with pytest.raises(UndefinedBehavior, match="cannot reshape"):
        ref("dyn.reshape", RESHAPE, data, vec(4, 2))
    with pytest.raises(UndefinedBehavior, match="copies input dimension 2"):
        ref("dyn.reshape", RESHAPE, data, vec(6, 1, 0))


def test_dyn_creation_and_broadcast_examples() -> None:
    np.testing.assert_array_equal(
        ref("dyn.ones", init("int16"), vec(2, 1)), np.ones((2, 1), np.int16)
    )
    out = ref("dyn.full", init("int32"), np.asarray(2.75, np.float32), vec(3, dtype="int32"))
    np.testing.assert_array_equal(out, np.asarray([2, 2, 2], np.int32))
    data = np.asarray([[1], [2]], np.int8)
    np.testing.assert_array_equal(
        ref("dyn.broadcast_to", INIT, data, vec(2, 2)), np.asarray([[1, 1], [2, 2]], np.int8)
    )
    with pytest.raises(UndefinedBehavior, match="cannot broadcast"):
        ref("dyn.broadcast_to", INIT, data, vec(3, 2))
    with pytest.raises(UndefinedBehavior, match="negative size"):
        ref("dyn.zeros", init("float32"), vec(2, -1))


def test_dyn_strided_slice_examples() -> None:
    x = np.asarray([[1, 4, 7, 10], [2, 5, 8, 11], [3, 6, 9, 12]], np.float32)
    out = ref("dyn.strided_slice", SLICE, x, vec(0, 1), vec(2, 4), vec(1, 1))
    np.testing.assert_array_equal(out, [[4, 7, 10], [5, 8, 11]])
    out = ref("dyn.strided_slice", SLICE, x, vec(2), vec(0), vec(-1))
    np.testing.assert_array_equal(out, [[3, 6, 9, 12], [2, 5, 8, 11]])
    with pytest.raises(RelayRuntimeError, match="strides can't be zero"):
        ref("dyn.strided_slice", SLICE, x, vec(0), vec(2), vec(0))
    with pytest.raises(UndefinedBehavior, match="negative extent"):
        ref("dyn.strided_slice", SLICE, x, vec(2), vec(1), vec(1))


@settings(max_examples=60)
@given(
    shape=st.lists(st.integers(1, 4), max_size=3),
    tokens=st.lists(st.sampled_from([0, -1, -3, 1, 2, 3, 4, 6]), max_size=4),
)
def test_dyn_reshape_agrees_with_static_reshape(shape: list[int], tokens: list[int]) -> None:
    data = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
    static = ReshapeAttrs.from_kwargs({"newshape": tuple(tokens)})
    try:
        expected = rel("reshape", static, T(tuple(shape), "int32"))
    except RelationError:
        expected = None
    try:
        out = ref("dyn.reshape", RESHAPE, data, vec(*tokens))
    except (RelayRuntimeError, UndefinedBehavior):
        assert expected is None or -1 in tokens or len(tokens) > len(shape)
        return
    assert out.shape == shape_func("dyn.reshape", RESHAPE, data, vec(*tokens))
    assert expected is not None and isinstance(expected, TensorType)
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out, ref("reshape", static, data))


@settings(max_examples=40)
@given(
    data_shape=st.lists(st.sampled_from([1, 2]), max_size=3),
    lead=st.lists(st.integers(0, 3), max_size=1),
    widen=st.integers(1, 3),
)
def test_dyn_broadcast_to_agrees_with_onnx_and_static(
    data_shape: list[int], lead: list[int], widen: int
) -> None:
    target = [*lead, *(widen if d == 1 else d for d in data_shape)]
    data = np.arange(math.prod(data_shape), dtype=np.float32).reshape(data_shape)
    out = ref("dyn.broadcast_to", INIT, data, vec(*target))
    assert out.shape == shape_func("dyn.broadcast_to", INIT, data, vec(*target))
    static = InitOpAttrs.from_kwargs({"shape": tuple(target)})
    expected = rel("broadcast_to", static, T(tuple(data_shape)))
    assert isinstance(expected, TensorType) and out.shape == expected.shape
    peer = onnx_run("Expand", [data, vec(*target)])
    assert isinstance(peer, np.ndarray)
    np.testing.assert_array_equal(out, peer)


@settings(max_examples=30)
@given(shape=st.lists(st.integers(0, 3), max_size=3), dtype=st.sampled_from(["float32", "int32"]))
def test_dyn_zeros_ones_full_agree_with_onnx_and_static(shape: list[int], dtype: str) -> None:
    sh = vec(*shape)
    for op, value in (("dyn.zeros", 0), ("dyn.ones", 1)):
        out = ref(op, init(dtype), sh)
        assert out.shape == shape_func(op, init(dtype), sh)
        static = rel(op[4:], InitOpAttrs.from_kwargs({"shape": tuple(shape), "dtype": dtype}))
        assert isinstance(static, TensorType) and out.shape == static.shape
        assert out.dtype == np.dtype(dtype)
        from onnx import helper, numpy_helper

        fill = numpy_helper.from_array(np.asarray([value], dtype=dtype))
        peer = onnx_run("ConstantOfShape", [sh], out_dtype=dtype, value=fill)
        assert isinstance(peer, np.ndarray)
        np.testing.assert_array_equal(out, peer)
        del helper
    fill_value = np.asarray(1.5, np.float32)
    out = ref("dyn.full", INIT, fill_value, sh)
    assert out.shape == shape_func("dyn.full", INIT, fill_value, sh)
    static = rel("full", InitOpAttrs.from_kwargs({"shape": tuple(shape)}), T(()))
    assert isinstance(static, TensorType) and out.shape == static.shape
    peer = onnx_run("Expand", [fill_value, sh])
    assert isinstance(peer, np.ndarray)
    np.testing.assert_array_equal(out, peer)


def _python_slice(nested: Any, slices: list[slice]) -> Any:
    if not slices:
        return nested
    return [_python_slice(row, slices[1:]) for row in nested[slices[0]]]


@settings(max_examples=80)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    data=st.data(),
)
def test_dyn_strided_slice_agrees_with_python_and_static(shape: list[int], data: Any) -> None:
    k = data.draw(st.integers(0, len(shape)))
    begin = [data.draw(st.integers(-5, 5)) for _ in range(k)]
    end = [data.draw(st.integers(-5, 5)) for _ in range(k)]
    strides = [data.draw(st.sampled_from([1, 2, -1, -2])) for _ in range(k)]
    x = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    args = (x, vec(*begin), vec(*end), vec(*strides))
    try:
        out = ref("dyn.strided_slice", SLICE, *args)
    except UndefinedBehavior:
        return
    assert out.shape == shape_func("dyn.strided_slice", SLICE, *args)
    # Where defined, the meaning is Python's slice of the same bounds (after the shape
    # function's wrapping of negative indices once).
    slices = []
    for d, b, e, s in zip(shape, begin, end, strides, strict=False):
        b2 = b + d if b < 0 else b
        e2 = min(e, d)
        e2 = e2 + d if e2 < 0 else e2
        if s < 0 and e2 < 0:
            e2 = -1
        slices.append(slice(min(b2, d - 1) if s < 0 else b2, None if e2 < 0 else e2, s))
    expected = np.asarray(_python_slice(x.tolist(), slices), dtype=np.int64)
    np.testing.assert_array_equal(out.reshape(-1), expected.reshape(-1))
    static = StridedSliceAttrs.from_kwargs(
        {"begin": tuple(begin), "end": tuple(end), "strides": tuple(strides), "axes": None}
    )
    if k:
        try:
            static_type = rel("strided_slice", static, T(tuple(shape), "int64"))
        except RelationError:
            return
        assert isinstance(static_type, TensorType) and out.shape == static_type.shape


# ---------------------------------------------------------------------------------------------
# Quantized references


def test_quantize_rounds_halves_away_from_zero_and_saturates() -> None:
    data = np.asarray([0.5, -0.5, 1.5, -2.5, 1000.0, np.nan, -np.inf], np.float32)
    out = ref(
        "qnn.quantize", q_attrs("int8"), data, np.asarray(1.0, np.float32), np.asarray(0, np.int32)
    )
    np.testing.assert_array_equal(out, np.asarray([1, -1, 2, -3, 127, 127, -128], np.int8))


def test_dequantize_examples() -> None:
    data = np.asarray([[0, 255], [10, 20]], np.uint8)
    out = ref(
        "qnn.dequantize",
        dq_attrs(0),
        data,
        np.asarray([0.5, 2.0], np.float32),
        np.asarray([0, 10], np.int32),
    )
    np.testing.assert_array_equal(out, np.asarray([[0.0, 127.5], [0.0, 20.0]], np.float32))
    big = np.asarray([2**31 - 1], np.int32)
    with pytest.raises(UndefinedBehavior, match="overflows int32"):
        ref(
            "qnn.dequantize", dq_attrs(), big, np.asarray(1.0, np.float32), np.asarray(-1, np.int32)
        )


@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**16),
    dtype=st.sampled_from(["int8", "uint8"]),
    per_channel=st.booleans(),
)
def test_quantize_and_dequantize_agree_with_onnxruntime(
    seed: int, dtype: str, per_channel: bool
) -> None:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((3, 4)) * 50).astype(np.float32)
    channels = 4 if per_channel else 1
    scale = rng.uniform(0.05, 2.0, channels).astype(np.float32)
    low, high = (0, 255) if dtype == "uint8" else (-128, 127)
    zp = rng.integers(low, high + 1, channels).astype(np.int32)
    s, z = (scale, zp) if per_channel else (scale.reshape(()), zp.reshape(()))
    out = ref("qnn.quantize", q_attrs(dtype, 1), x, s, z)
    peer = onnx_run("QuantizeLinear", [x, s, z.astype(dtype)], opset=13, out_dtype=dtype, axis=1)
    assert isinstance(peer, np.ndarray)
    # ONNX rounds halves to even, TVM away from zero: compare where x / scale is no tie.
    ratio = x / (scale if per_channel else scale.reshape(()))
    no_tie = np.abs(ratio - np.trunc(ratio)) != 0.5
    np.testing.assert_array_equal(out[no_tie], peer[no_tie])
    q = rng.integers(low, high + 1, (3, 4)).astype(dtype)
    real = ref("qnn.dequantize", dq_attrs(1), q, s, z)
    peer = onnx_run(
        "DequantizeLinear", [q, s, z.astype(dtype)], opset=13, out_dtype="float32", axis=1
    )
    assert isinstance(peer, np.ndarray)
    np.testing.assert_allclose(real, peer, rtol=1e-6)


def _fixed_point_exact(x: int, multiplier: int, shift: int) -> int:
    """round-half-up(x * multiplier * 2**(shift - 31)), wrapped to int32."""
    value = math.floor(Fraction(x * multiplier) * Fraction(2) ** (shift - 31) + Fraction(1, 2))
    value &= (1 << 32) - 1
    return value - (1 << 32) if value >= 1 << 31 else value


def test_fixed_point_multiply_examples() -> None:
    half = FixedPointMultiplyAttrs.from_kwargs({"multiplier": 1 << 30, "shift": 0})
    data = np.asarray([3, -3, 5, -5, 7], np.int32)
    # times 0.5, rounding half up: 1.5 -> 2, -1.5 -> -1
    np.testing.assert_array_equal(ref("fixed_point_multiply", half, data), [2, -1, 3, -2, 4])
    with pytest.raises(UndefinedBehavior):
        bad = FixedPointMultiplyAttrs.from_kwargs({"multiplier": 1 << 30, "shift": 1})
        ref("fixed_point_multiply", bad, data)


@settings(max_examples=60)
@given(
    values=st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=6),
    multiplier=st.one_of(st.just(1 << 30), st.integers(0, 2**31 - 1)),
    shift=st.integers(-40, 40),
)
def test_fixed_point_multiply_agrees_with_exact_rationals(
    values: list[int], multiplier: int, shift: int
) -> None:
    attrs = FixedPointMultiplyAttrs.from_kwargs({"multiplier": multiplier, "shift": shift})
    data = np.asarray(values, np.int32)
    try:
        out = ref("fixed_point_multiply", attrs, data)
    except UndefinedBehavior:
        return
    assert out.dtype == np.int32
    assert out.tolist() == [_fixed_point_exact(v, multiplier, shift) for v in values]
