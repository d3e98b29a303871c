"""The ``reduce`` operators (``semantics/ops/reduce.py``): relations, references, checks."""

from __future__ import annotations

import itertools
import zlib
from typing import Any

import numpy as np
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx import TensorProto, helper, numpy_helper

from relay.oracles.compare import compare_arrays
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, Attrs
from relay.semantics.ops.nn.pool import (
    AdaptivePool2DAttrs,
)
from relay.semantics.ops.reduce import ReduceAttrs, ScanopAttrs, VarianceAttrs
from relay.semantics.ops.registry import RelationError
from relay.semantics.syntax import ANY, DTYPES, TensorType, TupleType, Type, dim_symbol

pytest.importorskip("onnxruntime")
from ops_helpers import (
    Array,
    check_text_round_trip,
    n,
    of_family,
    raises,
    relate,
    run,
    same,
    t,
)
from ops_helpers import assert_agrees_tensor as assert_agrees

_CALLS = [
    ("variance", "float32", ", axis=[1], keepdims=True, exclude=True, unbiased=True"),
    ("all", "bool", ", axis=[0], keepdims=True"),
    ("cumsum", "int32", ', axis=1, dtype="int64", exclusive=True'),
    ("cumprod", "float64", ", exclusive=None"),
]


RNG = np.random.default_rng(20241129)


def _random(shape: tuple[int, ...], dtype: str, low: float = -4, high: float = 4) -> Array:
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return RNG.integers(int(low), int(high), shape, endpoint=True).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


onnx_peer = pytest.importorskip("relay.oracles.onnx_peer")


def adaptive_direct(x: Array, out_h: int, out_w: int, kind: str) -> Array:
    """Adaptive pooling of NCHW float data cell by cell: cell (i, j) covers rows
    floor(i*H/oh) .. ceil((i+1)*H/oh) - 1 and likewise columns (float64)."""
    nb, c, height, width = x.shape
    out = np.zeros((nb, c, out_h, out_w))
    for i, j in itertools.product(range(out_h), range(out_w)):
        r0, r1 = (i * height) // out_h, -((-(i + 1) * height) // out_h)
        c0, c1 = (j * width) // out_w, -((-(j + 1) * width) // out_w)
        cell = x[:, :, r0:r1, c0:c1].astype(np.float64)
        out[:, :, i, j] = cell.mean(axis=(2, 3)) if kind == "avg" else cell.max(axis=(2, 3))
    return out


VALUE_OPS = ("sum", "mean", "max", "min", "prod")


ARG_OPS = ("argmax", "argmin")


ALL_OPS = VALUE_OPS + ARG_OPS


F32_MAX = float(np.finfo(np.float32).max)


def make_attrs(op: str, attrs: dict[str, Any]) -> Attrs:
    """``op``'s attributes from keyword values, lists written as Python lists."""
    attrs_type = OPS[op].attrs_type
    assert attrs_type is not None
    return attrs_type.from_kwargs(
        {k: tuple(v) if isinstance(v, list) else v for k, v in attrs.items()}
    )


def relate_reduce(op: str, t_reduce: Type, **attrs: Any) -> Type:
    """The result type of ``op`` applied to one argument of type ``t``."""
    relation = OPS[op].relation
    assert relation is not None
    return relation((t_reduce,), make_attrs(op, attrs))


def run_reduce(op: str, x: Array, **attrs: Any) -> Array:
    """The reference result of ``op`` on ``x``."""
    reference = OPS[op].reference
    assert reference is not None
    out = reference((x,), make_attrs(op, attrs))
    assert isinstance(out, np.ndarray)
    return out


def t_reduce(*shape: Any, dtype: str = "float32") -> TensorType:
    return TensorType(tuple(shape), dtype)


N = dim_symbol("n")


TVM_DOC_DATA = np.array(
    [[[1, 2], [2, 3], [1, 3]], [[1, 4], [4, 3], [5, 2]], [[7, 1], [7, 2], [7, 3]]],
    dtype=np.float32,
)
"""The example of TVM's ``sum``, ``prod`` and ``mean`` docs (src/relay/op/tensor/reduce.cc)."""


