"""The ``broadcast`` operators (``semantics/ops/broadcast.py``): relations, references, checks."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.oracles.compare import compare_arrays
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops.registry import RelationError
from relay.semantics.syntax import ANY, DTYPES, Dim

pytest.importorskip("onnxruntime")
from ops_helpers import (
    ARITHMETIC,
    BITWISE,
    COMPARISONS,
    DIVISIONS,
    INTEGERS,
    NAMES,
    SIGNED,
    UNSIGNED,
    Array,
    _is_float,
    check_reference_agrees_with_relation,
    check_text_round_trip,
    m,
    n,
    of_family,
    raises,
    relate,
    run,
    same,
    t,
)
from ops_helpers import run_onnx_node_typed as onnx_run

_CALLS = [
    ("bitwise_xor", "int16", ""),
]


RNG = np.random.default_rng(20241129)


def _random(shape: tuple[int, ...], dtype: str, low: float = -4, high: float = 4) -> Array:
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return RNG.integers(int(low), int(high), shape, endpoint=True).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


onnx_peer = pytest.importorskip("relay.oracles.onnx_peer")


def close(actual: Array, expected: Array) -> None:
    """Equal dtype and shape, values equal under the tolerance policy (``oracles/compare.py``):
    how a transcendental function's result is compared, never bit-exactly."""
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    mismatch = compare_arrays(expected, actual)
    assert mismatch is None, mismatch


pytest.importorskip("onnx")


_ONNX_BINARY: list[tuple[str, str, tuple[str, ...], dict[str, Any]]] = [
    ("add", "Add", ("float32", "float64", "int32", "int64"), {}),
    ("subtract", "Sub", ("float32", "int64"), {}),
    ("multiply", "Mul", ("float32", "int32"), {}),
    ("divide", "Div", ("float32", "float64", "int32"), {}),
    ("power", "Pow", ("float32",), {}),
    ("maximum", "Max", ("float32", "int32", "uint8"), {}),
    ("minimum", "Min", ("float32", "int64"), {}),
    ("equal", "Equal", ("float32", "int32"), {}),
    ("less", "Less", ("float32", "int8"), {}),
    ("less_equal", "LessOrEqual", ("float32",), {}),
    ("greater", "Greater", ("float64", "int16"), {}),
    ("greater_equal", "GreaterOrEqual", ("float32",), {}),
    ("logical_and", "And", ("bool",), {}),
    ("logical_or", "Or", ("bool",), {}),
    ("mod", "Mod", ("float32", "int32"), {"fmod": 1}),  # C's fmod: the sign of the dividend
    ("floor_mod", "Mod", ("int32", "int64"), {"fmod": 0}),  # Python's %: the sign of the divisor
]


def _floor_divide_python(a: Any, b: Any, dtype: str) -> Any:
    """TOPI's floor division on Python scalars: ``//`` on integers; for floats, the quotient
    rounded once to ``dtype`` (exact in binary64, and binary64 has the bits to round it again
    correctly), then ``math.floor``."""
    if not _is_float(dtype):
        return int(a) // int(b)
    quotient = float(np.dtype(dtype).type(float(a) / float(b)))
    return math.floor(quotient) if math.isfinite(quotient) else quotient


def _not_equal_python(a: Any, b: Any) -> bool:
    """LLVM's ordered ``fcmp one`` on Python values: false when either side is NaN."""
    if isinstance(a, float) and (math.isnan(a) or math.isnan(b)):
        return False
    return a != b


@pytest.mark.parametrize("name", BITWISE)
def test_bitwise_binary_broadcasts_integers(name: str) -> None:
    assert relate(name, t((2, 1), "uint16"), t((3,), "uint16")) == t((2, 3), "uint16")
    with raises(RelationError, "expected an integer dtype (int8 to uint64, not bool) for lhs"):
        relate(name, t((2,), "float32"), t((2,), "float32"))
    with raises(RelationError, "data types int32 and int64 do not match"):
        relate(name, t((2,), "int32"), t((2,), "int64"))
    with raises(RelationError, "dimensions 2 and 3 are incompatible"):
        relate(name, t((2,), "int32"), t((3,), "int32"))


