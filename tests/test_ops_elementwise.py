"""The elementwise family: type relations, reference semantics and their agreement.

Three kinds of test: relations on hand-written types (broadcasting, dtype rules, symbolic and
``?`` dimensions, error messages); references on small inputs whose expected values are worked
out by hand or computed by onnxruntime; and, for every op of the family, Hypothesis-drawn inputs
whose reference result has exactly the dtype and shape the relation predicts.
"""

from __future__ import annotations

import itertools
import math
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from relay.oracles.compare import compare_arrays
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, Attrs
from relay.semantics.ops.elementwise import CastAttrs, ClipAttrs
from relay.semantics.ops.nn.activation import LeakyReluAttrs
from relay.semantics.ops.registry import RelationError
from relay.semantics.syntax import ANY, DTYPES, Dim, TensorType, TupleType, Type, dim_symbol

NAMES: tuple[str, ...] = (
    "negative",
    "abs",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "tanh",
    "sigmoid",
    "floor",
    "ceil",
    "round",
    "logical_not",
    "nn.relu",
    "zeros_like",
    "ones_like",
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "mod",
    "floor_mod",
    "power",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "clip",
    "cast",
    "nn.leaky_relu",
    "where",
    "full_like",
)


Array = npt.NDArray[Any]

n = dim_symbol("n")
m = dim_symbol("m")

FLOATS = ("float16", "float32", "float64")
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGERS = SIGNED + UNSIGNED

UNARY_ANY = ("negative", "abs", "floor", "ceil", "round", "nn.relu", "zeros_like", "ones_like")
UNARY_FLOAT = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid")
ARITHMETIC = (
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "mod",
    "floor_mod",
    "maximum",
    "minimum",
)
COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
DIVISIONS = ("divide", "floor_divide", "mod", "floor_mod")


def t(shape: tuple[Dim, ...], dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


def relate(name: str, *types: Type, attrs: Attrs | None = None) -> Type:
    relation = OPS[name].relation
    assert relation is not None
    return relation(types, attrs)


def run(name: str, *args: npt.ArrayLike, attrs: Attrs | None = None) -> Array:
    reference = OPS[name].reference
    assert reference is not None
    out = reference(tuple(np.asarray(a) for a in args), attrs)
    assert isinstance(out, np.ndarray)
    return out


def raises(error: type[Exception], text: str) -> pytest.RaisesExc[Exception]:
    """``pytest.raises`` matching ``text`` literally."""
    return pytest.raises(error, match=re.escape(text))


def close(actual: Array, expected: Array) -> None:
    """Equal dtype and shape, values equal under the tolerance policy (``oracles/compare.py``):
    how a transcendental function's result is compared, never bit-exactly."""
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    mismatch = compare_arrays(expected, actual)
    assert mismatch is None, mismatch


def same(actual: Array, expected: Array) -> None:
    """Equal dtype, shape and values (NaN equal to NaN; the sign of zero compared)."""
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected, strict=True)
    if actual.dtype.kind == "f":
        numbers = ~np.isnan(expected)
        assert np.array_equal(np.signbit(actual[numbers]), np.signbit(expected[numbers]))


# ---------------------------------------------------------------------------------------------
# The records


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


# ---------------------------------------------------------------------------------------------
# Relations: broadcasting


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
    import relay

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


# ---------------------------------------------------------------------------------------------
# Relations: dtypes


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