def _onnx_reduce(
    op_type: str, x: Array, axes: list[int] | None, keepdims: bool, **attrs: Any
) -> Array:
    """Run one ONNX (opset 13) reduction node on ``x`` with onnxruntime."""
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    out_elem = TensorProto.INT64 if op_type.startswith("Arg") else elem
    inputs, inits = ["x"], []
    if axes is not None and op_type == "ReduceSum":  # axes became an input in opset 13
        inits.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))
        inputs.append("axes")
    elif axes is not None and op_type.startswith("Arg"):
        (attrs["axis"],) = axes
    elif axes is not None:
        attrs["axes"] = axes
    node = helper.make_node(op_type, inputs, ["y"], keepdims=int(keepdims), **attrs)
    graph = helper.make_graph(
        [node],
        "reduction",
        [helper.make_tensor_value_info("x", elem, x.shape)],
        [helper.make_tensor_value_info("y", out_elem, None)],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    (y,) = session.run(None, {"x": x})
    return np.asarray(y)


ONNX_VALUE_OPS = {
    "sum": "ReduceSum",
    "mean": "ReduceMean",
    "max": "ReduceMax",
    "min": "ReduceMin",
    "prod": "ReduceProd",
}


AXES_CASES: tuple[list[int] | None, ...] = (None, [0], [-1], [0, 2], [2, 1, 0])


@st.composite
def reduction_cases(draw: st.DrawFn, op: str) -> tuple[Array, Attrs]:
    """A tensor and valid attributes for ``op``: small shapes, small values, every dtype."""
    dtype = draw(st.sampled_from(DTYPES))
    min_rank = 1 if op in ARG_OPS else 0
    shape = draw(hnp.array_shapes(min_dims=min_rank, max_dims=3, min_side=0, max_side=3))
    if dtype == "bool":
        elements: st.SearchStrategy[Any] = st.booleans()
    elif dtype.startswith("float"):
        elements = st.floats(-4, 4, width=int(dtype[5:]))
    else:
        elements = st.integers(0 if dtype.startswith("u") else -2, 2)
    x = draw(hnp.arrays(np.dtype(dtype), shape, elements=elements))
    rank = len(shape)
    axis: list[int] | None = None
    if draw(st.booleans()) and rank > 0:
        picked = draw(st.lists(st.integers(0, rank - 1), unique=True, max_size=rank))
        axis = [a - rank if draw(st.booleans()) else a for a in picked]
    kwargs: dict[str, object] = {
        "axis": axis,
        "keepdims": draw(st.booleans()),
        "exclude": draw(st.booleans()),
    }
    if op in ARG_OPS:
        kwargs["select_last_index"] = draw(st.booleans())
    return x, make_attrs(op, kwargs)


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


@pytest.mark.parametrize(("name", "dtype", "attrs"), of_family(_CALLS, "reduce"))
def test_calls_round_trip_through_the_text_format(name: str, dtype: str, attrs: str) -> None:
    check_text_round_trip(name, dtype, attrs)


@settings(max_examples=30)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 7),
    st.integers(1, 7),
    st.lists(st.integers(1, 8), max_size=2),
    st.sampled_from(["NCHW", "NHWC"]),
)
def test_adaptive_pools_match_direct_loops(
    seed: int, height: int, width: int, size: list[int], layout: str
) -> None:
    x = np.random.default_rng(seed).standard_normal((2, 3, height, width)).astype(np.float32)
    out_h, out_w = (size[0], size[-1]) if size else (height, width)
    data = x.transpose(0, 2, 3, 1) if layout == "NHWC" else x
    attrs = AdaptivePool2DAttrs(output_size=tuple(size), layout=layout)
    for kind in ("avg", "max"):
        got = assert_agrees(f"nn.adaptive_{kind}_pool2d", (data,), attrs)
        assert got is not None
        if layout == "NHWC":
            got = got.transpose(0, 3, 1, 2)
        expected = adaptive_direct(x, out_h, out_w, kind)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_every_reduction_has_its_relation_and_reference() -> None:
    for op in ALL_OPS:
        record = OPS[op]
        assert record.relation is not None and record.reference is not None
        assert record.relation_name == ("ArgReduce" if op in ARG_OPS else "Reduce")