def test_other_binary_relations() -> None:
    assert relate("logical_xor", t((n,), "bool"), t((), "bool")) == t((n,), "bool")
    with raises(RelationError, "expected bool for lhs and rhs, found int8"):
        relate("logical_xor", t((2,), "int8"), t((2,), "int8"))
    for dtype in DTYPES:
        for name in ("trunc_divide", "trunc_mod"):
            assert relate(name, t((4, 1), dtype), t((1, 5), dtype)) == t((4, 5), dtype)


def test_shifts_wrap_and_fill_by_signedness() -> None:
    same(run("left_shift", np.array([64, 1, -1], "int8"), np.int8(1)),
         np.array([-128, 2, -2], "int8"))  # fmt: skip
    same(run("left_shift", np.array([2**31 - 1], "int32"), np.int32(1)),
         np.array([-2], "int32"))  # fmt: skip
    same(run("right_shift", np.array([-8, 7], "int16"), np.array([1, 2], "int16")),
         np.array([-4, 1], "int16"))  # fmt: skip
    same(run("right_shift", np.array([0xF0], "uint8"), np.uint8(4)), np.array([0x0F], "uint8"))
    same(run("right_shift", np.array([-1], "int64"), np.int64(63)), np.array([-1], "int64"))


@pytest.mark.parametrize("name", ["left_shift", "right_shift"])
@pytest.mark.parametrize(("dtype", "amount"), [("int8", 8), ("int32", -1), ("uint64", 64)])
def test_shift_out_of_range_is_undefined(name: str, dtype: str, amount: int) -> None:
    with raises(UndefinedBehavior, f"{name} by {amount}: the amount must lie in"):
        run(name, np.array([1, 2], dtype), np.array([0, amount], dtype))


def test_bitwise_values() -> None:
    a, b = np.array([0b1100, -1], "int8"), np.array([0b1010, 5], "int8")
    same(run("bitwise_and", a, b), np.array([0b1000, 5], "int8"))
    same(run("bitwise_or", a, b), np.array([0b1110, -1], "int8"))
    same(run("bitwise_xor", a, b), np.array([0b0110, -6], "int8"))
    same(run("bitwise_not", np.array([0, 255], "uint8")), np.array([255, 0], "uint8"))
    same(run("logical_xor", np.array([True, True, False]), np.array([True, False, False])),
         np.array([False, True, False]))  # fmt: skip


def test_trunc_divide_and_mod() -> None:
    a, b = np.array([7, -7, 7, -7], "int32"), np.array([2, 2, -2, -2], "int32")
    same(run("trunc_divide", a, b), np.array([3, -3, -3, 3], "int32"))
    same(run("trunc_mod", a, b), np.array([1, -1, 1, -1], "int32"))
    x, y = np.array([7.5, -7.5, 1.0, 0.0], "float32"), np.array([2, 2, 0, 0], "float32")
    same(run("trunc_divide", x, y), np.array([3, -3, np.inf, np.nan], "float32"))
    same(run("trunc_mod", x, y), np.array([1.5, -1.5, np.nan, np.nan], "float32"))
    same(run("trunc_divide", np.array([True, False]), np.array(True)), np.array([True, False]))


@pytest.mark.parametrize("name", ["trunc_divide", "trunc_mod"])
def test_trunc_division_undefined_cases(name: str) -> None:
    with raises(UndefinedBehavior, f"{name}: integer division by zero (uint8)"):
        run(name, np.array([1, 2], "uint8"), np.array([1, 0], "uint8"))
    with raises(UndefinedBehavior, f"{name}: -128 / -1 overflows int8"):
        run(name, np.array([-128], "int8"), np.array([-1], "int8"))
    with raises(UndefinedBehavior, f"{name}: integer division by zero (bool)"):
        run(name, np.array([True]), np.array([False]))


@pytest.mark.parametrize(
    ("name", "op_type"),
    [("bitwise_and", "BitwiseAnd"), ("bitwise_or", "BitwiseOr"), ("bitwise_xor", "BitwiseXor")],
)
def test_bitwise_against_onnxruntime(name: str, op_type: str) -> None:
    for dtype in ("int8", "int32", "uint16", "uint64", "int64"):
        lhs, rhs = _random((3, 4), dtype, 0, 120), _random((4,), dtype, 0, 120)
        if dtype.startswith("int"):
            lhs = lhs - np.asarray(60, dtype)
        same(run(name, lhs, rhs), onnx_peer.onnx_run(op_type, [lhs, rhs], opset=18))


