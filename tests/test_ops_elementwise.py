"""The ``elementwise`` operators (``semantics/ops/elementwise.py``): relations and references."""

from __future__ import annotations

import math
import struct
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relay.oracles.compare import compare_arrays
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, Attrs, OpPattern
from relay.semantics.ops.annotation import DeviceCopyAttrs, OnDeviceAttrs
from relay.semantics.ops.elementwise import CastAttrs, ClipAttrs
from relay.semantics.ops.image import Resize2DAttrs
from relay.semantics.ops.nn.activation import LeakyReluAttrs
from relay.semantics.ops.nn.loss import NLLLossAttrs
from relay.semantics.ops.nn.norm import (
    GroupNormAttrs,
    L2NormalizeAttrs,
    LRNAttrs,
)
from relay.semantics.ops.nn.shape import (
    MirrorPadAttrs,
)
from relay.semantics.ops.reduce import ScanopAttrs, VarianceAttrs
from relay.semantics.ops.registry import RelationError
from relay.semantics.syntax import ANY, DTYPES, Dim, TupleType

pytest.importorskip("onnxruntime")
from ops_helpers import (
    _ONNX_TYPES,
    ARITHMETIC,
    BITWISE,
    COMPARISONS,
    FLOATS,
    INTEGERS,
    NAMES,
    UNARY_ANY,
    UNARY_FLOAT,
    Array,
    _is_float,
    accepted_dtypes,
    check_reference_agrees_with_relation,
    check_text_round_trip,
    m,
    n,
    of_family,
    raises,
    relate,
    run,
    run_onnx_node_typed,
    same,
    t,
)

_CALLS = [
    ("sin", "float32", ""),
    ("isinf", "float16", ""),
    ("reinterpret", "float32", ', dtype="uint32"'),
]


FLOAT_MATH = (
    *("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh"),
    *("atanh", "erf", "log2", "log10", "fast_exp", "fast_tanh", "fast_erf"),
)


ARITH_NAMES: tuple[str, ...] = (
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "log2",
    "log10",
    "fast_exp",
    "fast_tanh",
    "fast_erf",
    "trunc",
    "sign",
    "bitwise_not",
    "copy",
    "isnan",
    "isinf",
    "isfinite",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "logical_xor",
    "trunc_divide",
    "trunc_mod",
    "reinterpret",
)


SCAN_NAMES: tuple[str, ...] = (
    "variance",
    "all",
    "any",
    "cumsum",
    "cumprod",
)


ANNOTATION_NAMES: tuple[str, ...] = (
    "annotation.stop_fusion",
    "on_device",
    "device_copy",
)


ALL_NAMES = ARITH_NAMES + SCAN_NAMES + ANNOTATION_NAMES


def close(actual: Array, expected: Array) -> None:
    """Equal dtype and shape, values equal under the tolerance policy (``oracles/compare.py``):
    how a transcendental function's result is compared, never bit-exactly (numpy's SIMD
    dispatch gives ``log10(1000f) = 3.0000002`` on some CPUs)."""
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    mismatch = compare_arrays(expected, actual)
    assert mismatch is None, mismatch


RNG = np.random.default_rng(20241129)


def _random(shape: tuple[int, ...], dtype: str, low: float = -4, high: float = 4) -> Array:
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return RNG.integers(int(low), int(high), shape, endpoint=True).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


onnx_peer = pytest.importorskip("relay.oracles.onnx_peer")


_ONNX_FLOAT_UNARY: list[tuple[str, str, tuple[float, float]]] = [
    # name, ONNX op, input range
    ("sin", "Sin", (-6, 6)),
    ("cos", "Cos", (-6, 6)),
    ("tan", "Tan", (-1.5, 1.5)),
    ("asin", "Asin", (-1, 1)),
    ("acos", "Acos", (-1, 1)),
    ("atan", "Atan", (-9, 9)),
    ("sinh", "Sinh", (-5, 5)),
    ("cosh", "Cosh", (-5, 5)),
    ("asinh", "Asinh", (-9, 9)),
    ("acosh", "Acosh", (1, 9)),
    ("atanh", "Atanh", (-0.99, 0.99)),
    ("erf", "Erf", (-3, 3)),
    ("fast_exp", "Exp", (-80, 80)),
    ("fast_tanh", "Tanh", (-9, 9)),
    ("fast_erf", "Erf", (-3, 3)),
]


def _tvm_fast_exp(x: Array) -> Array:
    """``topi::fast_exp_float32``, step by step in float32."""
    f32 = np.float32
    p = [f32(v) for v in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                          1.6666665459e-1, 5.0000001201e-1)]  # fmt: skip
    clamped = np.maximum(np.minimum(x, f32(88.3762626647950)), f32(-88.3762626647949))
    n = np.floor(clamped * f32(1.44269504088896341) + f32(0.5))
    f = clamped - n * f32(0.6931471805599453)
    y = p[0]
    for c in p[1:]:
        y = y * f + c
    y = y * f * f + f + f32(1)
    ef = ((n + f32(127)).astype(np.int32) << 23).view(np.float32)
    return np.asarray(np.maximum(ef * y, x), dtype=np.float32)