@pytest.mark.parametrize("op", VALUE_OPS)
def test_axis_none_reduces_every_axis(op: str) -> None:
    assert relate_reduce(op, t_reduce(2, 3, 4)) == t_reduce()
    assert relate_reduce(op, t_reduce(2, 3, 4), keepdims=True) == t_reduce(1, 1, 1)
    # An empty list means every axis too (GetReduceAxes), with or without exclude.
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[]) == t_reduce()
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[], exclude=True) == t_reduce()
    assert relate_reduce(op, t_reduce(2, 3, 4), exclude=True) == t_reduce()


@pytest.mark.parametrize("op", ALL_OPS)
def test_axis_lists_and_negative_axes(op: str) -> None:
    dtype = "int32" if op in ARG_OPS else "float32"
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[0, 2]) == t_reduce(3, dtype=dtype)
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[2, 0]) == t_reduce(3, dtype=dtype)
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[0, 2], keepdims=True) == t_reduce(
        1, 3, 1, dtype=dtype
    )
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[-1]) == t_reduce(2, 3, dtype=dtype)
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[-3, -1]) == t_reduce(3, dtype=dtype)
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[-2], keepdims=True) == t_reduce(
        2, 1, 4, dtype=dtype
    )


@pytest.mark.parametrize("op", ALL_OPS)
def test_duplicate_axes_are_rejected(op: str) -> None:
    repeated = r"expected distinct axes, found axis 1 repeated in axis=\[1, 1\]"
    with pytest.raises(RelationError, match=repeated):
        relate_reduce(op, t_reduce(2, 3, 4), axis=[1, 1])
    with pytest.raises(RelationError, match=r"found axis -2 repeated"):
        relate_reduce(op, t_reduce(2, 3, 4), axis=[1, -2], exclude=True)


@pytest.mark.parametrize("op", ALL_OPS)
def test_out_of_range_axes_are_rejected(op: str) -> None:
    message = r"axis=\[0, 3\]: 3 is out of range for a tensor of rank 3 \(expected -3 <= axis < 3\)"
    with pytest.raises(RelationError, match=message):
        relate_reduce(op, t_reduce(2, 3, 4), axis=[0, 3])
    with pytest.raises(
        RelationError, match=r"axis=\[-4\]: -4 is out of range for a tensor of rank 3"
    ):
        relate_reduce(op, t_reduce(2, 3, 4), axis=[-4], exclude=True)


@pytest.mark.parametrize("op", ALL_OPS)
def test_exclude_reduces_the_axes_not_listed(op: str) -> None:
    dtype = "int32" if op in ARG_OPS else "float32"
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[1], exclude=True) == t_reduce(3, dtype=dtype)
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[-2], exclude=True, keepdims=True) == t_reduce(
        1, 3, 1, dtype=dtype
    )
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[0, 2], exclude=True) == t_reduce(
        2, 4, dtype=dtype
    )
    # Listing every axis reduces none: the input shape, whatever keepdims says.
    assert relate_reduce(op, t_reduce(2, 3, 4), axis=[0, 1, 2], exclude=True) == t_reduce(
        2, 3, 4, dtype=dtype
    )
    assert relate_reduce(op, t_reduce(2, 3), axis=[1, 0], exclude=True, keepdims=True) == t_reduce(
        2, 3, dtype=dtype
    )


@pytest.mark.parametrize("op", VALUE_OPS)
def test_rank_zero_value_reductions(op: str) -> None:
    assert relate_reduce(op, t_reduce()) == t_reduce()
    assert relate_reduce(op, t_reduce(), keepdims=True) == t_reduce()
    with pytest.raises(
        RelationError, match=r"axis=\[0\]: 0 is out of range for a tensor of rank 0"
    ):
        relate_reduce(op, t_reduce(), axis=[0])


