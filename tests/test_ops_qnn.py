"""The ``qnn`` operators (``semantics/ops/qnn.py``): relations, references, checks."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import Array, n, of_family
from ops_helpers import op_rel as rel
from ops_helpers import tensor_ref as ref

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import RelayRuntimeError, UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import DenseAttrs
from relay.semantics.ops.qnn import (
    BroadcastAttrs,
    DequantizeAttrs,
    FixedPointMultiplyAttrs,
    QuantizeAttrs,
    RequantizeAttrs,
)
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.ops.shape import ConcatenateAttrs
from relay.semantics.syntax import TensorType, TupleType, Type

QNN = (
    "qnn.quantize",
    "qnn.dequantize",
    "fixed_point_multiply",
    "qnn.requantize",
    "qnn.add",
    "qnn.mul",
    "qnn.concatenate",
    "qnn.dense",
    "qnn.conv2d",
)


def T(shape: tuple[Any, ...], dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


def q_attrs(out_dtype: str, axis: int = -1) -> QuantizeAttrs:
    return QuantizeAttrs.from_kwargs({"out_dtype": out_dtype, "axis": axis})


def dq_attrs(axis: int = -1, out_dtype: str = "float32") -> DequantizeAttrs:
    return DequantizeAttrs.from_kwargs({"out_dtype": out_dtype, "axis": axis})


def _fixed_point_exact(x: int, multiplier: int, shift: int) -> int:
    """round-half-up(x * multiplier * 2**(shift - 31)), wrapped to int32."""
    value = math.floor(Fraction(x * multiplier) * Fraction(2) ** (shift - 31) + Fraction(1, 2))
    value &= (1 << 32) - 1
    return value - (1 << 32) if value >= 1 << 31 else value


def rq_attrs(out_dtype: str = "int8", **kwargs: Any) -> RequantizeAttrs:
    return RequantizeAttrs.from_kwargs({"out_dtype": out_dtype, **kwargs})


def f32(*values: float) -> Array:
    return np.asarray(values, np.float32).reshape(-1 if len(values) > 1 else ())


def i32(*values: int) -> Array:
    return np.asarray(values, np.int32).reshape(-1 if len(values) > 1 else ())


def _q31(ratio: float) -> tuple[int, int]:
    """The Q31 significand and exponent of ``ratio`` (> 0), by exact rational arithmetic:
    ratio ~ m * 2**(e - 31), 2**30 <= m <= 2**31, the significand rounded half up."""
    r = Fraction(ratio)
    e = 0
    while r >= Fraction(2) ** e:
        e += 1
    while r < Fraction(2) ** (e - 1):
        e -= 1
    m = math.floor(r * Fraction(2) ** (31 - e) + Fraction(1, 2))
    if m == 2**31:
        m, e = 2**30, e + 1
    return m, e


def _round(value: Fraction, upward: bool) -> int:
    if upward or value >= 0:
        return math.floor(value + Fraction(1, 2))
    return -math.floor(-value + Fraction(1, 2))


def _requantize_exact(
    x: int, zp_in: int, s_in: float, s_out: float, zp_out: int, upward: bool, skip: bool
) -> int:
    """Requantize one value with the Q31 multiplier of float64(s_in) / float64(s_out)."""
    value = x - zp_in
    if not skip:
        m, e = _q31(float(np.float32(s_in)) / float(np.float32(s_out)))
        value = _round(
            Fraction(value * m, 2 ** (31 - e)) if e <= 31 else Fraction(value * m * 2 ** (e - 31)),
            upward,
        )
    return value + zp_out


def _requantize_float(
    x: int, zp_in: int, ratio: float, zp_out: int, upward: bool, bits: int
) -> int:
    ftype = np.float32 if bits == 32 else np.float64
    value = (ftype(x) - ftype(zp_in)) * ftype(ratio) + ftype(zp_out)
    return _round(Fraction(float(value)), upward)


def _clip(values: list[int], dtype: str) -> Array:
    info = np.iinfo(np.dtype(dtype))
    return np.asarray([min(max(v, info.min), info.max) for v in values]).astype(dtype)


SCALES = st.floats(0.015625, 8.0, width=32)


BROADCAST = BroadcastAttrs.from_kwargs({})


QNN_BINARY = ("qnn.add", "qnn.mul")


def binary_types(lhs: TensorType, rhs: TensorType, *params: TensorType) -> tuple[TensorType, ...]:
    defaults = [T((), "float32"), T((), "int32")] * 3
    return (lhs, rhs, *params, *defaults[len(params) :])


def _fields(values: list[int], k: int) -> tuple[Array, ...]:
    return tuple(np.asarray(values[i::k], np.int8) for i in range(k))


CONCAT = ConcatenateAttrs.from_kwargs({"axis": 0})


def dense_attrs(out_dtype: str = "int32", units: int | None = None) -> DenseAttrs:
    return DenseAttrs.from_kwargs({"units": units, "out_dtype": out_dtype})


def conv_attrs(**kwargs: Any) -> Conv2DAttrs:
    return Conv2DAttrs.from_kwargs({"out_dtype": "int32", **kwargs})


def matmul_types(
    data: TensorType, weight: TensorType, *params: TensorType
) -> tuple[TensorType, ...]:
    defaults = [T((), "int32"), T((), "int32"), T((), "float32"), T((), "float32")]
    return (data, weight, *params, *defaults[len(params) :])


@pytest.mark.parametrize("name", of_family(QNN, "qnn"))
def test_records(name: str) -> None:
    op = OPS[name]
    assert op.relation is not None and op.reference is not None
    assert op.family == ("dyn" if name.startswith("dyn.") else "qnn")
    assert op.check.startswith(("onnxruntime:", "independent:"))
    assert (op.shape_func is not None) == name.startswith("dyn.")


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
        ("qnn.quantize", q_attrs("int8", 2), (T((2,)), T(()), T((), "int32")), "axis=2 is out"),
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


def test_requantize_relation() -> None:
    f, i = T((), "float32"), T((), "int32")
    assert rel("qnn.requantize", rq_attrs(), T((2, 3), "int32"), f, i, f, i) == T((2, 3), "int8")
    got = rel(
        "qnn.requantize",
        rq_attrs("int32", axis=0),
        T((2, n), "int16"),
        T((2,)),
        T((2,), "int32"),
        f,
        i,
    )
    assert got == T((2, n), "int32")
    # A scalar has one channel.
    assert rel("qnn.requantize", rq_attrs(), T((), "uint8"), T((1,)), i, f, i) == T((), "int8")


@pytest.mark.parametrize(
    ("attrs", "args", "message"),
    [
        (rq_attrs(), (T((2,), "uint16"),), "expected data of int8"),
        (rq_attrs(axis=2), (T((2, 3), "int8"),), "axis=2 is out of range"),
        (rq_attrs(axis=-3), (T((2, 3), "int8"),), "axis=-3 is out of range"),
        (rq_attrs(out_dtype="int64"), (T((2,), "int8"),), 'found "int64"'),
        (
            rq_attrs(out_dtype=""),
            (T((2,), "int8"),),
            'out_dtype one of int8, uint8, int16, int32, found ""',
        ),
        (rq_attrs(rounding="DOWNWARD"), (T((2,), "int8"),), 'found "DOWNWARD"'),
        (
            rq_attrs(compute_dtype="int32"),
            (T((2,), "int8"),),
            'compute_dtype "int64", "float32" or "float64", found "int32"',
        ),
        (rq_attrs(), (T((2, 3), "int8"), T((2,))), "expected 3 values for input_scale"),
        (
            rq_attrs(),
            (T((2,), "int8"), T(()), T((), "int32"), T((2,))),
            "expected a scalar output_scale",
        ),
        (
            rq_attrs(),
            (T((2,), "int8"), T(()), T((), "int32"), T(()), T((), "int8")),
            "expected int32 for output_zero_point",
        ),
    ],
)
def test_requantize_relation_errors(attrs: Attrs, args: tuple[Type, ...], message: str) -> None:
    defaults = (T((), "float32"), T((), "int32"), T((), "float32"), T((), "int32"))
    full = (*args, *defaults[len(args) - 1 :])
    with pytest.raises(RelationError, match=message):
        rel("qnn.requantize", attrs, *full)


def test_requantize_rounding_examples() -> None:
    # Halving: 3 -> 1.5, -3 -> -1.5, -1 -> -0.5, 5 -> 2.5.
    x = np.asarray([3, -3, -1, 5, 1000], np.int32)
    args = (x, f32(0.5), i32(0), f32(1.0), i32(0))
    upward = ref("qnn.requantize", rq_attrs(rounding="UPWARD"), *args)
    np.testing.assert_array_equal(upward, np.asarray([2, -1, 0, 3, 127], np.int8))
    nearest = ref("qnn.requantize", rq_attrs(rounding="TONEAREST"), *args)
    np.testing.assert_array_equal(nearest, np.asarray([2, -2, -1, 3, 127], np.int8))
    # "None" is RequantizeConfig's default, UPWARD; int32 output is not clipped.
    np.testing.assert_array_equal(ref("qnn.requantize", rq_attrs(), *args), upward)
    wide = ref("qnn.requantize", rq_attrs("int32", rounding="TONEAREST"), *args)
    np.testing.assert_array_equal(wide, np.asarray([2, -2, -1, 3, 500], np.int32))
    # The float path rounds the same way; zero points shift before and after.
    fp = rq_attrs("uint8", compute_dtype="float64", rounding="TONEAREST")
    out = ref(
        "qnn.requantize",
        fp,
        np.asarray([10, 13, 4], np.uint8),
        f32(0.5),
        i32(10),
        f32(1.0),
        i32(100),
    )
    np.testing.assert_array_equal(out, np.asarray([100, 102, 97], np.uint8))
    with pytest.raises(RelayRuntimeError, match="output scale can not be equal to 0"):
        ref("qnn.requantize", rq_attrs(), x, f32(0.5), i32(0), f32(0.0), i32(0))
    with pytest.raises(UndefinedBehavior, match="overflows int32"):
        ref(
            "qnn.requantize",
            rq_attrs("int32"),
            i32(2**31 - 1, 0),
            f32(1.0),
            i32(-1),
            f32(2.0),
            i32(0),
        )


def test_requantize_per_channel_example() -> None:
    x = np.asarray([[4, 4, 4], [-4, -4, -4]], np.int8)
    out = ref(
        "qnn.requantize", rq_attrs(axis=1), x, f32(0.25, 0.5, 3.0), i32(0, 1, 2), f32(1.0), i32(1)
    )
    # channel 0: 4*0.25 = 1, -1; channel 1: 3*0.5 = 1.5 -> 2, -5*0.5 = -2.5 -> -2;
    # channel 2: 2*3 = 6, -6*3 = -18; plus 1.
    np.testing.assert_array_equal(out, np.asarray([[2, 3, 7], [0, -1, -17]], np.int8))


@settings(max_examples=60)
@given(
    data=st.lists(st.integers(-128, 127), min_size=1, max_size=6),
    per_channel=st.booleans(),
    scales=st.lists(SCALES, min_size=6, max_size=6),
    zps=st.lists(st.integers(-5, 5), min_size=6, max_size=6),
    out_scale=SCALES,
    out_zp=st.integers(-10, 10),
    rounding=st.sampled_from(["None", "UPWARD", "TONEAREST"]),
    compute_dtype=st.sampled_from(["None", "int64", "float32", "float64"]),
    out_dtype=st.sampled_from(["int8", "uint8", "int16", "int32"]),
)
def test_requantize_agrees_with_exact_rationals(
    data: list[int],
    per_channel: bool,
    scales: list[float],
    zps: list[int],
    out_scale: float,
    out_zp: int,
    rounding: str,
    compute_dtype: str,
    out_dtype: str,
) -> None:
    x = np.asarray(data, np.int8)
    k = len(data) if per_channel else 1
    s_in = np.asarray(scales[:k], np.float32).reshape(-1 if per_channel else ())
    z_in = np.asarray(zps[:k], np.int32).reshape(-1 if per_channel else ())
    attrs = rq_attrs(out_dtype, axis=0, rounding=rounding, compute_dtype=compute_dtype)
    out = ref("qnn.requantize", attrs, x, s_in, z_in, f32(out_scale), i32(out_zp))
    upward = rounding != "TONEAREST"
    expected = []
    for i, v in enumerate(data):
        c = i if per_channel else 0
        skip = not per_channel and np.float32(scales[0]) == np.float32(out_scale)
        if compute_dtype in ("float32", "float64"):
            ratio = 1.0 if skip else float(np.float32(scales[c])) / float(np.float32(out_scale))
            bits = 32 if compute_dtype == "float32" else 64
            expected.append(_requantize_float(v, zps[c], ratio, out_zp, upward, bits))
        else:
            expected.append(
                _requantize_exact(v, zps[c], scales[c], out_scale, out_zp, upward, skip)
            )
    want = np.asarray(expected, np.int32) if out_dtype == "int32" else _clip(expected, out_dtype)
    assert out.dtype == np.dtype(out_dtype)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op", QNN_BINARY)
def test_qnn_binary_relations(op: str) -> None:
    assert rel(op, BROADCAST, *binary_types(T((2, 1), "int8"), T((3,), "int8"))) == T(
        (2, 3), "int8"
    )
    per_channel = binary_types(T((2, 3), "uint8"), T((3,), "uint8"), T((3,)), T((3,), "int32"))
    assert rel(op, BROADCAST, *per_channel) == T((2, 3), "uint8")
    lhs_axis0 = BroadcastAttrs.from_kwargs({"lhs_axis": 0})
    assert rel(op, lhs_axis0, *binary_types(T((2, 3), "int8"), T((3,), "int8"), T((2,)))) == T(
        (2, 3), "int8"
    )


@pytest.mark.parametrize(
    ("attrs", "types", "message"),
    [
        (BROADCAST, binary_types(T((2,), "int8"), T((3,), "int8")), "incompatible broadcast"),
        (BROADCAST, binary_types(T((2,), "int8"), T((2,), "uint8")), "int8 and uint8 do not match"),
        (BROADCAST, binary_types(T((2,), "float32"), T((2,), "float32")), "expected lhs of int8"),
        (
            BROADCAST,
            binary_types(T((2, 3), "int8"), T((3,), "int8"), T((2,))),
            "expected a scalar or 3 values",
        ),
        (
            BroadcastAttrs.from_kwargs({"lhs_axis": 2}),
            binary_types(T((2, 3), "int8"), T((3,), "int8"), T((3,))),
            "lhs_axis=2 is out of range",
        ),
        (
            BROADCAST,
            binary_types(
                T((2,), "int8"),
                T((2,), "int8"),
                *(T(()), T((), "int32"), T(()), T((), "int32"), T((1,))),
            ),
            "expected a scalar output_scale",
        ),
    ],
)
def test_qnn_binary_relation_errors(attrs: Attrs, types: tuple[Type, ...], message: str) -> None:
    for op in QNN_BINARY:
        with pytest.raises(RelationError, match=message):
            rel(op, attrs, *types)


def test_qnn_add_and_mul_examples() -> None:
    lhs = np.asarray([10, 20, -128], np.int8)
    rhs = np.asarray([4, -6, -128], np.int8)
    # lhs real = 0.5*(q - 2), rhs real = 0.25*q; output scale 1, zero point 3.
    params = (f32(0.5), i32(2), f32(0.25), i32(0), f32(1.0), i32(3))
    # add: 4 + 1 = 5 -> 8; 9 - 1.5 -> 9 + (-1) (-1.5 rounds up) = 8 -> 11; -65 + -32 = -97 -> -94
    np.testing.assert_array_equal(
        ref("qnn.add", BROADCAST, lhs, rhs, *params), np.asarray([8, 11, -94], np.int8)
    )
    # mul: (8 * 4) * 0.125 = 4 -> 7; (18 * -6) * 0.125 = -13.5 -> -13 -> -10;
    # (-130 * -128) * 0.125 = 2080 -> saturates at 127
    np.testing.assert_array_equal(
        ref("qnn.mul", BROADCAST, lhs, rhs, *params), np.asarray([7, -10, 127], np.int8)
    )


@settings(max_examples=40)
@given(
    lhs=st.lists(st.integers(-128, 127), min_size=4, max_size=4),
    rhs=st.lists(st.integers(-128, 127), min_size=4, max_size=4),
    scales=st.lists(SCALES, min_size=3, max_size=3),
    zps=st.lists(st.integers(-5, 5), min_size=3, max_size=3),
    same=st.booleans(),
)
def test_qnn_add_and_mul_agree_with_exact_rationals(
    lhs: list[int], rhs: list[int], scales: list[float], zps: list[int], same: bool
) -> None:
    if same:  # lhs's parameters equal the output's: TVM's upcast path
        scales[2], zps[2] = scales[0], zps[0]
    a, b = np.asarray(lhs, np.int8), np.asarray(rhs, np.int8)
    params = (f32(scales[0]), i32(zps[0]), f32(scales[1]), i32(zps[1]), f32(scales[2]), i32(zps[2]))
    s = [float(np.float32(v)) for v in scales]
    added = []
    for x, y in zip(lhs, rhs, strict=True):
        left = _requantize_exact(x, zps[0], s[0], s[2], zps[2], True, s[0] == s[2])
        right = _requantize_exact(y, zps[1], s[1], s[2], zps[2], True, s[1] == s[2])
        added.append(left + right - zps[2])
    np.testing.assert_array_equal(ref("qnn.add", BROADCAST, a, b, *params), _clip(added, "int8"))
    product_scale = float(np.float32(s[0]) * np.float32(s[1]))
    multiplied = [
        _requantize_exact(
            (x - zps[0]) * (y - zps[1]),
            0,
            product_scale,
            s[2],
            zps[2],
            True,
            product_scale == s[2],
        )
        for x, y in zip(lhs, rhs, strict=True)
    ]
    np.testing.assert_array_equal(
        ref("qnn.mul", BROADCAST, a, b, *params), _clip(multiplied, "int8")
    )


def test_qnn_mul_per_channel_needs_one_axis() -> None:
    a = np.ones((2, 2), np.int8)
    params = (f32(0.5, 0.5), i32(0), f32(0.5, 0.5), i32(0), f32(1.0), i32(0))
    out = ref("qnn.mul", BroadcastAttrs.from_kwargs({"lhs_axis": 1, "rhs_axis": 1}), a, a, *params)
    np.testing.assert_array_equal(out, np.zeros((2, 2), np.int8) + 0)  # 0.25 rounds to 0
    with pytest.raises(RelayRuntimeError, match="lhs_axis and rhs_axis differ"):
        ref("qnn.mul", BroadcastAttrs.from_kwargs({"lhs_axis": 0, "rhs_axis": 1}), a, a, *params)


def test_qnn_concatenate_relation() -> None:
    data = TupleType((T((2, 3), "uint8"), T((n, 3), "uint8")))
    params = TupleType((T(()), T(())))
    zps = TupleType((T((), "int32"), T((), "int32")))
    got = rel("qnn.concatenate", CONCAT, data, params, zps, T(()), T((), "int32"))
    assert got == T((n + 2, 3), "uint8")
    with pytest.raises(RelationError, match="2 inputs, 1 input_scales"):
        rel("qnn.concatenate", CONCAT, data, TupleType((T(()),)), zps, T(()), T((), "int32"))
    with pytest.raises(RelationError, match="input_zero_points field 1"):
        bad = TupleType((T((), "int32"), T((), "int8")))
        rel("qnn.concatenate", CONCAT, data, params, bad, T(()), T((), "int32"))
    with pytest.raises(RelationError, match="expected data field 0 of int8"):
        floats = TupleType((T((2, 3)), T((2, 3))))
        rel("qnn.concatenate", CONCAT, floats, params, zps, T(()), T((), "int32"))


@settings(max_examples=30)
@given(
    values=st.lists(st.integers(-128, 127), min_size=6, max_size=6),
    scales=st.lists(SCALES, min_size=3, max_size=3),
    zps=st.lists(st.integers(-5, 5), min_size=3, max_size=3),
    same=st.booleans(),
)
def test_qnn_concatenate_agrees_with_exact_rationals(
    values: list[int], scales: list[float], zps: list[int], same: bool
) -> None:
    if same:
        scales[2], zps[2] = scales[0], zps[0]
    fields = _fields(values, 2)
    out = ref(
        "qnn.concatenate",
        CONCAT,
        fields,  # type: ignore[arg-type]
        (f32(scales[0]), f32(scales[1])),  # type: ignore[arg-type]
        (i32(zps[0]), i32(zps[1])),  # type: ignore[arg-type]
        f32(scales[2]),
        i32(zps[2]),
    )
    s = [float(np.float32(v)) for v in scales]
    expected = []
    for i, f in enumerate(fields):
        for v in f.tolist():
            if s[i] == s[2] and zps[i] == zps[2]:
                expected.append(v)
            else:
                expected.append(
                    _requantize_exact(v, zps[i], s[i], s[2], zps[2], True, s[i] == s[2])
                )
    np.testing.assert_array_equal(out, _clip(expected, "int8"))


def test_qnn_dense_and_conv2d_relations() -> None:
    types = matmul_types(T((n, 5), "uint8"), T((4, 5), "int8"), T((), "int32"), T((4,), "int32"))
    assert rel("qnn.dense", dense_attrs(), *types) == T((n, 4), "int32")
    conv = matmul_types(T((1, 2, 5, 5), "int8"), T((3, 2, 3, 3), "int8"))
    assert rel("qnn.conv2d", conv_attrs(padding=(1, 1)), *conv) == T((1, 3, 5, 5), "int32")
    nhwc = conv_attrs(data_layout="NHWC", kernel_layout="HWIO", out_dtype="int16")
    per_channel = matmul_types(
        T((1, 5, 5, 2), "uint8"),
        T((3, 3, 2, 4), "int8"),
        T((), "int32"),
        T((4,), "int32"),
        T(()),
        T((4,)),
    )
    assert rel("qnn.conv2d", nhwc, *per_channel) == T((1, 3, 3, 4), "int16")


@pytest.mark.parametrize(
    ("op", "attrs", "types", "message"),
    [
        (
            "qnn.dense",
            dense_attrs(),
            matmul_types(T((2, 5), "int32"), T((4, 5), "int8")),
            "expected data of int8",
        ),
        (
            "qnn.dense",
            dense_attrs(),
            matmul_types(T((2, 5), "int8"), T((4, 5), "int16")),
            "expected weight of int8, uint8",
        ),
        (
            "qnn.dense",
            dense_attrs(""),
            matmul_types(T((2, 5), "int8"), T((4, 5), "int8")),
            'int32 or int64, found ""',
        ),
        (
            "qnn.dense",
            dense_attrs(),
            matmul_types(T((2, 5), "int8"), T((4, 6), "int8")),
            "input dimension mismatch",
        ),
        (
            "qnn.dense",
            dense_attrs(),
            matmul_types(T((2, 5), "int8"), T((4, 5), "int8"), T((2,), "int32")),
            "expected a scalar input_zero_point",
        ),
        (
            "qnn.dense",
            dense_attrs(),
            matmul_types(T((2, 5), "int8"), T((4, 5), "int8"), T((), "int32"), T((3,), "int32")),
            "4 values .one per output channel. for kernel_zero_point",
        ),
        (
            "qnn.conv2d",
            conv_attrs(out_dtype="int8"),
            matmul_types(T((1, 2, 5, 5), "int8"), T((3, 2, 3, 3), "int8")),
            'found "int8"',
        ),
        (
            "qnn.conv2d",
            conv_attrs(data_layout="CHWN", kernel_layout="OIHW"),
            matmul_types(T((2, 5, 5, 1), "int8"), T((3, 2, 3, 3), "int8")),
            'data_layout NCHW or NHWC, found "CHWN"',
        ),
        (
            "qnn.conv2d",
            conv_attrs(),
            matmul_types(
                T((1, 2, 5, 5), "int8"),
                T((3, 2, 3, 3), "int8"),
                T((), "int32"),
                T((), "int32"),
                T(()),
                T((2,)),
            ),
            "3 values .one per output channel. for kernel_scale",
        ),
        (
            "qnn.conv2d",
            conv_attrs(groups=3),
            matmul_types(T((1, 2, 5, 5), "int8"), T((3, 2, 3, 3), "int8")),
            "groups=3",
        ),
    ],
)
def test_qnn_dense_and_conv2d_relation_errors(
    op: str, attrs: Attrs, types: tuple[Type, ...], message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(op, attrs, *types)


def test_qnn_dense_example_and_overflow() -> None:
    data = np.asarray([[1, 2], [3, 4]], np.uint8)
    weight = np.asarray([[1, -1], [2, 0], [0, 3]], np.int8)
    scales = (f32(1.0), f32(1.0))
    out = ref("qnn.dense", dense_attrs(), data, weight, i32(1), i32(-1), *scales)
    # (data - 1) @ (weight + 1).T = [[0, 1], [2, 3]] @ [[2, 3, 1], [0, 1, 4]]
    np.testing.assert_array_equal(out, np.asarray([[0, 1, 4], [4, 9, 14]], np.int32))
    big = np.full((1, 2), 32767, np.int16)
    wide = np.full((1, 2), 127, np.int8)
    with pytest.raises(UndefinedBehavior, match="int32 accumulation overflows"):
        ref(
            "qnn.dense",
            dense_attrs(),
            np.tile(big, (1, 400)),
            np.tile(wide, (1, 400)),
            i32(0),
            i32(0),
            *scales,
        )


@settings(max_examples=25)
@given(seed=st.integers(0, 2**16), per_channel=st.booleans(), signed=st.booleans())
def test_qnn_dense_agrees_with_onnxruntime(seed: int, per_channel: bool, signed: bool) -> None:
    rng = np.random.default_rng(seed)
    dtype, (low, high) = ("int8", (-128, 128)) if signed else ("uint8", (0, 256))
    data = rng.integers(low, high, (3, 5)).astype(dtype)
    # Same signedness: onnxruntime's u8s8 kernel saturates int16 pair sums on x86.
    weight = rng.integers(low, high, (4, 5)).astype(dtype)
    zd = int(rng.integers(low, high))
    zw = rng.integers(low, high, 4 if per_channel else ()).astype(np.int32)
    out = ref("qnn.dense", dense_attrs(), data, weight, i32(zd), zw, f32(0.5), f32(0.25))
    peer = onnx_run(
        "MatMulInteger",
        [data, weight.T.copy(), np.asarray(zd, dtype), zw.astype(dtype)],
        opset=13,
        out_dtype="int32",
    )
    assert isinstance(peer, np.ndarray)
    np.testing.assert_array_equal(out, peer)


@settings(max_examples=20)
@given(
    seed=st.integers(0, 2**16),
    pads=st.sampled_from([(0, 0), (1, 1), (1, 2, 0, 1)]),
    strides=st.sampled_from([(1, 1), (2, 1)]),
    dilation=st.sampled_from([(1, 1), (1, 2)]),
    groups=st.sampled_from([1, 2]),
)
def test_qnn_conv2d_agrees_with_onnxruntime(
    seed: int,
    pads: tuple[int, ...],
    strides: tuple[int, int],
    dilation: tuple[int, int],
    groups: int,
) -> None:
    rng = np.random.default_rng(seed)
    # ConvInteger wants one dtype for both (see the dense test on mixed signedness).
    x = rng.integers(0, 256, (1, 4, 5, 6)).astype(np.uint8)
    w = rng.integers(0, 256, (4, 4 // groups, 2, 3)).astype(np.uint8)
    zx, zw = int(rng.integers(0, 256)), int(rng.integers(0, 256))
    attrs = conv_attrs(padding=pads, strides=strides, dilation=dilation, groups=groups)
    out = ref("qnn.conv2d", attrs, x, w, i32(zx), i32(zw), f32(1.0), f32(1.0))
    full = pads * 2 if len(pads) == 2 else pads
    onnx_pads = [full[0], full[1], full[2], full[3]]
    peer = onnx_run(
        "ConvInteger",
        [x, w, np.asarray(zx, np.uint8), np.asarray(zw, np.uint8)],
        opset=13,
        out_dtype="int32",
        pads=onnx_pads,
        strides=list(strides),
        dilations=list(dilation),
        group=groups,
    )
    assert isinstance(peer, np.ndarray)
    np.testing.assert_array_equal(out, peer)


def test_qnn_conv2d_per_channel_and_depthwise_zero_points() -> None:
    # Depthwise with multiplier 2 in OIHW: weight (C=2, m=2, 1, 1), output channel c*2 + q.
    x = np.asarray([[[[3]], [[5]]]], np.int8)  # (1, 2, 1, 1)
    w = np.asarray([1, 2, 3, 4], np.int8).reshape(2, 2, 1, 1)
    attrs = conv_attrs(groups=2, channels=4, kernel_size=(1, 1))
    zw = i32(0, 1, 2, 3)
    out = ref("qnn.conv2d", attrs, x, w, i32(1), zw, f32(1.0), f32(1.0, 1.0, 1.0, 1.0))
    # (3-1)*(1-0), (3-1)*(2-1), (5-1)*(3-2), (5-1)*(4-3)
    np.testing.assert_array_equal(out.reshape(-1), [2, 2, 4, 4])


def test_fmt_round_trips_calls_with_non_default_attributes() -> None:
    from relay.semantics.text.parser import parse
    from relay.semantics.text.printer import astext

    mod = parse(
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(2, 3), int8], %w: Tensor[(4, 3), int8], %k: Tensor[(), int64],"
        " %r: Tensor[(2), int64], %i: Tensor[(2), int32]) {\n"
        '  %0 = qnn.requantize(%x, 0.5f, 1, 0.25f, 2, axis=0, rounding="TONEAREST",'
        ' compute_dtype="float64", out_dtype="uint8");\n'
        '  %1 = qnn.dense(%x, %w, 0, 1, 0.5f, 0.5f, units=4, out_dtype="int64");\n'
        "  %2 = qnn.add(%x, %x, 0.5f, 0, 0.5f, 1, 1f, 0, lhs_axis=1, rhs_axis=0);\n"
        "  %3 = qnn.mul(%x, %x, 0.5f, 0, 0.5f, 1, 1f, 0, lhs_axis=0);\n"
        "  %4 = qnn.concatenate((%x, %x), (0.5f, 1f), (0, 1), 1f, 0, axis=1);\n"
        '  %5 = dyn.topk(%x, %k, axis=0, ret_type="values", is_ascend=True, dtype="int64");\n'
        "  %6 = dyn.tile(%x, %r, reps=[]);\n"
        '  %7 = dyn.one_hot(%i, 1f, 0f, %k, axis=0, depth=1, dtype="float32");\n'
        "  (%0, %1, %2, %3, %4, %5, %6, %7)\n"
        "}\n"
    )
    printed = astext(mod)
    for fragment in ('rounding="TONEAREST"', "lhs_axis=1", 'ret_type="values"', "units=4"):
        assert fragment in printed
    assert astext(parse(printed)) == printed