@pytest.mark.parametrize(("name", "direction"), [("left_shift", "LEFT"), ("right_shift", "RIGHT")])
def test_shifts_against_onnxruntime(name: str, direction: str) -> None:
    for dtype, bits in [("uint8", 8), ("uint16", 16), ("uint32", 32), ("uint64", 64)]:
        lhs = RNG.integers(0, np.iinfo(dtype).max, (3, 4), dtype=dtype, endpoint=True)
        rhs = RNG.integers(0, bits - 1, (4,), endpoint=True).astype(dtype)
        expected = onnx_peer.onnx_run("BitShift", [lhs, rhs], direction=direction)
        same(run(name, lhs, rhs), expected)


def test_signed_right_shift_against_python_integers() -> None:
    lhs, rhs = _random((20,), "int32", -(2**31), 2**31 - 1), _random((20,), "int32", 0, 31)
    expected = np.array([int(a) >> int(b) for a, b in zip(lhs, rhs, strict=True)], "int32")
    same(run("right_shift", lhs, rhs), expected)


def test_logical_xor_copy_and_truncating_division_against_onnxruntime() -> None:
    a, b = _random((3, 1), "bool"), _random((4,), "bool")
    same(run("logical_xor", a, b), onnx_peer.onnx_run("Xor", [a, b]))
    for dtype in ("float16", "int8", "uint32", "bool"):
        x = _random((2, 3), dtype)
        same(run("copy", x), onnx_peer.onnx_run("Identity", [x]))
    for dtype in ("int32", "int64", "int8"):
        lhs, rhs = _random((4, 5), dtype, -50, 50), _random((5,), dtype, 1, 9)
        rhs = np.where(RNG.integers(0, 2, rhs.shape) == 1, rhs, -rhs).astype(dtype)
        same(run("trunc_divide", lhs, rhs), onnx_peer.onnx_run("Div", [lhs, rhs]))
        same(run("trunc_mod", lhs, rhs), onnx_peer.onnx_run("Mod", [lhs, rhs], fmod=1))
    x, y = _random((4, 5), "float32", -9, 9), _random((5,), "float32", 0.5, 3)
    same(run("trunc_mod", x, y), onnx_peer.onnx_run("Mod", [x, y], fmod=1))


@pytest.mark.parametrize(("name", "dtype", "attrs"), of_family(_CALLS, "broadcast"))
def test_calls_round_trip_through_the_text_format(name: str, dtype: str, attrs: str) -> None:
    check_text_round_trip(name, dtype, attrs)


@pytest.mark.parametrize(
    ("lhs", "rhs", "expected"),
    [
        ((2, 3), (3,), (2, 3)),
        ((3,), (2, 3), (2, 3)),
        ((2, 1), (1, 4), (2, 4)),
        ((), (2, 3, 4), (2, 3, 4)),
        ((2, 3, 4), (), (2, 3, 4)),
        ((), (), ()),
        ((1, ANY), (5, 1), (5, ANY)),
        ((ANY, 3), (4, 1), (4, 3)),
        ((ANY,), (ANY,), (ANY,)),
        ((ANY,), (1,), (ANY,)),
        ((n, 1), (1, 3), (n, 3)),
        ((n, 3), (3,), (n, 3)),
        ((n,), (n,), (n,)),
        ((2 * n,), (n + n,), (2 * n,)),
        ((n, m), (1, m), (n, m)),
        ((ANY, n), (m, 1), (m, n)),
        ((0, 3), (1, 3), (0, 3)),
    ],
)
def test_broadcast_shapes(
    lhs: tuple[Dim, ...], rhs: tuple[Dim, ...], expected: tuple[Dim, ...]
) -> None:
    assert relate("add", t(lhs), t(rhs)) == t(expected)
    assert relate("less", t(lhs), t(rhs)) == t(expected, "bool")


@pytest.mark.parametrize(
    ("lhs", "rhs", "message"),
    [
        ((2, 3), (2, 4), "dimensions 3 and 4 are incompatible"),
        ((4, 3), (2, 3), "dimensions 4 and 2 are incompatible"),
        ((2, 3), (3, 2), "dimensions 3 and 2 are incompatible"),
        # TVM's ConcreteBroadcast cannot prove n = 3 or n = m, and rejects them.
        ((n,), (3,), "dimensions n and 3 are incompatible"),
        ((n,), (m,), "dimensions n and m are incompatible"),
        ((n + 1,), (n,), "dimensions n + 1 and n are incompatible"),
    ],
)
def test_broadcast_incompatible(lhs: tuple[Dim, ...], rhs: tuple[Dim, ...], message: str) -> None:
    for name in ("add", "equal"):
        with raises(RelationError, message):
            relate(name, t(lhs), t(rhs))