@pytest.mark.parametrize("op", ARG_OPS)
def test_rank_zero_index_reductions_are_rejected(op: str) -> None:
    with pytest.raises(RelationError, match="expected a tensor of rank at least 1, found rank 0"):
        relate_reduce(op, t_reduce())


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes(dtype: str) -> None:
    for op in VALUE_OPS:
        assert relate_reduce(op, t_reduce(2, 3, dtype=dtype), axis=[1]) == t_reduce(2, dtype=dtype)
    for op in ARG_OPS:
        assert relate_reduce(op, t_reduce(2, 3, dtype=dtype), axis=[1]) == t_reduce(
            2, dtype="int32"
        )
        assert relate_reduce(op, t_reduce(2, 3, dtype=dtype), select_last_index=True) == t_reduce(
            dtype="int32"
        )


@pytest.mark.parametrize("op", ALL_OPS)
def test_symbolic_and_unknown_dims_are_kept(op: str) -> None:
    dtype = "int32" if op in ARG_OPS else "float32"
    assert relate_reduce(op, t_reduce(N, 3), axis=[0]) == t_reduce(3, dtype=dtype)
    assert relate_reduce(op, t_reduce(N, 3), axis=[1]) == t_reduce(N, dtype=dtype)
    assert relate_reduce(op, t_reduce(N, 3), axis=[1], keepdims=True) == t_reduce(N, 1, dtype=dtype)
    assert relate_reduce(op, t_reduce(N, 2 * N + 1, 4), axis=[2], exclude=True) == t_reduce(
        4, dtype=dtype
    )
    assert relate_reduce(op, t_reduce(ANY, 3), axis=[-1]) == t_reduce(ANY, dtype=dtype)
    assert relate_reduce(op, t_reduce(ANY, N), axis=[0], keepdims=True) == t_reduce(
        1, N, dtype=dtype
    )


def test_reduced_extent_must_fit_int32_when_some_extent_is_unknown() -> None:
    big = 70000  # 70000 * 70000 > 2**31
    with pytest.raises(RelationError, match=r"below int32 max \(2147483647\), found 4900000000"):
        relate_reduce("sum", t_reduce(big, big, N))
    with pytest.raises(RelationError, match="int32 max"):
        relate_reduce("argmax", t_reduce(big, big, ANY), axis=[0, 1, 2])
    # TVM multiplies only the known extents before the first unknown one, and checks nothing
    # when every reduced extent is known.
    assert relate_reduce("sum", t_reduce(N, big, big)) == t_reduce()
    assert relate_reduce("sum", t_reduce(big, big, 3)) == t_reduce()
    assert relate_reduce("sum", t_reduce(big, big, N), axis=[1, 2]) == t_reduce(big)


def test_non_tensor_argument_is_rejected() -> None:
    with pytest.raises(RelationError, match="expected a tensor for data, found a tuple"):
        relate_reduce("sum", TupleType((t_reduce(2),)))
    with pytest.raises(RelationError, match="expected 1 argument, found 2"):
        relation = OPS["max"].relation
        assert relation is not None
        relation((t_reduce(2), t_reduce(2)), ReduceAttrs())


def test_default_attributes_when_none() -> None:
    relation = OPS["argmin"].relation
    assert relation is not None
    assert relation((t_reduce(2, 3),), None) == t_reduce(dtype="int32")


def test_tvm_documented_examples() -> None:
    x = TVM_DOC_DATA
    np.testing.assert_array_equal(run_reduce("sum", x, axis=[1]), [[4, 8], [10, 9], [21, 6]])
    np.testing.assert_array_equal(run_reduce("sum", x, axis=[1, 2]), [12, 19, 27])
    np.testing.assert_array_equal(run_reduce("prod", x, axis=[1, 2]), [36, 480, 2058])
    np.testing.assert_array_equal(run_reduce("prod", x), np.float32(35562240))
    np.testing.assert_allclose(run_reduce("mean", x), 87 / 27, rtol=1e-6)
    np.testing.assert_allclose(run_reduce("mean", x, axis=[1, 2]), [2, 19 / 6, 4.5], rtol=1e-6)