def test_power_needs_float() -> None:
    assert relate("power", t((2, 1), "float16"), t((3,), "float16")) == t((2, 3), "float16")
    with raises(RelationError, "expected a float dtype for lhs and rhs, found int32"):
        relate("power", t((2,), "int32"), t((2,), "int32"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY_ANY)
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


def test_full_like() -> None:
    assert relate("full_like", t((n, 3), "int8"), t((), "float64")) == t((n, 3), "int8")
    assert relate("full_like", t((), "bool"), t((), "bool")) == t((), "bool")
    with raises(RelationError, "expected a rank-0 fill_value, found Tensor"):
        relate("full_like", t((2, 3)), t((1,)))
    with raises(RelationError, "of rank 2"):
        relate("full_like", t((2, 3)), t((1, 1)))


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


# ---------------------------------------------------------------------------------------------
# References: integer division


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
        same(run("divide", np.array([lo], dtype), np.array([1], dtype)), np.array([lo], dtype))
        same(run("floor_mod", np.array([lo], dtype), np.array([-2], dtype)), np.array([0], dtype))
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


# ---------------------------------------------------------------------------------------------
# References: overflow


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
    same(run("add", np.array([127], "int8"), np.array([1], "int8")), np.array([-128], "int8"))
    same(
        run("multiply", np.array([300], "int16"), np.array([300], "int16")),
        np.array([24464], "int16"),
    )
    same(run("subtract", np.array([0], "uint8"), np.array([1], "uint8")), np.array([255], "uint8"))
    same(run("add", np.array([65535], "uint16"), np.array([2], "uint16")), np.array([1], "uint16"))
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


def test_abs_and_negative_of_int_min() -> None:
    for dtype in ("int32", "int64"):
        lo = np.iinfo(dtype).min
        for name in ("abs", "negative"):
            with raises(UndefinedBehavior, f"{name} overflows {dtype}"):
                run(name, np.array([1, lo], dtype))
        same(run("abs", np.array([lo + 1, -4, 4], dtype)), np.array([-(lo + 1), 4, 4], dtype))
    same(run("abs", np.array([2**32 - 1], "uint32")), np.array([2**32 - 1], "uint32"))


# ---------------------------------------------------------------------------------------------
# References: unary math


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
        run("tanh", x), [0.0, 0.7615941559557649, -0.7615941559557649, 1.0, -1.0], rtol=1e-6
    )
    same(run("rsqrt", np.array([4.0, 0.25, 0.0], "float32")), np.array([0.5, 2.0, np.inf], "f4"))
    assert np.isnan(run("rsqrt", np.float64(-1)))
    close(run("exp", np.array([0.0, -np.inf], "float16")), np.array([1.0, 0.0], "float16"))
    close(run("log", np.array([1.0, 0.0], "float64")), np.array([0.0, -np.inf]))
    same(run("sqrt", np.array([9.0, -0.0], "float32")), np.array([3.0, -0.0], "float32"))
    assert run("sigmoid", np.array([1.0], "float16")).dtype == np.float16


def test_power_of_floats() -> None:
    lhs = np.array([2.0, -2.0, -8.0, 0.0, 4.0, 2.0], "float32")
    rhs = np.array([3.0, 3.0, 1 / 3, 0.0, 0.5, -1.0], "float32")
    close(run("power", lhs, rhs), np.array([8.0, -8.0, np.nan, 1.0, 2.0, 0.5], "float32"))


# ---------------------------------------------------------------------------------------------
# References: NaN, maximum, minimum, relu, comparisons


def test_maximum_minimum_are_selects() -> None:
    a = np.array([np.nan, 1.0, 2.0, -0.0], "float32")
    b = np.array([1.0, np.nan, 3.0, 0.0], "float32")
    same(run("maximum", a, b), np.array([1.0, np.nan, 3.0, 0.0], "float32"))
    same(run("minimum", a, b), np.array([1.0, np.nan, 2.0, 0.0], "float32"))
    same(run("maximum", np.array([-3, 7], "int64"), np.array(2, "int64")), np.array([2, 7]))


def test_relu() -> None:
    x = np.array([np.nan, -0.0, -2.0, 3.0, np.inf], "float32")
    same(run("nn.relu", x), np.array([0.0, 0.0, 0.0, 3.0, np.inf], "float32"))
    same(run("nn.relu", np.array([-5, 5], "int8")), np.array([0, 5], "int8"))
    same(run("nn.relu", np.array([3], "uint32")), np.array([3], "uint32"))


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
    same(run("less", np.array([2**64 - 1], "uint64"), np.array([1], "uint64")), np.array([False]))


def test_logical_truth_tables() -> None:
    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    same(run("logical_and", a, b), np.array([False, False, False, True]))
    same(run("logical_or", a, b), np.array([False, True, True, True]))
    same(run("logical_not", a), np.array([True, True, False, False]))


