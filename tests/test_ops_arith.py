"""The arith group: ``ops.arith``, ``ops.scan`` and ``ops.annotation``.

Relations on hand-written types (dtype rules, broadcasting, widths, axes, devices, error
messages); references on inputs whose results are worked out by hand; each op's reference
against its ``check`` (onnxruntime, or the independent formulation it names) on random inputs;
TVM's own ``fast_exp``/``fast_tanh`` formulas measured against the comparison policy; and the
text format round-tripping a call of every op with non-default attributes.
"""

from __future__ import annotations

import itertools
import math
import re
import struct
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.oracles.compare import compare_arrays
from relay.semantics.equality import alpha_equal
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, Attrs, OpPattern
from relay.semantics.ops.annotation import DeviceCopyAttrs, OnDeviceAttrs
from relay.semantics.ops.elementwise import CastAttrs
from relay.semantics.ops.reduce import ReduceAttrs, ScanopAttrs, VarianceAttrs
from relay.semantics.ops.registry import RelationError
from relay.semantics.syntax import ANY, DTYPES, Dim, TensorType, TupleType, Type, dim_symbol
from relay.semantics.values import TensorValue, TupleValue

Array = npt.NDArray[Any]

n = dim_symbol("n")

FLOATS = ("float16", "float32", "float64")
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGERS = SIGNED + UNSIGNED

FLOAT_MATH = (
    *("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh"),
    *("atanh", "erf", "log2", "log10", "fast_exp", "fast_tanh", "fast_erf"),
)
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
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