def test_exclude_and_keepdims_values() -> None:
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    out = run_reduce("sum", x, axis=[1], exclude=True, keepdims=True)
    assert out.shape == (1, 3, 1)
    assert out[0, :, 0].tolist() == [
        sum(x[i, j, k] for i in range(2) for k in range(4)) for j in range(3)
    ]
    out = run_reduce("max", x, axis=[-1], exclude=True)
    assert out.tolist() == [x[:, :, k].max() for k in range(4)]
    # Listing every axis reduces none: every op is the identity.
    for op in VALUE_OPS:
        np.testing.assert_array_equal(run_reduce(op, x, axis=[0, 1, 2], exclude=True), x)


def test_reductions_over_a_size_zero_axis_give_the_identity() -> None:
    f32 = np.zeros((2, 0), np.float32)
    assert run_reduce("sum", f32, axis=[1]).tolist() == [0, 0]
    assert run_reduce("prod", f32, axis=[1]).tolist() == [1, 1]
    # TVM's min_value / max_value of a float dtype are the finite extremes, not infinities.
    assert run_reduce("max", f32, axis=[1]).tolist() == [-F32_MAX, -F32_MAX]
    assert run_reduce("min", f32, axis=[1]).tolist() == [F32_MAX, F32_MAX]
    assert run_reduce("max", np.zeros((0,), np.float16)).item() == -65504.0
    assert run_reduce("min", np.zeros((0, 3), np.int8), axis=[0]).tolist() == [127] * 3
    assert run_reduce("max", np.zeros((0, 3), np.uint8), axis=[0]).tolist() == [0] * 3
    assert run_reduce("max", np.zeros((0,), np.int64)).item() == -(2**63)
    assert run_reduce("min", np.zeros((0,), bool)).item() is True
    assert run_reduce("sum", np.zeros((0,), bool)).item() is False
    for op in ARG_OPS:
        out = run_reduce(op, np.zeros((3, 0), np.float32), axis=[1], select_last_index=True)
        assert out.dtype == np.int32 and out.tolist() == [-1, -1, -1]
    with pytest.raises(UndefinedBehavior, match="mean over zero elements"):
        run_reduce("mean", f32, axis=[1])
    # Reducing the other axis of the empty tensor is fine: an empty result.
    assert run_reduce("mean", f32, axis=[0]).shape == (0,)


def test_max_and_min_start_from_finite_extremes() -> None:
    # max(-FLT_MAX, -inf) is -FLT_MAX: an all--inf slice does not give -inf.
    assert run_reduce("max", np.array([-np.inf, -np.inf], np.float32)).item() == -F32_MAX
    assert run_reduce("min", np.array([np.inf], np.float16)).item() == 65504.0
    assert run_reduce("max", np.array([-np.inf, 1.5], np.float32)).item() == 1.5
    # With no axis reduced no combiner runs: the input comes back.
    assert run_reduce("max", np.array(-np.inf, np.float32)).item() == -np.inf
    assert np.isnan(run_reduce("min", np.array(np.nan), axis=[])).item()


def test_bool_reductions() -> None:
    x = np.array([[True, False], [False, False], [True, True]])
    assert run_reduce("sum", x, axis=[1]).tolist() == [True, False, True]  # any
    assert run_reduce("prod", x, axis=[1]).tolist() == [False, False, True]  # all
    assert run_reduce("max", x, axis=[1]).tolist() == [True, False, True]
    assert run_reduce("min", x, axis=[1]).tolist() == [False, False, True]
    assert run_reduce("sum", x).dtype == np.bool_
    # mean of bool: the count must fit bool, so only single elements are defined.
    assert run_reduce("mean", x[:, :1], axis=[1]).tolist() == [True, False, True]
    with pytest.raises(UndefinedBehavior, match="the count does not fit the dtype"):
        run_reduce("mean", x, axis=[1])