def test_broadcast_message_shows_both_types() -> None:
    # The relation says what is wrong; the type checker adds the call and the types.

    mod = relay.parse(
        "def @f(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 4), float32]) { multiply(%x, %y) }"
    )
    with pytest.raises(relay.RelayTypeError) as info:
        relay.infer_types(mod)
    assert info.value.message == (
        "Broadcast: dimensions 3 and 4 are incompatible in multiply(%x, %y): "
        "Tensor[(2, 3), float32] vs Tensor[(2, 4), float32]"
    )
    assert info.value.rule == "Broadcast"


@pytest.mark.parametrize("name", ARITHMETIC + COMPARISONS + ("power", "logical_and"))
def test_binary_dtype_mismatch(name: str) -> None:
    with raises(RelationError, "data types int32 and float32 do not match"):
        relate(name, t((2,), "int32"), t((2,), "float32"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ARITHMETIC)
def test_arithmetic_keeps_any_dtype(name: str, dtype: str) -> None:
    assert relate(name, t((2, 1), dtype), t((3,), dtype)) == t((2, 3), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", COMPARISONS)
def test_comparisons_give_bool(name: str, dtype: str) -> None:
    assert relate(name, t((n, 1), dtype), t((4,), dtype)) == t((n, 4), "bool")


@pytest.mark.parametrize("name", ["logical_and", "logical_or"])
def test_logical_binary_needs_bool(name: str) -> None:
    assert relate(name, t((2,), "bool"), t((1,), "bool")) == t((2,), "bool")
    for dtype in ("int32", "float32", "uint8"):
        with raises(RelationError, f"expected bool for lhs and rhs, found {dtype}"):
            relate(name, t((2,), dtype), t((2,), dtype))


def test_power_needs_float() -> None:
    assert relate("power", t((2, 1), "float16"), t((3,), "float16")) == t((2, 3), "float16")
    with raises(RelationError, "expected a float dtype for lhs and rhs, found int32"):
        relate("power", t((2,), "int32"), t((2,), "int32"))


@pytest.mark.parametrize(
    ("condition", "x", "y", "expected"),
    [
        ((2, 3), (2, 3), (2, 3), (2, 3)),
        ((2, 1), (1, 3), (3,), (2, 3)),
        ((), (2,), (2,), (2,)),
        ((4, 1, 1), (3, 1), (1, 5), (4, 3, 5)),
        ((n, 1), (1, 3), (), (n, 3)),
        ((ANY,), (1,), (4,), (4,)),
        ((1,), (ANY,), (1,), (ANY,)),
    ],
)
def test_where_broadcasts_three(
    condition: tuple[Dim, ...], x: tuple[Dim, ...], y: tuple[Dim, ...], expected: tuple[Dim, ...]
) -> None:
    for cond_dtype in ("bool", "int32", "float32"):
        out = relate("where", t(condition, cond_dtype), t(x, "int8"), t(y, "int8"))
        assert out == t(expected, "int8")


def test_where_errors() -> None:
    with raises(RelationError, "data types float32 and int32 do not match"):
        relate("where", t((2,), "bool"), t((2,), "float32"), t((2,), "int32"))
    with raises(RelationError, "dimensions 2 and 3 are incompatible"):
        relate("where", t((2,), "bool"), t((3,)), t((3,)))
    with raises(RelationError, "dimensions 2 and 4 are incompatible"):
        relate("where", t((3,), "bool"), t((2, 1)), t((4, 3)))


@pytest.mark.parametrize("dtype", SIGNED)
def test_integer_division_truncates_or_floors(dtype: str) -> None:
    a = np.array([-7, 7, -7, 7, 6, -6], dtype)
    b = np.array([2, -2, -2, 2, 3, 3], dtype)
    same(run("divide", a, b), np.array([-3, -3, 3, 3, 2, -2], dtype))
    same(run("mod", a, b), np.array([-1, 1, -1, 1, 0, 0], dtype))
    same(run("floor_divide", a, b), np.array([-4, -4, 3, 3, 2, -2], dtype))
    same(run("floor_mod", a, b), np.array([1, -1, -1, 1, 0, 0], dtype))


@pytest.mark.parametrize("dtype", UNSIGNED)
def test_unsigned_division(dtype: str) -> None:
    a = np.array([7, 250, 0], dtype)
    b = np.array([2, 7, 5], dtype)
    for name in ("divide", "floor_divide"):
        same(run(name, a, b), np.array([3, 35, 0], dtype))
    for name in ("mod", "floor_mod"):
        same(run(name, a, b), np.array([1, 5, 0], dtype))


def test_extreme_quotients_stay_defined() -> None:
    for dtype in SIGNED:
        lo = np.iinfo(dtype).min
        same(
            run("divide", np.array([lo], dtype), np.array([1], dtype)),
            np.array([lo], dtype),
        )
        same(
            run("floor_mod", np.array([lo], dtype), np.array([-2], dtype)),
            np.array([0], dtype),
        )
        same(
            run("divide", np.array([lo + 1], dtype), np.array([-1], dtype)),
            np.array([-lo - 1], dtype),
        )


@pytest.mark.parametrize("name", DIVISIONS)
@pytest.mark.parametrize("dtype", (*INTEGERS, "bool"))
def test_integer_division_by_zero_is_undefined(name: str, dtype: str) -> None:
    a = np.array([1, 1], dtype)
    b = np.array([1, 0], dtype)
    with raises(UndefinedBehavior, "division by zero"):
        run(name, a, b)


@pytest.mark.parametrize("name", DIVISIONS)
@pytest.mark.parametrize("dtype", SIGNED)
def test_int_min_by_minus_one_is_undefined(name: str, dtype: str) -> None:
    lo = np.iinfo(dtype).min
    with raises(UndefinedBehavior, f"{lo} / -1 overflows {dtype}"):
        run(name, np.array([3, lo], dtype), np.array([-1], dtype))


def test_bool_division() -> None:
    a = np.array([True, False])
    same(run("divide", a, np.array(True)), a)
    same(run("mod", a, np.array(True)), np.array([False, False]))


def test_float_division() -> None:
    same(run("divide", np.float32(1), np.float32(0)), np.array(np.inf, "float32"))
    same(run("divide", np.float32(-1), np.float32(0)), np.array(-np.inf, "float32"))
    assert np.isnan(run("divide", np.float32(0), np.float32(0)))
    # TOPI's floor(a / b), not numpy's floor_divide (which answers 9 and 0.09999...).
    same(run("floor_divide", 1.0, 0.1), np.array(10.0))
    same(run("floor_mod", 1.0, 0.1), np.array(0.0))
    same(run("floor_mod", 5.0, np.inf), np.array(np.nan))
    # mod is C's fmod: the sign of the dividend.
    same(run("mod", np.float32(-7.5), np.float32(2)), np.array(-1.5, "float32"))
    same(run("floor_mod", np.float32(-7.5), np.float32(2)), np.array(0.5, "float32"))
    same(run("floor_divide", np.float16(-7.5), np.float16(2)), np.array(-4, "float16"))
    assert np.isnan(run("mod", np.float64(1), np.float64(0)))


@pytest.mark.parametrize(
    ("name", "a", "b"),
    [("add", 2**31 - 1, 1), ("subtract", -(2**31), 1), ("multiply", 2**16, 2**15)],
)
def test_int32_overflow_is_undefined(name: str, a: int, b: int) -> None:
    with raises(UndefinedBehavior, f"{name} overflows int32"):
        run(name, np.array([0, a], "int32"), np.array([0, b], "int32"))
    same(
        run(name, np.array([a], "int64"), np.array([b], "int64")),
        np.array([{"add": a + b, "subtract": a - b, "multiply": a * b}[name]], "int64"),
    )


def test_64_bit_overflow_is_undefined() -> None:
    big = np.array([2**62], "int64")
    with raises(UndefinedBehavior, "multiply overflows int64"):
        run("multiply", big, np.array([2], "int64"))
    with raises(UndefinedBehavior, "add overflows uint64"):
        run("add", np.array([2**64 - 1], "uint64"), np.array([1], "uint64"))
    same(
        run("add", np.array([2**63], "uint64"), np.array([2**63 - 1], "uint64")),
        np.array([2**64 - 1], "uint64"),
    )


def test_unsigned_32_wraparound_is_undefined() -> None:
    with raises(UndefinedBehavior, "subtract overflows uint32"):
        run("subtract", np.array([0], "uint32"), np.array([1], "uint32"))
    with raises(UndefinedBehavior, "negative overflows uint32"):
        run("negative", np.array([0, 5], "uint32"))
    same(run("negative", np.array([0], "uint64")), np.array([0], "uint64"))


def test_narrow_integers_wrap() -> None:
    same(
        run("add", np.array([127], "int8"), np.array([1], "int8")),
        np.array([-128], "int8"),
    )
    same(
        run("multiply", np.array([300], "int16"), np.array([300], "int16")),
        np.array([24464], "int16"),
    )
    same(
        run("subtract", np.array([0], "uint8"), np.array([1], "uint8")),
        np.array([255], "uint8"),
    )
    same(
        run("add", np.array([65535], "uint16"), np.array([2], "uint16")),
        np.array([1], "uint16"),
    )
    same(run("negative", np.array([-128, 5], "int8")), np.array([-128, -5], "int8"))
    same(run("negative", np.array([1, 0], "uint8")), np.array([255, 0], "uint8"))
    same(run("abs", np.array([-128, -3], "int8")), np.array([-128, 3], "int8"))


def test_bool_arithmetic_is_modulo_two() -> None:
    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    same(run("add", a, b), np.array([False, True, True, False]))
    same(run("subtract", a, b), np.array([False, True, True, False]))
    same(run("multiply", a, b), np.array([False, False, False, True]))
    same(run("maximum", a, b), np.array([False, True, True, True]))
    same(run("minimum", a, b), np.array([False, False, False, True]))
    same(run("negative", a), a)
    same(run("abs", a), a)


def test_power_of_floats() -> None:
    lhs = np.array([2.0, -2.0, -8.0, 0.0, 4.0, 2.0], "float32")
    rhs = np.array([3.0, 3.0, 1 / 3, 0.0, 0.5, -1.0], "float32")
    close(run("power", lhs, rhs), np.array([8.0, -8.0, np.nan, 1.0, 2.0, 0.5], "float32"))


def test_maximum_minimum_are_selects() -> None:
    a = np.array([np.nan, 1.0, 2.0, -0.0], "float32")
    b = np.array([1.0, np.nan, 3.0, 0.0], "float32")
    same(run("maximum", a, b), np.array([1.0, np.nan, 3.0, 0.0], "float32"))
    same(run("minimum", a, b), np.array([1.0, np.nan, 2.0, 0.0], "float32"))
    same(
        run("maximum", np.array([-3, 7], "int64"), np.array(2, "int64")),
        np.array([2, 7]),
    )


def test_comparisons_with_nan_are_false() -> None:
    a = np.array([np.nan, np.nan, 1.0, 1.0], "float64")
    b = np.array([np.nan, 1.0, 1.0, 2.0], "float64")
    expected = {
        "equal": [False, False, True, False],
        "not_equal": [False, False, False, True],  # fcmp one, unlike IEEE's !=
        "less": [False, False, False, True],
        "less_equal": [False, False, True, True],
        "greater": [False, False, False, False],
        "greater_equal": [False, False, True, False],
    }
    for name, values in expected.items():
        same(run(name, a, b), np.array(values))


def test_integer_comparisons() -> None:
    a = np.array([[-1], [3]], "int8")
    b = np.array([3, -1], "int8")
    same(run("less", a, b), np.array([[True, False], [False, False]]))
    same(run("not_equal", a, b), np.array([[True, False], [False, True]]))
    same(run("greater_equal", np.array(True), np.array(False)), np.array(True))
    same(
        run("less", np.array([2**64 - 1], "uint64"), np.array([1], "uint64")),
        np.array([False]),
    )


def test_logical_truth_tables() -> None:
    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    same(run("logical_and", a, b), np.array([False, False, False, True]))
    same(run("logical_or", a, b), np.array([False, True, True, True]))
    same(run("logical_not", a), np.array([True, True, False, False]))


def test_where_selects_with_broadcasting() -> None:
    condition = np.array([[1], [0]], "int32")
    x = np.array([1, 2, 3], "float32")
    y = np.array(-1.0, "float32")
    same(run("where", condition, x, y), np.array([[1, 2, 3], [-1, -1, -1]], "float32"))
    # Every non-zero condition selects x; NaN is not "non-zero" (fcmp one).
    condition_f = np.array([np.nan, 0.0, -0.0, 2.0, -np.inf])
    same(
        run("where", condition_f, np.arange(5, dtype="int8"), np.full(5, 9, "int8")),
        np.array([9, 9, 9, 3, 4], "int8"),
    )
    same(
        run("where", np.array(True), np.array([[1], [2]], "uint8"), np.array([7, 8], "uint8")),
        np.array([[1, 1], [2, 2]], "uint8"),
    )


@pytest.mark.parametrize(("name", "op_type", "dtypes", "attributes"), _ONNX_BINARY)
def test_binary_against_onnxruntime(
    name: str, op_type: str, dtypes: tuple[str, ...], attributes: dict[str, Any]
) -> None:
    for dtype in dtypes:
        for lhs_shape, rhs_shape in [((3, 4), (3, 4)), ((2, 1, 4), (3, 1)), ((5,), ())]:
            low = 0.5 if name == "power" else -9
            lhs = _random(lhs_shape, dtype, low, 9)
            rhs = _random(rhs_shape, dtype, low if name == "power" else -9, 9)
            if name in ("divide", "mod", "floor_mod"):
                rhs = np.where(rhs == 0, np.ones_like(rhs), rhs)
            expected = onnx_run(op_type, [lhs, rhs], run(name, lhs, rhs).dtype.name, **attributes)
            actual = run(name, lhs, rhs)
            assert actual.dtype == expected.dtype and actual.shape == expected.shape
            if name == "power":
                np.testing.assert_allclose(actual, expected, rtol=2e-6)
            else:
                np.testing.assert_array_equal(actual, expected)


def test_where_against_onnxruntime() -> None:
    condition = _random((3, 1, 4), "bool")
    x = _random((2, 1), "float32")
    y = _random((4,), "float32")
    expected = onnx_run("Where", [condition, x, y], "float32")
    same(run("where", condition, x, y), expected)


def test_floor_divide_against_python_loop() -> None:
    for dtype in ("int8", "int16", "int32", "int64", "uint8", "uint32", "float16", "float32"):
        lhs = _random((3, 4), dtype, -50, 50)
        rhs = _random((4,), dtype, -9, 9)
        if _is_float(dtype):
            rhs = np.where(np.abs(rhs) < 0.1, np.ones_like(rhs), rhs)
        else:
            rhs = np.where(rhs == 0, np.ones_like(rhs), rhs)
        a, b = np.broadcast_arrays(lhs, rhs)
        expected = np.array(
            [_floor_divide_python(x, y, dtype) for x, y in zip(a.flat, b.flat, strict=True)],
            dtype,
        ).reshape(a.shape)
        same(run("floor_divide", lhs, rhs), expected)
    # Exact quotients and the float16 rounding of the quotient before the floor.
    x = np.array([1.0, -1.0, 7.0, 0.3], "float64")
    y = np.array([0.1, 0.1, -2.0, 0.1], "float64")
    expected = np.array(
        [_floor_divide_python(p, q, "float64") for p, q in zip(x, y, strict=True)], "float64"
    )
    same(run("floor_divide", x, y), expected)


def test_not_equal_against_python_loop() -> None:
    for dtype in ("float16", "float32", "float64", "int8", "int32", "uint16", "bool"):
        lhs = _random((3, 5), dtype, -2, 2)
        rhs = _random((5,), dtype, -2, 2)
        if _is_float(dtype):
            lhs[0, 0], lhs[1, 1], rhs[1] = np.nan, np.nan, np.nan
            lhs[2, 2] = rhs[2] = np.inf
            rhs[3] = lhs[0, 3]
        a, b = np.broadcast_arrays(lhs, rhs)
        expected = np.array(
            [_not_equal_python(x.item(), y.item()) for x, y in zip(a.flat, b.flat, strict=True)],
            bool,
        ).reshape(a.shape)
        same(run("not_equal", lhs, rhs), expected)


@pytest.mark.parametrize("name", of_family(NAMES, "broadcast"))
@settings(max_examples=30)  # per op: 38 ops share the file's time budget
@given(data=st.data())
def test_reference_agrees_with_relation(name: str, data: st.DataObject) -> None:
    check_reference_agrees_with_relation(name, data)