def t(shape: tuple[Dim, ...], dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


def relate(name: str, *types: Type, attrs: Attrs | None = None) -> Type:
    relation = OPS[name].relation
    assert relation is not None
    return relation(types, attrs)


def run(name: str, *args: npt.ArrayLike, attrs: Attrs | None = None) -> Array:
    reference = OPS[name].reference
    assert reference is not None
    with np.errstate(all="ignore"):
        out = reference(tuple(np.asarray(a) for a in args), attrs)
    assert isinstance(out, np.ndarray)
    return out


def raises(error: type[Exception], text: str) -> pytest.RaisesExc[Exception]:
    return pytest.raises(error, match=re.escape(text))


def close(actual: Array, expected: Array) -> None:
    """Equal dtype and shape, values equal under the tolerance policy (``oracles/compare.py``):
    how a transcendental function's result is compared, never bit-exactly (numpy's SIMD
    dispatch gives ``log10(1000f) = 3.0000002`` on some CPUs)."""
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


RNG = np.random.default_rng(20241129)


def _random(shape: tuple[int, ...], dtype: str, low: float = -4, high: float = 4) -> Array:
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return RNG.integers(int(low), int(high), shape, endpoint=True).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


# ---------------------------------------------------------------------------------------------
# The records


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


# ---------------------------------------------------------------------------------------------
# Relations


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


def test_variance_relation() -> None:
    data = t((2, 3, n), "float32")
    assert relate("variance", data, t((2, 1, n)), attrs=VarianceAttrs(axis=(1,))) == t((2, n))
    assert relate(
        "variance", data, t((1, 1, 1)), attrs=VarianceAttrs(axis=(1,), exclude=True)
    ) == t((3,))
    assert relate("variance", data, t((2, 3, n)), attrs=VarianceAttrs(keepdims=True)) == t(
        (1, 1, 1)
    )
    assert relate("variance", t((ANY, 2)), t((4, 2)), attrs=VarianceAttrs()) == t(())
    with raises(RelationError, "expected mean dimension 1 to be 3 (the data's) or 1, found 2"):
        relate("variance", data, t((2, 2, n)), attrs=VarianceAttrs(axis=(1,)))
    with raises(RelationError, "expected mean dimension 2 to be n (the data's) or 1, found 4"):
        relate("variance", data, t((2, 3, 4)), attrs=VarianceAttrs(axis=(1,)))
    with raises(RelationError, "expected mean of the data's rank 3, found rank 2"):
        relate("variance", data, t((3, 1)), attrs=VarianceAttrs())
    with raises(RelationError, "expected mean of the data's dtype float32, found float64"):
        relate("variance", data, t((2, 3, n), "float64"), attrs=VarianceAttrs())
    with raises(RelationError, "expected a float dtype for data, found int32"):
        relate("variance", t((2,), "int32"), t((2,), "int32"), attrs=VarianceAttrs())
    with raises(RelationError, "expected data of rank at least 1, found rank 0"):
        relate("variance", t(()), t(()), attrs=VarianceAttrs())
    with raises(RelationError, "3 is out of range for a tensor of rank 3"):
        relate("variance", data, data, attrs=VarianceAttrs(axis=(3,)))


def test_all_and_any_need_bool() -> None:
    for name in ("all", "any"):
        assert relate(name, t((2, n, 4), "bool"), attrs=ReduceAttrs(axis=(1,))) == t((2, 4), "bool")
        assert relate(name, t((2, 3), "bool"), attrs=ReduceAttrs(keepdims=True)) == t(
            (1, 1), "bool"
        )
        with raises(RelationError, "expected bool for data, found float32"):
            relate(name, t((2,)), attrs=ReduceAttrs())
        with raises(RelationError, "-3 is out of range for a tensor of rank 2"):
            relate(name, t((2, 2), "bool"), attrs=ReduceAttrs(axis=(-3,)))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_relation(name: str) -> None:
    data = t((2, n, 3), "int8")
    assert relate(name, data, attrs=ScanopAttrs()) == t((6 * n,), "int8")
    assert relate(name, data, attrs=ScanopAttrs(axis=-1, dtype="float32")) == t(
        (2, n, 3), "float32"
    )
    assert relate(name, t((ANY, 2)), attrs=ScanopAttrs()) == t((ANY,))
    with raises(RelationError, "axis=3 is out of range for a tensor of rank 3"):
        relate(name, data, attrs=ScanopAttrs(axis=3))
    with raises(RelationError, "expected data of rank at least 1, found rank 0"):
        relate(name, t(()), attrs=ScanopAttrs())


def test_annotation_relations() -> None:
    tensor, pair = t((2, n), "int8"), TupleType((t((2,)), t((), "bool")))
    device = OnDeviceAttrs(device_type=2, virtual_device_id=0)
    for value in (tensor, pair):
        assert relate("annotation.stop_fusion", value) == value
        assert relate("on_device", value, attrs=device) == value
        copy = DeviceCopyAttrs(src_dev_type=1, dst_dev_type=2)
        assert relate("device_copy", value, attrs=copy) == value
    unconstrained = OnDeviceAttrs(constrain_body=False)
    assert relate("on_device", tensor, attrs=unconstrained) == tensor
    assert relate("on_device", tensor, attrs=OnDeviceAttrs(memory_scope="global")) == tensor
    with raises(RelationError, "on_device: constrain_body=True needs a device"):
        relate("on_device", tensor, attrs=OnDeviceAttrs())
    with raises(RelationError, "on_device: constrain_result=True needs a device"):
        relate("on_device", tensor, attrs=OnDeviceAttrs(constrain_result=True))
    with raises(RelationError, "device_type=5 is not a device type (expected one of -1, 1, 2"):
        relate("on_device", tensor, attrs=OnDeviceAttrs(device_type=5))
    with raises(RelationError, "virtual_device_id=-2 is not a virtual device id"):
        relate("on_device", tensor, attrs=OnDeviceAttrs(device_type=1, virtual_device_id=-2))
    with raises(RelationError, "device_copy: the src device is fully unconstrained"):
        relate("device_copy", tensor, attrs=DeviceCopyAttrs(dst_dev_type=1))
    with raises(RelationError, "dst_dev_type=0 is not a device type"):
        relate("device_copy", tensor, attrs=DeviceCopyAttrs(src_dev_type=1, dst_dev_type=0))


# ---------------------------------------------------------------------------------------------
# References on hand-worked inputs


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


def test_variance_values() -> None:
    x = np.array([[1.0, 2.0, 3.0, 6.0], [2.0, 2.0, 2.0, 2.0]], "float32")
    mean = np.array([[3.0], [2.0]], "float32")
    same(run("variance", x, mean, attrs=VarianceAttrs(axis=(1,))), np.array([3.5, 0], "float32"))
    same(run("variance", x, mean, attrs=VarianceAttrs(axis=(1,), unbiased=True, keepdims=True)),
         np.array([[14 / 3], [0]], "float32"))  # fmt: skip
    # The mean is whatever the caller passes: here zero, so the sum of squares over count.
    same(run("variance", x, np.zeros((1, 1), "float32"), attrs=VarianceAttrs()),
         np.array(66 / 8, "float32"))  # fmt: skip
    with raises(UndefinedBehavior, "variance divides by count - unbiased = 0"):
        run("variance", x[:, :1], x[:, :1], attrs=VarianceAttrs(axis=(1,), unbiased=True))
    with raises(UndefinedBehavior, "variance reducing no axis"):
        run("variance", x, mean, attrs=VarianceAttrs(axis=(0, 1), exclude=True))
    empty = np.zeros((2, 0), "float32")
    same(run("variance", empty, np.zeros((2, 1), "float32"), attrs=VarianceAttrs(axis=(1,),
         unbiased=True)), np.array([-0.0, -0.0], "float32"))  # fmt: skip


def test_all_and_any_values() -> None:
    x = np.array([[True, False, True], [True, True, True]])
    same(run("all", x, attrs=ReduceAttrs(axis=(1,))), np.array([False, True]))
    same(run("any", x, attrs=ReduceAttrs(axis=(0,), keepdims=True)), np.array([[1, 1, 1]], bool))
    same(run("all", np.zeros((2, 0), bool), attrs=ReduceAttrs(axis=(1,))), np.array([1, 1], bool))
    same(run("any", np.zeros((0,), bool), attrs=ReduceAttrs()), np.array(False))
    same(run("any", np.array(True), attrs=ReduceAttrs()), np.array(True))
    with raises(UndefinedBehavior, "all with exclude=True and axis=None"):
        run("all", x, attrs=ReduceAttrs(exclude=True))


def test_scan_values() -> None:
    x = np.array([[1, 2, 3], [4, 5, 6]], "int32")
    same(run("cumsum", x, attrs=ScanopAttrs()), np.array([1, 3, 6, 10, 15, 21], "int32"))
    same(run("cumsum", x, attrs=ScanopAttrs(axis=0, exclusive=True)),
         np.array([[0, 0, 0], [1, 2, 3]], "int32"))  # fmt: skip
    same(run("cumprod", x, attrs=ScanopAttrs(axis=-1, exclusive=True)),
         np.array([[1, 1, 2], [1, 4, 20]], "int32"))  # fmt: skip
    same(run("cumprod", x, attrs=ScanopAttrs(axis=1, dtype="float16")),
         np.array([[1, 2, 6], [4, 20, 120]], "float16"))  # fmt: skip
    same(run("cumsum", np.array([100, 100], "int8"), attrs=ScanopAttrs()),
         np.array([100, -56], "int8"))  # fmt: skip
    same(run("cumsum", np.array([True, True, True]), attrs=ScanopAttrs(axis=0)),
         np.array([True, False, True]))  # fmt: skip
    same(run("cumprod", np.array([True, False, True]), attrs=ScanopAttrs(exclusive=True)),
         np.array([True, True, False]))  # fmt: skip
    same(run("cumsum", np.array([1.9, -2.9], "float32"), attrs=ScanopAttrs(dtype="int8")),
         np.array([1, -1], "int8"))  # fmt: skip
    same(run("cumsum", np.zeros((2, 0), "int32"), attrs=ScanopAttrs(axis=1, exclusive=True)),
         np.zeros((2, 0), "int32"))  # fmt: skip


def test_scan_undefined_cases() -> None:
    with raises(UndefinedBehavior, "cumsum of int32 overflows: a running value is 2147483648"):
        run("cumsum", np.array([2**31 - 1, 1, -5], "int32"), attrs=ScanopAttrs())
    with raises(UndefinedBehavior, "cumprod of uint64 overflows"):
        run("cumprod", np.array([2**32, 2**32], "uint64"), attrs=ScanopAttrs())
    # Exclusive: the last element never enters a running value; inclusive, it overflows.
    x = np.array([2**15, 2**15, 2**10], "int32")
    same(run("cumprod", x, attrs=ScanopAttrs(exclusive=True)), np.array([1, 2**15, 2**30], "int32"))
    with raises(UndefinedBehavior, "cumprod of int32 overflows: a running value is 1099511627776"):
        run("cumprod", x, attrs=ScanopAttrs())
    with raises(UndefinedBehavior, "cumsum: float32 value nan does not fit int32"):
        run("cumsum", np.array([np.nan], "float32"), attrs=ScanopAttrs(dtype="int32"))


def test_annotations_are_the_identity() -> None:
    x = _random((2, 3), "float32")
    for name, attrs in [
        ("annotation.stop_fusion", None),
        ("on_device", OnDeviceAttrs(device_type=1)),
        ("device_copy", DeviceCopyAttrs(src_dev_type=1, dst_dev_type=2)),
    ]:
        same(run(name, x, attrs=attrs), x)
        reference = OPS[name].reference
        assert reference is not None
        # A tuple argument arrives as a tuple of arrays (as the evaluator passes it).
        fields = reference(((x, np.array(True)),), attrs)  # type: ignore[arg-type]
        assert isinstance(fields, tuple)
        same(fields[0], x)
        same(fields[1], np.array(True))


# ---------------------------------------------------------------------------------------------
# Each op against its check: onnxruntime

onnx_peer = pytest.importorskip("relay.oracles.onnx_peer")
pytest.importorskip("onnxruntime")

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
    x = _random((5,), "int16", -300, 300)
    same(run("bitwise_not", x), onnx_peer.onnx_run("BitwiseNot", [x], opset=18))


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


@pytest.mark.parametrize(("name", "op_type"), [("all", "ReduceMin"), ("any", "ReduceMax")])
def test_all_any_against_onnxruntime(name: str, op_type: str) -> None:
    x = RNG.random((3, 4, 5)) < (0.85 if name == "all" else 0.1)
    for axes, keepdims in [((1,), False), ((0, 2), True), ((-1,), False)]:
        expected = onnx_peer.onnx_run(
            op_type, [x, np.array(axes, "int64")], opset=20, keepdims=int(keepdims)
        )
        same(run(name, x, attrs=ReduceAttrs(axis=axes, keepdims=keepdims)), expected)


def test_cumsum_against_onnxruntime() -> None:
    for dtype in ("int32", "int64", "float32", "float64"):  # onnxruntime has no others
        x = _random((3, 4, 2), dtype, -9, 9)
        for axis in (0, 1, -1):
            for exclusive in (False, True):
                expected = onnx_peer.onnx_run(
                    "CumSum", [x, np.array(axis, "int64")], exclusive=int(exclusive)
                )
                actual = run("cumsum", x, attrs=ScanopAttrs(axis=axis, exclusive=exclusive))
                assert compare_arrays(expected, actual, reduction_length=4) is None


# ---------------------------------------------------------------------------------------------
# Each op against its check: independent formulations


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


def test_variance_against_numpy_var() -> None:
    for dtype in ("float32", "float64"):
        x = _random((3, 4, 5), dtype)
        for axis, unbiased in [((1,), False), ((0, 2), True), ((-1,), True)]:
            mean = x.mean(axis=axis, keepdims=True, dtype=dtype)
            expected = np.var(x.astype(np.float64), axis=axis, ddof=int(unbiased)).astype(dtype)
            actual = run("variance", x, mean, attrs=VarianceAttrs(axis=axis, unbiased=unbiased))
            assert compare_arrays(expected, actual, reduction_length=20) is None


def test_cumprod_against_itertools_accumulate() -> None:
    for dtype in ("int32", "float64", "int8", "uint16"):
        x = _random((3, 5), dtype, 1 if dtype.startswith("u") else -3, 3)
        for exclusive in (False, True):
            rows = []
            for row in x.tolist():
                values = [1, *row[:-1]] if exclusive else row
                rows.append(list(itertools.accumulate(values, lambda a, b: a * b)))
            expected = np.array(rows).astype(dtype)  # exact Python products, then wrapped
            if dtype == "int8":
                expected = (np.array(rows, "int64") % 256).astype("uint8").view("int8")
            actual = run("cumprod", x, attrs=ScanopAttrs(axis=1, exclusive=exclusive))
            assert compare_arrays(expected, actual, reduction_length=5) is None


# ---------------------------------------------------------------------------------------------
# TVM's approximations against this reference, under the comparison policy


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


# ---------------------------------------------------------------------------------------------
# Shapes and dtypes agree with the relations; the text format round-trips


@settings(max_examples=30)
@given(
    shape=st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple),
    dtype=st.sampled_from(DTYPES),
    target=st.sampled_from(["", *DTYPES]),
    axis=st.one_of(st.none(), st.integers(-3, 2)),
    exclusive=st.booleans(),
    op=st.sampled_from(["cumsum", "cumprod"]),
)
def test_scan_result_has_the_relation_type(
    shape: tuple[int, ...], dtype: str, target: str, axis: int | None, exclusive: bool, op: str
) -> None:
    axis = None if axis is None else axis % len(shape)
    attrs = ScanopAttrs(axis=axis, dtype=target, exclusive=exclusive)
    x = _random(shape, dtype, 0 if dtype.startswith("u") else -2, 2)
    try:
        out = run(op, x, attrs=attrs)
    except UndefinedBehavior:
        return
    expected = relate(op, t(shape, dtype), attrs=attrs)
    assert isinstance(expected, TensorType)
    assert (out.shape, out.dtype.name) == (expected.shape, expected.dtype)