def _tvm_fast_tanh(x: Array) -> Array:
    """``topi::fast_tanh_float`` (Eigen's rational function), in float32."""
    f32 = np.float32
    c = np.clip(x, f32(-9), f32(9))
    alpha = [f32(v) for v in (-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11,
                              5.12229709037114e-08, 1.48572235717979e-05, 6.37261928875436e-04,
                              4.89352455891786e-03)]  # fmt: skip
    beta = [f32(v) for v in (1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03,
                             4.89352518554385e-03)]  # fmt: skip
    x2 = c * c
    p = alpha[0]
    for a in alpha[1:]:
        p = x2 * p + a
    q = beta[0]
    for b in beta[1:]:
        q = x2 * q + b
    return np.asarray(c * p / q, dtype=np.float32)


def _policy_ulps(expected: Array, actual: Array) -> float:
    """The largest error in float32 ulps as the comparison policy measures it (relative to
    the larger magnitude, absolute below 1)."""
    e, a = expected.astype(np.float64), actual.astype(np.float64)
    scale = np.maximum(np.maximum(np.abs(e), np.abs(a)), 1.0)
    return float(np.max(np.abs(a - e) / scale) / np.finfo(np.float32).eps)


pytest.importorskip("onnx")


_ONNX_UNARY: list[tuple[str, str, tuple[float, float], float]] = [
    # name, ONNX op, input range, relative tolerance (0: exact)
    ("negative", "Neg", (-9, 9), 0),
    ("abs", "Abs", (-9, 9), 0),
    ("floor", "Floor", (-9, 9), 0),
    ("ceil", "Ceil", (-9, 9), 0),
    ("sqrt", "Sqrt", (0, 9), 1e-7),
    ("exp", "Exp", (-9, 9), 2e-6),
    ("log", "Log", (0.01, 9), 2e-6),
    ("tanh", "Tanh", (-9, 9), 2e-6),
    ("sigmoid", "Sigmoid", (-9, 9), 2e-6),
]


def _rsqrt_decimal(x: float) -> float:
    """``1 / sqrt(x)`` to 60 significant digits, then rounded to binary64."""
    with localcontext() as context:
        context.prec = 60
        return float(Decimal(1) / Decimal(x).sqrt())