# ---------------------------------------------------------------------------------------------
# References: clip, leaky_relu


def test_clip_floats() -> None:
    x = np.array([np.nan, -3.0, 7.0, 2.5, -np.inf], "float32")
    # min(NaN, 6) selects 6: TVM's clip of NaN is a_max.
    same(run("clip", x, attrs=ClipAttrs(0.0, 6.0)), np.array([6, 0, 6, 2.5, 0], "float32"))
    # tvm::min(x, +inf) and tvm::max(x, -inf) are simplified away, so NaN passes through.
    same(run("clip", x, attrs=ClipAttrs(-math.inf, math.inf)), x)
    # With only the lower bound, NaN meets max(NaN, 1), which selects 1.
    same(run("clip", x, attrs=ClipAttrs(1.0, math.inf)), np.array([1, 1, 7, 2.5, 1], "float32"))
    same(run("clip", np.float16(3.0), attrs=ClipAttrs(0.1, 0.2)), np.array(0.2, "float16"))
    # a_min > a_max: the lower bound wins.
    same(run("clip", np.array([1.0, 9.0]), attrs=ClipAttrs(5.0, 2.0)), np.array([5.0, 5.0]))


def test_clip_integers_truncate_the_bounds() -> None:
    x = np.array([-5, 3, 9], "int8")
    same(run("clip", x, attrs=ClipAttrs(-1.5, 6.7)), np.array([-1, 3, 6], "int8"))
    same(
        run("clip", np.array([0, 7, 250], "uint8"), attrs=ClipAttrs(1.9, 200.9)),
        np.array([1, 7, 200], "uint8"),
    )
    same(run("clip", np.array([False, True]), attrs=ClipAttrs(0.0, 0.5)), np.array([False, False]))
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


def test_leaky_relu() -> None:
    x = np.array([-2.0, 3.0, np.nan, -0.0], "float32")
    same(
        run("nn.leaky_relu", x, attrs=LeakyReluAttrs(0.1)),
        np.array([np.float32(-2.0) * np.float32(0.1), 3.0, np.nan, -0.0], "float32"),
    )
    # Integer data: alpha truncates toward zero, here to 2 and to 0.
    same(
        run("nn.leaky_relu", np.array([-3, 4], "int32"), attrs=LeakyReluAttrs(2.9)),
        np.array([-6, 4], "int32"),
    )
    same(
        run("nn.leaky_relu", np.array([-3, 4], "int8"), attrs=LeakyReluAttrs(0.25)),
        np.array([0, 4], "int8"),
    )
    # Only the selected product can overflow.
    big = np.array([2**30], "int32")
    same(run("nn.leaky_relu", big, attrs=LeakyReluAttrs(4.0)), big)
    with raises(UndefinedBehavior, "nn.leaky_relu overflows int32"):
        run("nn.leaky_relu", -big, attrs=LeakyReluAttrs(4.0))
    same(
        run("nn.leaky_relu", np.array([-100], "int8"), attrs=LeakyReluAttrs(3.0)),
        np.array([-44], "int8"),
    )
    with raises(UndefinedBehavior, "alpha -0.5 cannot be represented in uint8"):
        run("nn.leaky_relu", np.array([1], "uint8"), attrs=LeakyReluAttrs(-0.5))


# ---------------------------------------------------------------------------------------------
# References: cast, full_like, where, fills


def test_cast_float_to_int_truncates() -> None:
    x = np.array([1.9, -1.9, 0.5, -0.5, 127.99], "float32")
    same(run("cast", x, attrs=CastAttrs("int8")), np.array([1, -1, 0, 0, 127], "int8"))
    same(
        run("cast", np.array([-0.9, 255.9]), attrs=CastAttrs("uint8")), np.array([0, 255], "uint8")
    )
    same(run("cast", np.float64(2**63 - 1024), attrs=CastAttrs("int64")), np.array(2**63 - 1024))
    same(run("cast", np.float16(-2048), attrs=CastAttrs("int16")), np.array(-2048, "int16"))


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
    same(run("cast", np.float64(-(2.0**31)), attrs=CastAttrs("int32")), np.array(-(2**31), "i4"))