def test_narrow_integers_wrap() -> None:
    assert run_reduce("sum", np.array([100, 100], np.int8)).item() == -56
    assert run_reduce("sum", np.array([65535, 2], np.uint16)).item() == 1
    assert run_reduce("prod", np.array([16, 16], np.int8)).item() == 0
    assert run_reduce("prod", np.array([-128, -1], np.int8)).item() == -128


def test_wide_integer_overflow_is_undefined() -> None:
    big = 2**31 - 1
    assert run_reduce("sum", np.array([big, -1, -big], np.int32)).item() == -1
    assert run_reduce("sum", np.array([-(2**31), 0], np.int32)).item() == -(2**31)
    with pytest.raises(UndefinedBehavior, match="sum of int32 overflows"):
        run_reduce("sum", np.array([big, 1], np.int32))
    # Some evaluation order adds the two positives first, even though the total fits.
    with pytest.raises(UndefinedBehavior, match="overflows in some evaluation order"):
        run_reduce("sum", np.array([big, -1, 1], np.int32))
    with pytest.raises(UndefinedBehavior, match="sum of uint32"):
        run_reduce("sum", np.array([2**32 - 1, 1], np.uint32))
    with pytest.raises(UndefinedBehavior, match="sum of int64"):
        run_reduce("sum", np.array([2**62, 2**62], np.int64))
    with pytest.raises(UndefinedBehavior, match="mean of int32"):
        run_reduce("mean", np.array([big, big], np.int32))


def test_wide_integer_product_overflow_is_undefined() -> None:
    assert run_reduce("prod", np.array([-(2**31), 1], np.int32)).item() == -(2**31)
    assert run_reduce("prod", np.array([2**30, -2], np.int32)).item() == -(2**31)
    assert run_reduce("prod", np.array([2**16, 2**15, -1, -1, 0], np.int64)).item() == 0
    for bad in ([2**30, 2], [2**30, -2, -1], [-(2**30), -2], [2**16, 2**16, 0]):
        with pytest.raises(UndefinedBehavior, match="prod of int32 overflows"):
            run_reduce("prod", np.array(bad, np.int32))
    with pytest.raises(UndefinedBehavior, match="prod of uint64"):
        run_reduce("prod", np.array([2**32, 2**32], np.uint64))
    assert run_reduce("prod", np.array([2**32, 2**31 - 1], np.uint64)).item() == 2**32 * (2**31 - 1)


def test_integer_mean_truncates_toward_zero() -> None:
    assert run_reduce("mean", np.array([-7, 0], np.int32)).item() == -3
    assert run_reduce("mean", np.array([7, 0], np.int32)).item() == 3
    assert run_reduce("mean", np.array([[-9, 0, 0], [9, 1, 1]], np.int64), axis=[1]).tolist() == [
        -3,
        3,
    ]
    assert run_reduce("mean", np.array([5, 6], np.uint32)).item() == 5
    # The int8 sum wraps (200 -> -56) before the division.
    assert run_reduce("mean", np.array([100, 100], np.int8)).item() == -28
    assert run_reduce("mean", np.array([255, 1], np.uint8)).item() == 0
    assert run_reduce("mean", np.zeros(127, np.int8)).item() == 0
    with pytest.raises(UndefinedBehavior, match="mean over 128 elements of int8"):
        run_reduce("mean", np.zeros(128, np.int8))
    assert run_reduce("mean", np.zeros(255, np.uint8)).item() == 0
    with pytest.raises(UndefinedBehavior, match="mean over 256 elements of uint8"):
        run_reduce("mean", np.zeros(256, np.uint8))


def test_float16_mean_is_computed_in_float32() -> None:
    # The float16 sum 131008 would overflow; MeanCompute casts to float32 first.
    out = run_reduce("mean", np.array([65504, 65504], np.float16))
    assert out.dtype == np.float16 and out.item() == 65504.0
    out = run_reduce("mean", np.array([1, 2, 2], np.float16))
    assert out.item() == np.float16(np.float32(5) / np.float32(3))