def _round_decimal(x: Any, dtype: str) -> Any:
    """Round half away from zero with ``decimal`` (exact for every binary float)."""
    if not _is_float(dtype):
        return x
    v = float(x)
    if not math.isfinite(v):
        return v
    rounded = float(Decimal(v).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return math.copysign(rounded, v) if rounded == 0 else rounded


def test_records_name_family_pattern_relation_and_check() -> None:
    for name in ALL_NAMES:
        op = OPS[name]
        assert op.relation is not None and op.reference is not None, name
        assert op.doc and "\n" not in op.doc
        kind, _, what = op.check.partition(":")
        assert kind in ("onnxruntime", "independent") and what, name
    assert {OPS[x].family for x in ARITH_NAMES} == {"elementwise", "broadcast"}
    assert {OPS[x].family for x in SCAN_NAMES} == {"reduce"}
    assert {OPS[x].family for x in ANNOTATION_NAMES} == {"annotation"}
    assert {x for x in ARITH_NAMES if OPS[x].relation_name == "IdentityCompRel"} == {
        "isnan",
        "isinf",
        "isfinite",
    }
    assert {x for x in ARITH_NAMES if OPS[x].pattern is OpPattern.BROADCAST} == {
        *BITWISE,
        "logical_xor",
        "trunc_divide",
        "trunc_mod",
    }
    assert OPS["reinterpret"].attrs_type is CastAttrs
    assert OPS["reinterpret"].relation_name == "Reinterpret"
    assert OPS["variance"].inputs == ("data", "mean")
    assert OPS["on_device"].inputs == ("body",)
    for name in ("cumsum", "cumprod", *ANNOTATION_NAMES):
        assert OPS[name].pattern is OpPattern.OPAQUE
    for name in ("variance", "all", "any"):
        assert OPS[name].pattern is OpPattern.COMM_REDUCE
    assert (OPS["cumsum"].relation_name, OPS["cumprod"].relation_name) == ("Cumsum", "Cumprod")


def test_attrs_match_tvm() -> None:
    def fields(attrs_type: type[Attrs]) -> dict[str, object]:
        return {s.name: s.default for s in attrs_type.field_specs()}

    assert VarianceAttrs.type_key == "relay.attrs.VarianceAttrs"
    assert fields(VarianceAttrs) == {
        "axis": None,
        "keepdims": False,
        "exclude": False,
        "unbiased": False,
    }
    assert ScanopAttrs.type_key == "relay.attrs.ScanopAttrs"
    assert fields(ScanopAttrs) == {"axis": None, "dtype": "", "exclusive": False}
    assert OnDeviceAttrs.type_key == "relay.attrs.OnDeviceAttrs"
    assert fields(OnDeviceAttrs)["constrain_body"] is True
    assert fields(OnDeviceAttrs)["constrain_result"] is False
    assert DeviceCopyAttrs.type_key == "relay.attrs.DeviceCopyAttrs"


@pytest.mark.parametrize("name", FLOAT_MATH)
def test_float_math_needs_float(name: str) -> None:
    for dtype in FLOATS:
        assert relate(name, t((2, n), dtype)) == t((2, n), dtype)
    with raises(RelationError, "expected a float dtype for data, found int32"):
        relate(name, t((2,), "int32"))


def test_unary_dtype_rules() -> None:
    for dtype in DTYPES:
        assert relate("trunc", t((ANY,), dtype)) == t((ANY,), dtype)
        assert relate("copy", t((3,), dtype)) == t((3,), dtype)
        for name in ("isnan", "isinf", "isfinite"):
            assert relate(name, t((n, 2), dtype)) == t((n, 2), "bool")
    assert relate("sign", t((2,), "int8")) == t((2,), "int8")
    with raises(RelationError, "expected a signed integer or float dtype for data, found uint8"):
        relate("sign", t((2,), "uint8"))
    with raises(RelationError, "for data, found bool"):
        relate("bitwise_not", t((2,), "bool"))
    with raises(RelationError, "expected an integer dtype"):
        relate("bitwise_not", t((2,), "float32"))


def test_reinterpret_needs_the_same_width() -> None:
    assert relate("reinterpret", t((2, n), "float32"), attrs=CastAttrs("uint32")) == t(
        (2, n), "uint32"
    )
    assert relate("reinterpret", t((), "bool"), attrs=CastAttrs("bool")) == t((), "bool")
    with raises(RelationError, 'reinterpret: dtype="int64" has 64 bits but data is float32'):
        relate("reinterpret", t((2,), "float32"), attrs=CastAttrs("int64"))
    with raises(RelationError, "has 8 bits but data is bool of 1 bits"):
        relate("reinterpret", t((2,), "bool"), attrs=CastAttrs("int8"))
    with raises(RelationError, "expected a target dtype for reinterpret, found none"):
        relate("reinterpret", t((2,), "float32"), attrs=CastAttrs(""))


def test_sign_trunc_and_predicates() -> None:
    x = np.array([-2.5, -0.0, 0.0, 3.0, np.nan, -np.inf], "float32")
    same(run("sign", x), np.array([-1, 0, 0, 1, 0, -1], "float32"))
    same(run("sign", np.array([-128, 0, 5], "int8")), np.array([-1, 0, 1], "int8"))
    same(run("trunc", x), np.array([-2, -0.0, 0, 3, np.nan, -np.inf], "float32"))
    same(run("trunc", np.array([-3, 4], "int16")), np.array([-3, 4], "int16"))
    same(run("isnan", x), np.array([0, 0, 0, 0, 1, 0], bool))
    same(run("isinf", x), np.array([0, 0, 0, 0, 0, 1], bool))
    same(run("isfinite", x), np.array([1, 1, 1, 1, 0, 0], bool))
    same(run("isfinite", np.array([[1, 2]], "uint8")), np.array([[True, True]]))
    same(run("isnan", np.array(True)), np.array(False))
    same(run("copy", np.array([[1.5]], "float16")), np.array([[1.5]], "float16"))


def test_float_math_values() -> None:
    close(run("log2", np.array([8.0, 0.0, -1.0], "float64")), np.array([3.0, -np.inf, np.nan]))
    close(run("log10", np.array([1000.0], "float32")), np.array([3.0], "float32"))
    close(run("asin", np.array([1.0, 2.0])), np.array([math.pi / 2, np.nan]))
    close(run("acosh", np.array([1.0, 0.5])), np.array([0.0, np.nan]))
    close(run("atanh", np.array([1.0, -1.0])), np.array([np.inf, -np.inf]))
    close(run("erf", np.array([0.0, np.inf, -np.inf, np.nan])), np.array([0, 1, -1, np.nan]))
    assert run("erf", np.array([0.5], "float16")).dtype == np.float16


def test_transcendental_results_are_compared_under_the_tolerance_policy() -> None:
    # numpy's SIMD log10 of 1000f is 3.0000002 on some CPUs: one ulp, within the policy.
    close(np.array([3.0000002], "float32"), np.array([3.0], "float32"))
    with pytest.raises(AssertionError):
        close(np.array([3.001], "float32"), np.array([3.0], "float32"))
    with pytest.raises(AssertionError):
        close(np.array([np.inf]), np.array([-np.inf]))


def test_fast_functions_and_their_undefined_inputs() -> None:
    x = np.array([0.0, 1.0, -100.0, np.nan], "float32")
    same(run("fast_exp", x), np.exp(x))
    same(run("fast_exp", np.array([100.0], "float64")), np.exp(np.array([100.0])))
    with raises(UndefinedBehavior, "fast_exp of float32 88.5 above 88.376"):
        run("fast_exp", np.array([1.0, 88.5], "float32"))
    same(run("fast_exp", np.array([np.inf], "float32")), np.array([np.inf], "float32"))
    with raises(UndefinedBehavior, "fast_tanh of a float32 NaN"):
        run("fast_tanh", np.array([np.nan], "float32"))
    same(run("fast_tanh", np.array([np.nan])), np.array([np.nan]))
    with raises(UndefinedBehavior, "fast_erf of a float16 NaN"):
        run("fast_erf", np.array([np.nan], "float16"))
    same(run("fast_erf", np.array([np.nan])), np.array([np.nan]))


def test_reinterpret_values() -> None:
    same(run("reinterpret", np.array([1.0, -2.0], "float32"), attrs=CastAttrs("int32")),
         np.array([0x3F800000, -0x40000000], "int32"))  # fmt: skip
    same(run("reinterpret", np.array(-1, "int16"), attrs=CastAttrs("uint16")),
         np.array(65535, "uint16"))  # fmt: skip
    same(run("reinterpret", np.array([0x7C00], "uint16"), attrs=CastAttrs("float16")),
         np.array([np.inf], "float16"))  # fmt: skip


@pytest.mark.parametrize(("name", "op_type", "bounds"), _ONNX_FLOAT_UNARY)
def test_float_unary_against_onnxruntime(
    name: str, op_type: str, bounds: tuple[float, float]
) -> None:
    # float32: onnxruntime's CPU kernels for most of these have no float64 version.
    x = _random((6, 8), "float32", *bounds)
    expected = onnx_peer.onnx_run(op_type, [x])
    actual = run(name, x)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert compare_arrays(expected, actual) is None, name


def test_sign_and_predicates_against_onnxruntime() -> None:
    for dtype in ("float32", "int32", "int8"):
        x = _random((3, 5), dtype, -3, 3)
        same(run("sign", x), onnx_peer.onnx_run("Sign", [x]))
    x = np.array([1.0, np.nan, np.inf, -np.inf, 0.0, -3.5], "float32")
    same(run("isnan", x), onnx_peer.onnx_run("IsNaN", [x], out_dtype="bool"))
    same(run("isinf", x), onnx_peer.onnx_run("IsInf", [x], out_dtype="bool"))


def test_bitwise_not_against_onnxruntime() -> None:
    x = _random((5,), "int16", -300, 300)
    same(run("bitwise_not", x), onnx_peer.onnx_run("BitwiseNot", [x], opset=18))


def test_log2_log10_trunc_isfinite_per_element() -> None:
    x = np.concatenate([_random((30,), "float64", 0.001, 1000), [0.0, -1.0, np.inf, np.nan]])
    for name, f in [("log2", math.log2), ("log10", math.log10)]:

        def one(v: float, f: Any = f) -> float:
            return f(v) if v > 0 else (-math.inf if v == 0 else math.nan)

        expected = np.array([one(float(v)) for v in x])
        assert compare_arrays(expected, run(name, x)) is None
        narrow = x.astype("float32")
        expected32 = np.array([one(float(v)) for v in narrow]).astype("float32")
        assert compare_arrays(expected32, run(name, narrow)) is None
    y = np.concatenate([_random((30,), "float32", -9, 9), [np.inf, -np.inf, np.nan, -0.5]])
    truncated = [math.trunc(v) if math.isfinite(v) else v for v in y.astype(float)]
    same(run("trunc", y), np.copysign(np.array(truncated, "float32"), y))
    same(run("isfinite", y), np.array([math.isfinite(v) for v in y.astype(float)]))


@pytest.mark.parametrize(
    ("source", "target", "code_in", "code_out"),
    [
        ("float32", "int32", "f", "i"),
        ("int64", "float64", "q", "d"),
        ("uint16", "float16", "H", "e"),
        ("float64", "uint64", "d", "Q"),
        ("int8", "uint8", "b", "B"),
    ],
)
def test_reinterpret_against_struct(source: str, target: str, code_in: str, code_out: str) -> None:
    x = _random((3, 4), source, -100, 100)
    expected = np.array(
        [struct.unpack("<" + code_out, struct.pack("<" + code_in, v))[0] for v in x.flat],
        target,
    ).reshape(x.shape)
    same(run("reinterpret", x, attrs=CastAttrs(target)), expected)


def test_tvm_fast_tanh_is_within_its_documented_tolerance() -> None:
    x = np.concatenate(
        [_random((4000,), "float32", -12, 12), np.array([0.0, -0.0, 1e-30, 9.5], "float32")]
    )
    assert _policy_ulps(run("fast_tanh", x), _tvm_fast_tanh(x)) <= 3
    assert compare_arrays(run("fast_tanh", x), _tvm_fast_tanh(x)) is None


def test_tvm_fast_exp_is_within_its_documented_tolerance() -> None:
    small = _random((4000,), "float32", -10, 10)
    large = np.concatenate(
        [_random((4000,), "float32", -88.37, 88.37), np.array([88.37, -88.37], "float32")]
    )
    with np.errstate(all="ignore"):
        assert _policy_ulps(run("fast_exp", small), _tvm_fast_exp(small)) <= 6
        assert compare_arrays(run("fast_exp", small), _tvm_fast_exp(small)) is None
        assert _policy_ulps(run("fast_exp", large), _tvm_fast_exp(large)) <= 36
        # -inf and values below TVM's clamp: 0 against a subnormal or 0, within the budget.
        tails = np.array([-np.inf, -95.0, -88.5], "float32")
        assert compare_arrays(run("fast_exp", tails), _tvm_fast_exp(tails)) is None


@pytest.mark.parametrize(("name", "dtype", "attrs"), of_family(_CALLS, "elementwise"))
def test_calls_round_trip_through_the_text_format(name: str, dtype: str, attrs: str) -> None:
    check_text_round_trip(name, dtype, attrs)


def test_every_op_has_relation_reference_and_name() -> None:
    for name in NAMES:
        op = OPS[name]
        assert op.relation is not None and op.reference is not None, name
    names = {name: OPS[name].relation_name for name in NAMES}
    assert {k for k, v in names.items() if v == "Identity"} == {
        *UNARY_ANY,
        *UNARY_FLOAT,
        "logical_not",
        "clip",
        "nn.leaky_relu",
    }
    assert {k for k, v in names.items() if v == "Broadcast"} == {
        *ARITHMETIC,
        "power",
        "logical_and",
        "logical_or",
    }
    assert {k for k, v in names.items() if v == "BroadcastComp"} == set(COMPARISONS)
    assert (names["cast"], names["where"], names["full_like"]) == ("Cast", "Where", "FullLike")


def test_logical_not_needs_bool() -> None:
    assert relate("logical_not", t((n,), "bool")) == t((n,), "bool")
    with raises(RelationError, "expected bool for data, found int8"):
        relate("logical_not", t((2,), "int8"))


@pytest.mark.parametrize("name", UNARY_FLOAT)
def test_float_unary_needs_float(name: str) -> None:
    for dtype in FLOATS:
        assert relate(name, t((ANY, n), dtype)) == t((ANY, n), dtype)
    for dtype in ("int32", "uint8", "bool"):
        with raises(RelationError, f"expected a float dtype for data, found {dtype}"):
            relate(name, t((2,), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", of_family(UNARY_ANY, "elementwise"))
def test_identity_keeps_type(name: str, dtype: str) -> None:
    for shape in [(), (2, 3), (ANY, n, 2 * m + 1)]:
        assert relate(name, t(shape, dtype)) == t(shape, dtype)


def test_identity_with_attributes() -> None:
    for dtype in DTYPES:
        assert relate("clip", t((n, 2), dtype), attrs=ClipAttrs(0.0, 1.0)) == t((n, 2), dtype)
        assert relate("nn.leaky_relu", t((ANY,), dtype), attrs=LeakyReluAttrs()) == t((ANY,), dtype)


@pytest.mark.parametrize("target", DTYPES)
def test_cast_to_every_dtype(target: str) -> None:
    for source in DTYPES:
        shape: tuple[Dim, ...] = (ANY, n, 3)
        assert relate("cast", t(shape, source), attrs=CastAttrs(target)) == t(shape, target)
    assert relate("cast", t((), "float32"), attrs=CastAttrs(target)) == t((), target)


def test_cast_without_dtype_is_rejected() -> None:
    with raises(RelationError, "expected a target dtype"):
        relate("cast", t((2,)), attrs=CastAttrs(""))


def test_non_tensor_and_arity_errors() -> None:
    pair = TupleType((t((2,)), t((2,))))
    with raises(RelationError, "expected a tensor for lhs, found a tuple"):
        relate("add", pair, t((2,)))
    with raises(RelationError, "expected a tensor for data, found a tuple"):
        relate("exp", pair)
    with raises(RelationError, "expected 2 arguments, found 1"):
        relate("add", t((2,)))
    with raises(RelationError, "expected 3 arguments, found 2"):
        relate("where", t((2,), "bool"), t((2,)))


def test_abs_and_negative_of_int_min() -> None:
    for dtype in ("int32", "int64"):
        lo = np.iinfo(dtype).min
        for name in ("abs", "negative"):
            with raises(UndefinedBehavior, f"{name} overflows {dtype}"):
                run(name, np.array([1, lo], dtype))
        same(
            run("abs", np.array([lo + 1, -4, 4], dtype)),
            np.array([-(lo + 1), 4, 4], dtype),
        )
    same(run("abs", np.array([2**32 - 1], "uint32")), np.array([2**32 - 1], "uint32"))


def test_round_halves_away_from_zero() -> None:
    for dtype in FLOATS:
        x = np.array([2.5, -2.5, 0.5, -0.5, 1.5, -0.4, 0.0, 3.7, np.inf, -np.inf, np.nan], dtype)
        expected = np.array([3, -3, 1, -1, 2, -0.0, 0, 4, np.inf, -np.inf, np.nan], dtype)
        same(run("round", x), expected)
    # The largest float32 below one half must not round up through x + 0.5.
    same(run("round", np.array([0.49999997], "float32")), np.array([0.0], "float32"))


def test_rounding_of_integers_is_the_identity() -> None:
    for dtype in (*INTEGERS, "bool"):
        x = np.array([0, 1, 1], dtype)
        for name in ("round", "floor", "ceil"):
            same(run(name, x), x)
    same(run("floor", np.array([-1.5, 1.5], "float16")), np.array([-2, 1], "float16"))
    same(run("ceil", np.array([-1.5, 1.5], "float16")), np.array([-1, 2], "float16"))


def test_transcendental_values() -> None:
    x = np.array([0.0, 1.0, -1.0, 30.0, -800.0], "float32")
    np.testing.assert_allclose(
        run("sigmoid", x), [0.5, 0.7310585786, 0.2689414214, 1.0, 0.0], rtol=1e-6
    )
    np.testing.assert_allclose(
        run("tanh", x),
        [0.0, 0.7615941559557649, -0.7615941559557649, 1.0, -1.0],
        rtol=1e-6,
    )
    same(
        run("rsqrt", np.array([4.0, 0.25, 0.0], "float32")),
        np.array([0.5, 2.0, np.inf], "f4"),
    )
    assert np.isnan(run("rsqrt", np.float64(-1)))
    close(run("exp", np.array([0.0, -np.inf], "float16")), np.array([1.0, 0.0], "float16"))
    close(run("log", np.array([1.0, 0.0], "float64")), np.array([0.0, -np.inf]))
    same(run("sqrt", np.array([9.0, -0.0], "float32")), np.array([3.0, -0.0], "float32"))
    assert run("sigmoid", np.array([1.0], "float16")).dtype == np.float16


def test_clip_floats() -> None:
    x = np.array([np.nan, -3.0, 7.0, 2.5, -np.inf], "float32")
    # min(NaN, 6) selects 6: TVM's clip of NaN is a_max.
    same(
        run("clip", x, attrs=ClipAttrs(0.0, 6.0)),
        np.array([6, 0, 6, 2.5, 0], "float32"),
    )
    # tvm::min(x, +inf) and tvm::max(x, -inf) are simplified away, so NaN passes through.
    same(run("clip", x, attrs=ClipAttrs(-math.inf, math.inf)), x)
    # With only the lower bound, NaN meets max(NaN, 1), which selects 1.
    same(
        run("clip", x, attrs=ClipAttrs(1.0, math.inf)),
        np.array([1, 1, 7, 2.5, 1], "float32"),
    )
    same(
        run("clip", np.float16(3.0), attrs=ClipAttrs(0.1, 0.2)),
        np.array(0.2, "float16"),
    )
    # a_min > a_max: the lower bound wins.
    same(
        run("clip", np.array([1.0, 9.0]), attrs=ClipAttrs(5.0, 2.0)),
        np.array([5.0, 5.0]),
    )


def test_clip_integers_truncate_the_bounds() -> None:
    x = np.array([-5, 3, 9], "int8")
    same(run("clip", x, attrs=ClipAttrs(-1.5, 6.7)), np.array([-1, 3, 6], "int8"))
    same(
        run("clip", np.array([0, 7, 250], "uint8"), attrs=ClipAttrs(1.9, 200.9)),
        np.array([1, 7, 200], "uint8"),
    )
    same(
        run("clip", np.array([False, True]), attrs=ClipAttrs(0.0, 0.5)),
        np.array([False, False]),
    )
    same(
        run("clip", np.array([-(2**40), 2**40], "int64"), attrs=ClipAttrs(-(2.0**33), 2.0**34)),
        np.array([-(2**33), 2**34], "int64"),
    )


@pytest.mark.parametrize(
    ("dtype", "a_min", "a_max"),
    [
        ("int8", -1000.0, 1.0),
        ("int8", 0.0, 128.0),
        ("uint8", -0.5, 1.0),
        ("int32", math.nan, 1.0),
        ("int32", 0.0, math.inf),
        ("bool", 0.0, 2.0),
        ("float16", 0.0, 1e5),
        ("float32", -1e39, 0.0),
    ],
)
def test_clip_bounds_beyond_the_dtype_are_undefined(dtype: str, a_min: float, a_max: float) -> None:
    with pytest.raises(UndefinedBehavior, match=rf"clip a_m(in|ax) .* {dtype}"):
        run("clip", np.zeros(2, dtype), attrs=ClipAttrs(a_min, a_max))


def test_cast_float_to_int_truncates() -> None:
    x = np.array([1.9, -1.9, 0.5, -0.5, 127.99], "float32")
    same(run("cast", x, attrs=CastAttrs("int8")), np.array([1, -1, 0, 0, 127], "int8"))
    same(
        run("cast", np.array([-0.9, 255.9]), attrs=CastAttrs("uint8")),
        np.array([0, 255], "uint8"),
    )
    same(
        run("cast", np.float64(2**63 - 1024), attrs=CastAttrs("int64")),
        np.array(2**63 - 1024),
    )
    same(
        run("cast", np.float16(-2048), attrs=CastAttrs("int16")),
        np.array(-2048, "int16"),
    )


@pytest.mark.parametrize(
    ("value", "dtype"),
    [
        (math.nan, "int32"),
        (math.inf, "int64"),
        (-math.inf, "uint8"),
        (2.0**31, "int32"),
        (-(2.0**31) - 1, "int32"),
        (-1.0, "uint8"),
        (256.0, "uint8"),
        (2.0**64, "uint64"),
        (128.0, "int8"),
    ],
)
def test_cast_float_out_of_range_is_undefined(value: float, dtype: str) -> None:
    with raises(UndefinedBehavior, f"does not fit {dtype}"):
        run("cast", np.array([0.0, value]), attrs=CastAttrs(dtype))
    same(
        run("cast", np.float64(-(2.0**31)), attrs=CastAttrs("int32")),
        np.array(-(2**31), "i4"),
    )


def test_cast_between_integers_wraps_and_extends() -> None:
    same(
        run("cast", np.array([300, -1], "int32"), attrs=CastAttrs("int8")),
        np.array([44, -1], "int8"),
    )
    same(
        run("cast", np.array([-1], "int8"), attrs=CastAttrs("uint16")),
        np.array([65535], "uint16"),
    )
    same(
        run("cast", np.array([255], "uint8"), attrs=CastAttrs("int32")),
        np.array([255], "int32"),
    )
    same(
        run("cast", np.array([True, False]), attrs=CastAttrs("int64")),
        np.array([1, 0], "int64"),
    )
    same(
        run("cast", np.array([2, 0, -3], "int16"), attrs=CastAttrs("bool")),
        np.array([True, False, True]),
    )


def test_cast_to_and_from_float() -> None:
    # NaN is false: LLVM's cast to i1 is the ordered fcmp one.
    x = np.array([np.nan, 0.0, -0.0, 0.5, -np.inf], "float32")
    same(
        run("cast", x, attrs=CastAttrs("bool")),
        np.array([False, False, False, True, True]),
    )
    same(
        run("cast", np.array([2049, 2051], "int32"), attrs=CastAttrs("float16")),
        np.array([2048, 2052], "float16"),
    )
    same(run("cast", np.array([True]), attrs=CastAttrs("float64")), np.array([1.0]))
    same(
        run("cast", np.array([1e300]), attrs=CastAttrs("float32")),
        np.array([np.inf], "float32"),
    )
    same(
        run("cast", np.array([2**64 - 1], "uint64"), attrs=CastAttrs("float32")),
        np.array([2.0**64], "float32"),
    )


@pytest.mark.parametrize("target", DTYPES)
def test_cast_to_every_dtype_values(target: str) -> None:
    for source in DTYPES:
        x = np.array([[0, 1], [1, 0]], source)
        out = run("cast", x, attrs=CastAttrs(target))
        same(out, np.array([[0, 1], [1, 0]], target))


@pytest.mark.parametrize(
    ("name", "op_type", "bounds", "rtol"), of_family(_ONNX_UNARY, "elementwise")
)
def test_unary_against_onnxruntime(
    name: str, op_type: str, bounds: tuple[float, float], rtol: float
) -> None:
    for dtype in ("float32", "float64"):
        x = _random((4, 5), dtype, *bounds)
        expected = run_onnx_node_typed(op_type, [x], dtype)
        actual = run(name, x)
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        if rtol:
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=1e-7)
        else:
            np.testing.assert_array_equal(actual, expected)
    if name in ("negative", "abs", "nn.relu"):
        x = _random((7,), "int32", -9, 9)
        np.testing.assert_array_equal(run(name, x), run_onnx_node_typed(op_type, [x], "int32"))


def test_logical_not_against_onnxruntime() -> None:
    x = _random((3, 3), "bool")
    np.testing.assert_array_equal(run("logical_not", x), run_onnx_node_typed("Not", [x], "bool"))


def test_clip_against_onnxruntime() -> None:
    for dtype in ("float32", "int32", "int8"):
        x = _random((4, 6), dtype, -9, 9)
        bounds = [np.array(-2, dtype), np.array(5, dtype)]
        expected = run_onnx_node_typed("Clip", [x, *bounds], dtype)
        same(run("clip", x, attrs=ClipAttrs(-2.0, 5.0)), expected)


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("float32", "int32"),
        ("float64", "int8"),
        ("float32", "float16"),
        ("float16", "float64"),
        ("int32", "float32"),
        ("int64", "int8"),
        ("int8", "uint8"),
        ("uint8", "int16"),
        ("float32", "bool"),
        ("int32", "bool"),
        ("bool", "float32"),
    ],
)
def test_cast_against_onnxruntime(source: str, target: str) -> None:
    x = _random((5, 4), source, -100, 100)
    expected = run_onnx_node_typed("Cast", [x], target, to=_ONNX_TYPES[target])
    same(run("cast", x, attrs=CastAttrs(target)), expected)