_CALLS = [
    ("sin", "float32", ""),
    ("bitwise_xor", "int16", ""),
    ("isinf", "float16", ""),
    ("reinterpret", "float32", ', dtype="uint32"'),
    ("variance", "float32", ", axis=[1], keepdims=True, exclude=True, unbiased=True"),
    ("all", "bool", ", axis=[0], keepdims=True"),
    ("cumsum", "int32", ', axis=1, dtype="int64", exclusive=True'),
    ("cumprod", "float64", ", exclusive=None"),
    ("annotation.stop_fusion", "float32", ""),
    ("on_device", "float32", ', device_type=2, virtual_device_id=1, memory_scope="global", '
     "constrain_result=True, constrain_body=False"),
    ("device_copy", "int8", ", src_dev_type=1, src_virtual_device_id=0, dst_dev_type=2, "
     'dst_virtual_device_id=3, dst_memory_scope="global"'),
]  # fmt: skip


@pytest.mark.parametrize(("name", "dtype", "attrs"), _CALLS)
def test_calls_round_trip_through_the_text_format(name: str, dtype: str, attrs: str) -> None:
    args = "%x, %x" if name in ("variance", "bitwise_xor") else "%x"
    text = (
        '#[version = "0.0.5"]\n'
        f"def @main(%x: Tensor[(2, 3), {dtype}]) {{\n  {name}({args}{attrs})\n}}\n"
    )
    mod = relay.parse(text)
    printed = relay.astext(mod)
    again = relay.parse(printed)
    assert alpha_equal(mod, again)
    assert relay.astext(again) == printed
    relay.infer_types(mod)


@pytest.mark.parametrize("engine", ["spec", "interpreter"])
def test_annotations_evaluate_to_their_argument(engine: str) -> None:
    text = """#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %y: Tensor[(), int8]) {
  %0 = annotation.stop_fusion(%x);
  %1 = (%0, %y);
  %2 = device_copy(%1, src_dev_type=1, dst_dev_type=2, dst_virtual_device_id=0);
  on_device(%2, device_type=2, constrain_result=True)
}
"""
    x, y = np.array([1.5, -2.0], "float32"), np.array(7, "int8")
    value = relay.evaluate(relay.parse(text), x, y, engine=engine)
    assert isinstance(value, TupleValue)
    fields = [f.data for f in value.fields if isinstance(f, TensorValue)]
    same(fields[0], x)
    same(fields[1], y)