def test_argmax_ties_and_select_last_index() -> None:
    x = np.array([[3, 1, 3], [0, 5, 5]], np.int32)
    assert run_reduce("argmax", x, axis=[1]).tolist() == [0, 1]
    assert run_reduce("argmax", x, axis=[1], select_last_index=True).tolist() == [2, 2]
    assert run_reduce("argmin", x, axis=[1]).tolist() == [1, 0]
    assert run_reduce("argmin", x, axis=[0], select_last_index=True).tolist() == [1, 0, 0]
    assert run_reduce("argmax", x).item() == 4  # row-major over every axis
    assert run_reduce("argmax", x, select_last_index=True).item() == 5
    assert run_reduce("argmax", x, axis=[1], keepdims=True).tolist() == [[0], [1]]


def test_arg_index_is_row_major_within_the_reduced_axes() -> None:
    rng = np.random.default_rng(0)
    x = rng.permutation(60).reshape(3, 4, 5).astype(np.float32)
    out = run_reduce("argmax", x, axis=[2, 0])
    assert out.shape == (4,) and out.dtype == np.int32
    for j in range(4):
        block = x[:, j, :]  # axes (0, 2) in increasing order
        assert out[j] == int(np.argmax(block.reshape(-1)))
    out = run_reduce("argmin", x, axis=[1], exclude=True, keepdims=True)
    assert out.shape == (1, 4, 1)
    for j in range(4):
        assert out[0, j, 0] == int(np.argmin(x[:, j, :].reshape(-1)))


def test_arg_identity_takes_part_in_ties() -> None:
    # The reducer starts from (-1, min_value): a slice whose best equals min_value keeps -1
    # when ties go to the lower index.
    zeros = np.array([[0, 0], [0, 1]], np.uint8)
    assert run_reduce("argmax", zeros, axis=[1]).tolist() == [-1, 1]
    assert run_reduce("argmax", zeros, axis=[1], select_last_index=True).tolist() == [1, 1]
    assert run_reduce("argmax", np.array([False, False])).item() == -1
    assert run_reduce("argmin", np.array([True, True]), select_last_index=True).item() == 1
    assert run_reduce("argmin", np.array([127, 127], np.int8)).item() == -1
    lowest = np.array([-F32_MAX, -F32_MAX], np.float32)
    assert run_reduce("argmax", lowest).item() == -1
    assert run_reduce("argmax", lowest, select_last_index=True).item() == 1
    # A slice of only -inf never beats the identity's -FLT_MAX.
    for last in (False, True):
        assert (
            run_reduce("argmax", np.array([-np.inf, -np.inf]), select_last_index=last).item() == -1
        )
        assert run_reduce("argmin", np.array([np.inf]), select_last_index=last).item() == -1


@pytest.mark.parametrize("op", ["max", "min", "argmax", "argmin"])
def test_nan_in_comparison_reductions_is_undefined(op: str) -> None:
    x = np.array([[1.0, np.nan, 2.0], [1.0, 2.0, 3.0]], np.float32)
    with pytest.raises(UndefinedBehavior, match=f"{op} over a NaN"):
        run_reduce(op, x, axis=[1])


def test_nan_propagates_through_sums() -> None:
    x = np.array([[1.0, np.nan], [1.0, 2.0]], np.float32)
    out = run_reduce("sum", x, axis=[1])
    assert np.isnan(out[0]) and out[1] == 3.0
    assert np.isnan(run_reduce("mean", x, axis=[1])[0])
    assert np.isnan(run_reduce("sum", np.array([np.inf, -np.inf]))).item()


def test_undefined_attribute_combinations() -> None:
    x = np.ones((2, 3), np.float32)
    with pytest.raises(UndefinedBehavior, match="exclude=True and axis=None"):
        run_reduce("sum", x, exclude=True)
    with pytest.raises(UndefinedBehavior, match=r"axis=\[\]"):
        run_reduce("max", x, axis=[])
    assert run_reduce("sum", x, axis=[], exclude=True).item() == 6.0
    # Rank 0 returns the input before looking at the axes.
    assert run_reduce("sum", np.array(2, np.float32), exclude=True).item() == 2.0
    with pytest.raises(UndefinedBehavior, match="not int32 indices"):
        run_reduce("argmax", x, axis=[0, 1], exclude=True)
    ints = np.array([[4, 5, 6]], np.int32)
    np.testing.assert_array_equal(run_reduce("argmin", ints, axis=[0, 1], exclude=True), ints)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axes", AXES_CASES)