def test_rsqrt_against_decimal() -> None:
    for dtype, maxulp in (("float16", 2), ("float32", 2), ("float64", 2)):
        x = np.concatenate(
            [
                _random((20,), dtype, 0.01, 100),
                np.array([1.0, 4.0, 0.25, 2.0, 3.0], dtype),
                np.array([np.finfo(dtype).tiny, np.finfo(dtype).max], dtype),
            ]
        )
        # Each float is exact in Decimal; the correctly rounded result in the dtype.
        expected = np.array([_rsqrt_decimal(float(v)) for v in x]).astype(dtype)
        actual = run("rsqrt", x)
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        np.testing.assert_array_max_ulp(actual, expected, maxulp=maxulp)
        # Exact where 1 / sqrt(x) is representable exactly: the powers of four.
        same(
            run("rsqrt", np.array([1.0, 4.0, 0.25], dtype)),
            np.array([1.0, 0.5, 2.0], dtype),
        )
    special = np.array([0.0, -0.0, np.inf, -1.0, np.nan], "float32")
    same(
        run("rsqrt", special),
        np.array([np.inf, -np.inf, 0.0, np.nan, np.nan], "float32"),
    )


def test_round_against_decimal() -> None:
    halves = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.4, 1e10 + 0.5, 0.0, -0.0]
    for dtype in ("float16", "float32", "float64"):
        with np.errstate(over="ignore"):  # 1e10 + 0.5 is inf in float16
            special = np.array([*halves, np.inf, -np.inf], dtype)
        x = np.concatenate([_random((30,), dtype, -50, 50), special])
        expected = np.array([_round_decimal(v, dtype) for v in x], dtype)
        same(run("round", x), expected)
    for dtype in ("int8", "int64", "uint16", "bool"):
        x = _random((7,), dtype, -9, 9)
        same(run("round", x), np.array([_round_decimal(v, dtype) for v in x], dtype))