def test_cast_between_integers_wraps_and_extends() -> None:
    same(
        run("cast", np.array([300, -1], "int32"), attrs=CastAttrs("int8")),
        np.array([44, -1], "int8"),
    )
    same(
        run("cast", np.array([-1], "int8"), attrs=CastAttrs("uint16")), np.array([65535], "uint16")
    )
    same(run("cast", np.array([255], "uint8"), attrs=CastAttrs("int32")), np.array([255], "int32"))
    same(run("cast", np.array([True, False]), attrs=CastAttrs("int64")), np.array([1, 0], "int64"))
    same(
        run("cast", np.array([2, 0, -3], "int16"), attrs=CastAttrs("bool")),
        np.array([True, False, True]),
    )


def test_cast_to_and_from_float() -> None:
    # NaN is false: LLVM's cast to i1 is the ordered fcmp one.
    x = np.array([np.nan, 0.0, -0.0, 0.5, -np.inf], "float32")
    same(run("cast", x, attrs=CastAttrs("bool")), np.array([False, False, False, True, True]))
    same(
        run("cast", np.array([2049, 2051], "int32"), attrs=CastAttrs("float16")),
        np.array([2048, 2052], "float16"),
    )
    same(run("cast", np.array([True]), attrs=CastAttrs("float64")), np.array([1.0]))
    same(run("cast", np.array([1e300]), attrs=CastAttrs("float32")), np.array([np.inf], "float32"))
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


def test_full_like_casts_the_fill_value() -> None:
    same(run("full_like", np.zeros((2, 2), "int8"), np.float64(-3.7)), np.full((2, 2), -3, "int8"))
    same(run("full_like", np.zeros(3, "float16"), np.int64(70000)), np.full(3, np.inf, "float16"))
    same(run("full_like", np.zeros((), "bool"), np.float32(np.nan)), np.array(False))
    same(run("full_like", np.zeros((1, 2), "uint8"), np.int32(-1)), np.full((1, 2), 255, "uint8"))
    with raises(UndefinedBehavior, "does not fit int32"):
        run("full_like", np.zeros(2, "int32"), np.float32(np.nan))


def test_zeros_and_ones_like() -> None:
    for dtype in DTYPES:
        x = np.arange(6).reshape(2, 3).astype(dtype)
        same(run("zeros_like", x), np.zeros((2, 3), dtype))
        same(run("ones_like", x), np.ones((2, 3), dtype))
    same(run("ones_like", np.float32(np.nan)), np.array(1.0, "float32"))


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


# ---------------------------------------------------------------------------------------------
# References against onnxruntime

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

_ONNX_TYPES = {
    "bool": 9,
    "int8": 3,
    "int16": 5,
    "int32": 6,
    "int64": 7,
    "uint8": 2,
    "float16": 10,
    "float32": 1,
    "float64": 11,
}