@pytest.mark.parametrize("op", VALUE_OPS)
def test_value_reductions_match_onnxruntime(
    op: str, axes: list[int] | None, keepdims: bool
) -> None:
    rng = np.random.default_rng(zlib.crc32(f"{op} {axes} {keepdims}".encode()))
    shape = (3, 4, 5)
    dtypes = ["float32", "float64"] + ([] if op == "mean" else ["int32", "int64"])
    for dtype in dtypes:
        if dtype.startswith("float"):
            # prod stays near 1 so the product neither under- nor overflows.
            x = rng.uniform(0.5, 1.5, shape) if op == "prod" else rng.normal(0, 10, shape)
        elif op == "prod":  # at most 60 factors: keep every subset product in range
            x = rng.choice([-2, -1, 1, 2] if dtype == "int64" else [-1, 0, 1], shape)
        else:
            x = rng.integers(-3, 4, shape)
        x = x.astype(dtype)
        expected = _onnx_reduce(ONNX_VALUE_OPS[op], x, axes, keepdims)
        actual = run_reduce(op, x, axis=axes, keepdims=keepdims)
        reduced = x.size // max(actual.size, 1)
        assert actual.shape == expected.shape
        assert compare_arrays(expected, actual, reduction_length=reduced) is None


@pytest.mark.parametrize("select_last_index", [False, True])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("op", ARG_OPS)
def test_index_reductions_match_onnxruntime(
    op: str, keepdims: bool, select_last_index: bool
) -> None:
    rng = np.random.default_rng(7 + keepdims + 2 * select_last_index)
    onnx_op = "ArgMax" if op == "argmax" else "ArgMin"
    for axis in (0, 1, -1):
        # Few distinct values, so ties are common and the tie rule is exercised.
        ints = rng.integers(-2, 3, (4, 5, 6)).astype(np.int32)
        floats = rng.normal(size=(4, 5, 6)).astype(np.float32)
        for x in (ints, floats):
            expected = _onnx_reduce(
                onnx_op, x, [axis], keepdims, select_last_index=int(select_last_index)
            )
            actual = run_reduce(
                op, x, axis=[axis], keepdims=keepdims, select_last_index=select_last_index
            )
            assert actual.dtype == np.int32
            np.testing.assert_array_equal(actual, expected.astype(np.int32))


@pytest.mark.parametrize("op", ALL_OPS)
def test_reference_type_matches_relation(op: str) -> None:
    record = OPS[op]
    relation, reference = record.relation, record.reference
    assert relation is not None and reference is not None

    @given(reduction_cases(op))
    def check(case: tuple[Array, Attrs]) -> None:
        x, attrs = case
        expected = relation((TensorType(x.shape, str(x.dtype)),), attrs)
        try:
            out = reference((x,), attrs)
        except UndefinedBehavior:
            return
        assert isinstance(out, np.ndarray) and isinstance(expected, TensorType)
        assert (out.shape, str(out.dtype)) == (expected.shape, expected.dtype)

    check()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ALL_OPS)
def test_reference_runs_on_every_dtype(op: str, dtype: str) -> None:
    # A bool mean is defined only over a count that fits bool: one element.
    width = 1 if (op, dtype) == ("mean", "bool") else 3
    x = (np.arange(2 * width) % 2).reshape(2, width).astype(dtype)
    out = run_reduce(op, x, axis=[1])
    expected = relate_reduce(op, t_reduce(2, width, dtype=dtype), axis=[1])
    assert isinstance(expected, TensorType)
    assert (out.shape, str(out.dtype)) == (expected.shape, expected.dtype)
