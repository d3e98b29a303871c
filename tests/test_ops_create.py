"""The ``create`` operators (``semantics/ops/create.py``): relations, references, checks."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import (
    NAMES,
    UNARY_ANY,
    Array,
    Tup,
    _is_float,
    a,
    array,
    assert_same,
    bad,
    check_agreement,
    check_reference_agrees_with_relation,
    dtypes,
    ints,
    m,
    n,
    of_family,
    op_ref,
    op_rel,
    raises,
    relate,
    run_onnx,
    run_onnx_node_typed,
    same,
    t,
    tensor_ref,
    tensor_t,
    tref,
)

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, Attrs
from relay.semantics.ops.create import ArangeAttrs, InitOpAttrs
from relay.semantics.ops.registry import RelationError
from relay.semantics.syntax import ANY, DTYPES

FAMILY = {
    "zeros": "InitOp",
    "ones": "InitOp",
    "full": "Full",
}


def run(name: str, *args: npt.ArrayLike, attrs: Attrs | None = None) -> Array:
    reference = OPS[name].reference
    assert reference is not None
    out = reference(tuple(np.asarray(a) for a in args), attrs)
    assert isinstance(out, np.ndarray)
    return out


ort = pytest.importorskip("onnxruntime")


onnx = pytest.importorskip("onnx")


RNG = np.random.default_rng(20240518)


def _random(shape: tuple[int, ...], dtype: str, low: float = -4, high: float = 4) -> Array:
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return RNG.integers(int(low), int(high), shape, endpoint=True).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


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


def shapes(
    min_rank: int = 0, max_rank: int = 4, min_dim: int = 0
) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(min_dim, 4), min_size=min_rank, max_size=max_rank).map(tuple)


seeds = st.integers(0, 2**32 - 1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", of_family(UNARY_ANY, "create"))
def test_identity_keeps_type(name: str, dtype: str) -> None:
    for shape in [(), (2, 3), (ANY, n, 2 * m + 1)]:
        assert relate(name, t(shape, dtype)) == t(shape, dtype)


def test_full_like() -> None:
    assert relate("full_like", t((n, 3), "int8"), t((), "float64")) == t((n, 3), "int8")
    assert relate("full_like", t((), "bool"), t((), "bool")) == t((), "bool")
    with raises(RelationError, "expected a rank-0 fill_value, found Tensor"):
        relate("full_like", t((2, 3)), t((1,)))
    with raises(RelationError, "of rank 2"):
        relate("full_like", t((2, 3)), t((1, 1)))


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


def test_zeros_and_ones_like_against_onnxruntime() -> None:
    for name, value in (("zeros_like", 0), ("ones_like", 1)):
        for dtype in ("float16", "float32", "float64", "int8", "int64", "uint8", "bool"):
            for shape in [(2, 3), (), (4, 0, 1)]:
                x = _random(shape, dtype, -4, 4)
                fill = onnx.numpy_helper.from_array(np.array([value], dtype), "value")
                expected = run_onnx_node_typed(
                    "ConstantOfShape", [np.array(shape, np.int64)], dtype, value=fill
                )
                same(run(name, x), expected)


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


@pytest.mark.parametrize("name", of_family(NAMES, "create"))
@settings(max_examples=30)  # per op: 38 ops share the file's time budget
@given(data=st.data())
def test_reference_agrees_with_relation(name: str, data: st.DataObject) -> None:
    check_reference_agrees_with_relation(name, data)


@pytest.mark.parametrize("name", of_family(sorted({"arange", *FAMILY}), "create"))
def test_record(name: str) -> None:
    """Each operator of the family has a relation, a reference, an independent check, and the
    relation name the table here gives it."""
    op = OPS[name]
    assert op.relation is not None and op.reference is not None and op.relation_name
    if name in FAMILY:
        assert op.relation_name == FAMILY[name]
    kind, _, what = op.check.partition(":")
    assert kind in ("onnxruntime", "independent") and what


def test_arange_relation_and_reference() -> None:
    attrs = ArangeAttrs.from_kwargs({"dtype": "int32"})
    s = tensor_t((), "int32")
    assert op_rel("arange", attrs, s, s, s) == tensor_t((ANY,), "int32")
    bad("arange", attrs, r"Tensor\[\(\), int32\]", s, tensor_t((1,), "int32"), s)
    bad("arange", attrs, r"Tensor\[\(\), int32\]", s, s, tensor_t((), "int64"))
    same(tref("arange", attrs, a(1, "int32"), a(10, "int32"), a(3, "int32")), a([1, 4, 7], "int32"))
    same(tref("arange", attrs, a(5, "int32"), a(1, "int32"), a(-2, "int32")), a([5, 3], "int32"))
    same(tref("arange", attrs, a(5, "int32"), a(5, "int32"), a(1, "int32")), a([], "int32"))
    with pytest.raises(UndefinedBehavior, match="step 0"):
        op_ref("arange", attrs, a(0, "int32"), a(3, "int32"), a(0, "int32"))
    with pytest.raises(UndefinedBehavior, match="negative count"):
        op_ref("arange", attrs, a(0, "int32"), a(3, "int32"), a(-1, "int32"))
    shape_func = OPS["arange"].shape_func
    assert shape_func is not None
    assert shape_func((a(0.0, "float32"), a(1.0, "float32"), a(0.3, "float32")), attrs) == (4,)


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "float64"])
@pytest.mark.parametrize("start,stop,step", [(0, 5, 1), (2, -3, -2), (1, 9, 3), (-1, 1, 0.5)])
def test_arange_matches_onnxruntime(dtype: str, start: float, stop: float, step: float) -> None:
    if dtype.startswith("int") and step != int(step):
        step = 1
    args = [np.asarray(v, dtype=dtype) for v in (start, stop, step)]
    want = onnx_run("Range", args, opset=11)
    got = tref("arange", ArangeAttrs.from_kwargs({"dtype": dtype}), *args)
    same(got, want)


def test_zeros_and_ones() -> None:
    for name, value in (("zeros", 0), ("ones", 1)):
        assert op_rel(name, InitOpAttrs(shape=(2, 3), dtype="int16")) == tensor_t((2, 3), "int16")
        assert op_rel(name, InitOpAttrs(shape=(), dtype="bool")) == tensor_t((), "bool")
        out = tensor_ref(name, InitOpAttrs(shape=(2, 0, 1), dtype="float16"))
        assert out.shape == (2, 0, 1)
        assert out.dtype == np.float16
        assert_same(tensor_ref(name, InitOpAttrs(shape=(2,), dtype="uint8")), [value, value])
        assert_same(tensor_ref(name, InitOpAttrs(shape=(), dtype="bool")), bool(value))
        with pytest.raises(RelationError, match='expected a dtype, found dtype=""'):
            op_rel(name, InitOpAttrs(shape=(2,)))
        with pytest.raises(RelationError, match="expected a shape, found shape=None"):
            op_rel(name, InitOpAttrs(shape=None, dtype="int8"))
        with pytest.raises(RelationError, match="expected 0 argument"):
            op_rel(name, InitOpAttrs(shape=(2,), dtype="int8"), tensor_t(()))


def test_full_relation() -> None:
    f = InitOpAttrs
    assert op_rel("full", f(shape=(2, 3)), tensor_t((), "int8")) == tensor_t((2, 3), "int8")
    assert op_rel("full", f(shape=(4,), dtype="float16"), tensor_t((), "int64")) == tensor_t(
        (4,), "float16"
    )
    assert op_rel("full", f(shape=(), dtype="bool"), tensor_t((), "float32")) == tensor_t(
        (), "bool"
    )
    with pytest.raises(RelationError, match=r"scalar fill_value \(rank 0\), found rank 1 \(1\)"):
        op_rel("full", f(shape=(2,)), tensor_t((1,)))
    with pytest.raises(RelationError, match="expected a tensor for fill_value, found a tuple"):
        op_rel("full", f(shape=(2,)), Tup(tensor_t(())))


def test_full_reference_casts_the_fill_value() -> None:
    f = InitOpAttrs
    assert_same(tensor_ref("full", f(shape=(2,)), np.array(1.5, np.float32)), [1.5, 1.5])
    assert_same(tensor_ref("full", f(shape=(2,), dtype="int8"), np.array(3.7)), [3, 3])
    assert_same(tensor_ref("full", f(shape=(1,), dtype="int8"), np.array(-3.7)), [-3])
    assert_same(tensor_ref("full", f(shape=(1,), dtype="int8"), np.array(300, np.int32)), [44])
    assert_same(tensor_ref("full", f(shape=(1,), dtype="uint8"), np.array(-1, np.int64)), [255])
    assert_same(tensor_ref("full", f(shape=(1,), dtype="bool"), np.array(0.5)), [True])
    assert_same(tensor_ref("full", f(shape=(1,), dtype="float16"), np.array(1e6)), [np.inf])
    assert_same(tensor_ref("full", f(shape=(1,), dtype="uint8"), np.array(-0.5)), [0])
    out = tensor_ref("full", f(shape=(2, 2), dtype="int64"), np.array(True))
    assert_same(out, [[1, 1], [1, 1]])


@pytest.mark.parametrize(
    ("value", "dtype"),
    [(np.nan, "int32"), (np.inf, "int64"), (128.0, "int8"), (-1.0, "uint16"), (2.0**63, "int64")],
)
def test_full_float_to_int_out_of_range_is_undefined(value: float, dtype: str) -> None:
    with pytest.raises(UndefinedBehavior, match=f"cast of fill_value .* to {dtype}"):
        op_ref("full", InitOpAttrs(shape=(1,), dtype=dtype), np.array(value))


@pytest.mark.parametrize(
    ("shape", "dtype"),
    [((2, 3), "float32"), ((), "float16"), ((4, 0), "int8"), ((1, 2, 3), "uint32"),
     ((3,), "int64"), ((2, 2), "bool")],
)  # fmt: skip
def test_zeros_and_ones_match_onnxruntime_constant_of_shape(
    shape: tuple[int, ...], dtype: str
) -> None:
    from onnx import numpy_helper

    for name, value in (("zeros", 0), ("ones", 1)):
        fill = numpy_helper.from_array(np.array([value], dtype), "value")
        (expected,) = run_onnx("ConstantOfShape", [ints(*shape)], value=fill)
        out = tensor_ref(name, InitOpAttrs(shape=shape, dtype=dtype))
        assert out.dtype == expected.dtype
        assert_same(out, expected)


@pytest.mark.parametrize(
    ("fill_dtype", "fill"),
    [
        ("float64", -3.7),
        ("float32", 250.5),
        ("float64", -0.9),
        ("float64", 1e6),
        ("float64", float("nan")),
        ("float32", float("-inf")),
        ("float64", 65536.0),
        ("int64", -1),
        ("int32", 70000),
        ("int8", -128),
        ("uint16", 65535),
        ("bool", True),
    ],
)
def test_full_against_python_conversion(fill_dtype: str, fill: float) -> None:
    fill_value = np.array(fill, fill_dtype)
    for dtype in DTYPES:
        attrs = InitOpAttrs(shape=(3, 2), dtype=dtype)
        converted = _convert_python(fill_value.item(), dtype)
        if converted is None:
            with pytest.raises(UndefinedBehavior, match=f"cast of fill_value .* to {dtype}"):
                op_ref("full", attrs, fill_value)
            continue
        expected = np.empty((3, 2), dtype)
        with np.errstate(over="ignore"):  # 1e6 and 70000 round to inf in float16
            for index in itertools.product(range(3), range(2)):
                expected[index] = converted
        out = tensor_ref("full", attrs, fill_value)
        assert out.dtype == expected.dtype
        assert_same(out, expected)
    # dtype "" keeps the fill value's dtype.
    assert_same(tensor_ref("full", InitOpAttrs(shape=(2,)), fill_value), [fill, fill])


@given(st.sampled_from(["zeros", "ones"]), shapes(), dtypes)
def test_zeros_and_ones_agree_with_relation(name: str, shape: tuple[int, ...], dtype: str) -> None:
    check_agreement(name, InitOpAttrs(shape=shape, dtype=dtype))


@given(shapes(), dtypes, st.sampled_from(("", *DTYPES)), seeds)
def test_full_agrees_with_relation(
    shape: tuple[int, ...], fill_dtype: str, dtype: str, seed: int
) -> None:
    fill = array((), fill_dtype, seed, 0, 100)
    attrs = InitOpAttrs(shape=shape, dtype=dtype)
    check_agreement("full", attrs, fill)
    out = tensor_ref("full", attrs, fill)
    np.testing.assert_array_equal(out, np.full(shape, fill).astype(out.dtype))