def onnx_run(op_type: str, inputs: list[Array], out_dtype: str, **attributes: Any) -> Array:
    """Run one ONNX node on ``inputs`` with onnxruntime."""
    helper = onnx.helper
    names = [f"x{i}" for i in range(len(inputs))]
    node = helper.make_node(op_type, names, ["y"], **attributes)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(name, _ONNX_TYPES[a.dtype.name], a.shape)
            for name, a in zip(names, inputs, strict=True)
        ],
        [helper.make_tensor_value_info("y", _ONNX_TYPES[out_dtype], None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = session.run(None, dict(zip(names, inputs, strict=True)))
    return np.asarray(out)


RNG = np.random.default_rng(20240518)


def _random(shape: tuple[int, ...], dtype: str, low: float = -4, high: float = 4) -> Array:
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return RNG.integers(int(low), int(high), shape, endpoint=True).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


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


_ONNX_UNARY: list[tuple[str, str, tuple[float, float], float]] = [
    # name, ONNX op, input range, relative tolerance (0: exact)
    ("negative", "Neg", (-9, 9), 0),
    ("abs", "Abs", (-9, 9), 0),
    ("floor", "Floor", (-9, 9), 0),
    ("ceil", "Ceil", (-9, 9), 0),
    ("nn.relu", "Relu", (-9, 9), 0),
    ("sqrt", "Sqrt", (0, 9), 1e-7),
    ("exp", "Exp", (-9, 9), 2e-6),
    ("log", "Log", (0.01, 9), 2e-6),
    ("tanh", "Tanh", (-9, 9), 2e-6),
    ("sigmoid", "Sigmoid", (-9, 9), 2e-6),
]


@pytest.mark.parametrize(("name", "op_type", "bounds", "rtol"), _ONNX_UNARY)
def test_unary_against_onnxruntime(
    name: str, op_type: str, bounds: tuple[float, float], rtol: float
) -> None:
    for dtype in ("float32", "float64"):
        x = _random((4, 5), dtype, *bounds)
        expected = onnx_run(op_type, [x], dtype)
        actual = run(name, x)
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        if rtol:
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=1e-7)
        else:
            np.testing.assert_array_equal(actual, expected)
    if name in ("negative", "abs", "nn.relu"):
        x = _random((7,), "int32", -9, 9)
        np.testing.assert_array_equal(run(name, x), onnx_run(op_type, [x], "int32"))


def test_logical_not_against_onnxruntime() -> None:
    x = _random((3, 3), "bool")
    np.testing.assert_array_equal(run("logical_not", x), onnx_run("Not", [x], "bool"))


def test_clip_against_onnxruntime() -> None:
    for dtype in ("float32", "int32", "int8"):
        x = _random((4, 6), dtype, -9, 9)
        bounds = [np.array(-2, dtype), np.array(5, dtype)]
        expected = onnx_run("Clip", [x, *bounds], dtype)
        same(run("clip", x, attrs=ClipAttrs(-2.0, 5.0)), expected)


def test_leaky_relu_against_onnxruntime() -> None:
    x = _random((4, 6), "float32", -9, 9)
    expected = onnx_run("LeakyRelu", [x], "float32", alpha=0.3)
    same(run("nn.leaky_relu", x, attrs=LeakyReluAttrs(0.3)), expected)


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
    expected = onnx_run("Cast", [x], target, to=_ONNX_TYPES[target])
    same(run("cast", x, attrs=CastAttrs(target)), expected)


def test_where_against_onnxruntime() -> None:
    condition = _random((3, 1, 4), "bool")
    x = _random((2, 1), "float32")
    y = _random((4,), "float32")
    expected = onnx_run("Where", [condition, x, y], "float32")
    same(run("where", condition, x, y), expected)


def test_zeros_and_ones_like_against_onnxruntime() -> None:
    for name, value in (("zeros_like", 0), ("ones_like", 1)):
        for dtype in ("float16", "float32", "float64", "int8", "int64", "uint8", "bool"):
            for shape in [(2, 3), (), (4, 0, 1)]:
                x = _random(shape, dtype, -4, 4)
                fill = onnx.numpy_helper.from_array(np.array([value], dtype), "value")
                expected = onnx_run(
                    "ConstantOfShape", [np.array(shape, np.int64)], dtype, value=fill
                )
                same(run(name, x), expected)


# ---------------------------------------------------------------------------------------------
# References against independent formulations (where ONNX has no op with the same meaning)


def _floor_divide_python(a: Any, b: Any, dtype: str) -> Any:
    """TOPI's floor division on Python scalars: ``//`` on integers; for floats, the quotient
    rounded once to ``dtype`` (exact in binary64, and binary64 has the bits to round it again
    correctly), then ``math.floor``."""
    if not _is_float(dtype):
        return int(a) // int(b)
    quotient = float(np.dtype(dtype).type(float(a) / float(b)))
    return math.floor(quotient) if math.isfinite(quotient) else quotient


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


def _not_equal_python(a: Any, b: Any) -> bool:
    """LLVM's ordered ``fcmp one`` on Python values: false when either side is NaN."""
    if isinstance(a, float) and (math.isnan(a) or math.isnan(b)):
        return False
    return a != b


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


def _rsqrt_decimal(x: float) -> float:
    """``1 / sqrt(x)`` to 60 significant digits, then rounded to binary64."""
    with localcontext() as context:
        context.prec = 60
        return float(Decimal(1) / Decimal(x).sqrt())


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
        same(run("rsqrt", np.array([1.0, 4.0, 0.25], dtype)), np.array([1.0, 0.5, 2.0], dtype))
    special = np.array([0.0, -0.0, np.inf, -1.0, np.nan], "float32")
    same(run("rsqrt", special), np.array([np.inf, -np.inf, 0.0, np.nan, np.nan], "float32"))


def _round_decimal(x: Any, dtype: str) -> Any:
    """Round half away from zero with ``decimal`` (exact for every binary float)."""
    if not _is_float(dtype):
        return x
    v = float(x)
    if not math.isfinite(v):
        return v
    rounded = float(Decimal(v).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return math.copysign(rounded, v) if rounded == 0 else rounded


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


def _convert_python(value: Any, dtype: str) -> Any:
    """Convert a Python scalar as LLVM converts (``CreateCast``), or ``None`` where that is
    poison: to bool, ordered non-zero; to an integer, truncation toward zero of a float (which
    must fit) or two's-complement wrap-around of an integer; to a float, one rounding."""
    if dtype == "bool":
        return value == value and value != 0
    if _is_float(dtype):
        return float(value)  # exact here: every integer below is under 2**53
    lo, hi = _int_bounds(dtype)
    if isinstance(value, float):
        if not math.isfinite(value) or not lo <= math.trunc(value) <= hi:
            return None
        return math.trunc(value)
    return (int(value) - lo) % (hi - lo + 1) + lo


def _int_bounds(dtype: str) -> tuple[int, int]:
    bits = np.dtype(dtype).itemsize * 8
    return (
        (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if dtype.startswith("int") else (0, 2**bits - 1)
    )


FILL_VALUES: list[tuple[str, float]] = [
    ("float64", -3.7),
    ("float32", 250.5),
    ("float32", -0.9),
    ("float64", 1e6),
    ("float64", float("nan")),
    ("float32", float("inf")),
    ("float64", -129.0),
    ("int64", -1),
    ("int32", 300),
    ("int16", -32768),
    ("uint8", 255),
    ("int64", 2**40 + 7),
    ("bool", 1),
]


@pytest.mark.parametrize(("fill_dtype", "fill"), FILL_VALUES)
def test_full_like_against_python_conversion(fill_dtype: str, fill: float) -> None:
    fill_value = np.array(fill, fill_dtype)
    for dtype in DTYPES:
        data = np.zeros((2, 3), dtype)
        converted = _convert_python(fill_value.item(), dtype)
        if converted is None:
            with raises(UndefinedBehavior, f"does not fit {dtype}"):
                run("full_like", data, fill_value)
            continue
        expected = np.empty((2, 3), dtype)
        with np.errstate(over="ignore"):  # 1e6 rounds to inf in float16
            for index in itertools.product(range(2), range(3)):
                expected[index] = converted
        same(run("full_like", data, fill_value), expected)


# ---------------------------------------------------------------------------------------------
# Every op: the reference's dtype and shape are the relation's


_FLOAT_WIDTHS: dict[str, Literal[16, 32, 64]] = {"float16": 16, "float32": 32, "float64": 64}


def _element_range(
    dtype: str, *, nonzero: bool = False, nonnegative: bool = False
) -> st.SearchStrategy[Any]:
    """Small values of ``dtype`` that keep every op of the family clear of overflow."""
    if dtype == "bool":
        return st.just(True) if nonzero else st.booleans()
    if dtype.startswith(("int", "uint")):
        low = 0 if dtype.startswith("uint") or nonnegative else -3
        values = st.integers(low, 3)
        return values.filter(bool) if nonzero else values
    return st.floats(0 if nonnegative else -3, 3, width=_FLOAT_WIDTHS[dtype])


@st.composite
def _broadcastable(draw: st.DrawFn, base: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to ``base``: a suffix of it, some dimensions replaced by 1."""
    rank = draw(st.integers(0, len(base)))
    return tuple(draw(st.sampled_from((d, 1))) for d in base[len(base) - rank :])


def _array(draw: st.DrawFn, dtype: str, shape: tuple[int, ...], **kinds: bool) -> Array:
    return draw(hnp.arrays(np.dtype(dtype), shape, elements=_element_range(dtype, **kinds)))


def _attrs_for(draw: st.DrawFn, name: str, dtype: str) -> Attrs | None:
    if name == "cast":
        return CastAttrs(draw(st.sampled_from(DTYPES)))
    bound = _element_range("float64" if _is_float(dtype) else dtype, nonnegative=True)
    if name == "clip":
        low, high = sorted([float(draw(bound)), float(draw(bound))])
        return ClipAttrs(low, high)
    if name == "nn.leaky_relu":
        return LeakyReluAttrs(float(draw(bound)))
    return None


def _is_float(dtype: str) -> bool:
    return dtype.startswith("float")


def accepted_dtypes(name: str) -> tuple[str, ...]:
    """The dtypes an op's operands may have."""
    if name in UNARY_FLOAT or name == "power":
        return FLOATS
    if name in ("logical_and", "logical_or", "logical_not"):
        return ("bool",)
    return DTYPES


@st.composite
def _valid_call(draw: st.DrawFn, name: str) -> tuple[tuple[Array, ...], Attrs | None]:
    """Arguments and attributes that the relation of ``name`` accepts and that stay defined."""
    op = OPS[name]
    dtype = draw(st.sampled_from(accepted_dtypes(name)))
    base = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    attrs = _attrs_for(draw, name, dtype)
    target = attrs.dtype if isinstance(attrs, CastAttrs) else dtype
    # Values that keep clear of the undefined cases: no zero divisors, no negative unsigned
    # results, no negative floats cast to unsigned.
    unsigned_target = target.startswith("uint") or target == "bool"
    args: list[Array]
    if op.inputs == ("lhs", "rhs"):
        lhs = _array(draw, dtype, draw(_broadcastable(base)), nonnegative=name == "subtract")
        rhs_kinds = {"nonzero": name in DIVISIONS, "nonnegative": name == "subtract"}
        rhs = _array(draw, dtype, draw(_broadcastable(base)), **rhs_kinds)
        if name == "subtract" and dtype.startswith("uint"):
            lhs, rhs = np.maximum(lhs, rhs), np.minimum(lhs, rhs)
        args = [lhs, rhs]
    elif name == "where":
        condition_dtype = draw(st.sampled_from(DTYPES))
        args = [
            _array(draw, condition_dtype, draw(_broadcastable(base))),
            _array(draw, dtype, draw(_broadcastable(base))),
            _array(draw, dtype, draw(_broadcastable(base))),
        ]
    elif name == "full_like":
        fill_dtype = draw(st.sampled_from(DTYPES))
        args = [
            _array(draw, dtype, base),
            _array(draw, fill_dtype, (), nonnegative=dtype.startswith("uint")),
        ]
    else:
        nonnegative = (name == "negative" and dtype in ("uint32", "uint64")) or (
            unsigned_target and name == "cast"
        )
        data = _array(draw, dtype, base, nonnegative=nonnegative)
        if name == "negative" and dtype in ("uint32", "uint64"):
            data = np.zeros_like(data)
        args = [data]
    return tuple(args), attrs


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=30)  # per op: 38 ops share the file's time budget
@given(data=st.data())
def test_reference_agrees_with_relation(name: str, data: st.DataObject) -> None:
    op = OPS[name]
    assert op.relation is not None and op.reference is not None
    args, attrs = data.draw(_valid_call(name))
    types = tuple(TensorType(a.shape, a.dtype.name) for a in args)
    predicted = op.relation(types, attrs)
    assert isinstance(predicted, TensorType)
    out = op.reference(args, attrs)
    assert isinstance(out, np.ndarray)
    assert (out.shape, out.dtype.name) == (predicted.shape, predicted.dtype)


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