@pytest.mark.parametrize("name", of_family(NAMES, "elementwise"))
@settings(max_examples=30)  # per op: 38 ops share the file's time budget
@given(data=st.data())
def test_reference_agrees_with_relation(name: str, data: st.DataObject) -> None:
    check_reference_agrees_with_relation(name, data)


def test_accepted_dtypes() -> None:
    """Exactly the dtypes ``accepted_dtypes`` lists pass each relation (the agreement test
    draws from that list)."""
    attrs: dict[str, Attrs] = {
        "clip": ClipAttrs(0.0, 1.0),
        "cast": CastAttrs("int8"),
        "nn.leaky_relu": LeakyReluAttrs(),
    }
    for name in NAMES:
        op = OPS[name]
        assert op.relation is not None
        for dtype in DTYPES:
            types = tuple(t((2,), dtype) for _ in op.inputs)
            if name == "full_like":
                types = (t((2,), dtype), t((), dtype))
            try:
                op.relation(types, attrs.get(name))
                accepted = True
            except RelationError:
                accepted = False
            assert accepted == (dtype in accepted_dtypes(name)), (name, dtype)


def test_attribute_defaults_follow_tvm() -> None:
    def defaults(cls: type[Attrs]) -> dict[str, object]:
        return {s.name: (None if s.required else s.default) for s in cls.field_specs()}

    assert defaults(GroupNormAttrs) == {
        "num_groups": 0,
        "axis": 1,
        "epsilon": 1e-5,
        "center": True,
        "scale": True,
    }
    assert defaults(LRNAttrs) == {"size": 5, "axis": 1, "bias": 2.0, "alpha": 1e-4, "beta": 0.75}
    assert [s.name for s in L2NormalizeAttrs.field_specs() if s.required] == ["eps", "axis"]
    assert [s.name for s in NLLLossAttrs.field_specs()] == ["reduction", "ignore_index"]
    assert [s.name for s in MirrorPadAttrs.field_specs()] == ["mode", "pad_width"]
    assert defaults(Resize2DAttrs)["rounding_method"] == "round"
    assert [s.name for s in Resize2DAttrs.field_specs()] == [
        "size",
        "roi",
        "layout",
        "method",
        "coordinate_transformation_mode",
        "rounding_method",
        "cubic_alpha",
        "cubic_exclude",
        "extrapolation_value",
        "out_dtype",
    ]
