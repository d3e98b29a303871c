"""The reduction family: relations against TVM's documented behaviour, references against
hand-computed values and onnxruntime, and reference types against relation types."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx import TensorProto, helper, numpy_helper

from relay.oracles.compare import compare_arrays
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.reduce import ReduceAttrs
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import ANY, DTYPES, TensorType, TupleType, Type, dim_symbol

VALUE_OPS = ("sum", "mean", "max", "min", "prod")
ARG_OPS = ("argmax", "argmin")
ALL_OPS = VALUE_OPS + ARG_OPS

Array = npt.NDArray[Any]
F32_MAX = float(np.finfo(np.float32).max)


def make_attrs(op: str, attrs: dict[str, Any]) -> Attrs:
    """``op``'s attributes from keyword values, lists written as Python lists."""
    attrs_type = OPS[op].attrs_type
    assert attrs_type is not None
    return attrs_type.from_kwargs(
        {k: tuple(v) if isinstance(v, list) else v for k, v in attrs.items()}
    )


def relate(op: str, t: Type, **attrs: Any) -> Type:
    """The result type of ``op`` applied to one argument of type ``t``."""
    relation = OPS[op].relation
    assert relation is not None
    return relation((t,), make_attrs(op, attrs))


def run(op: str, x: Array, **attrs: Any) -> Array:
    """The reference result of ``op`` on ``x``."""
    reference = OPS[op].reference
    assert reference is not None
    out = reference((x,), make_attrs(op, attrs))
    assert isinstance(out, np.ndarray)
    return out


def t(*shape: Any, dtype: str = "float32") -> TensorType:
    return TensorType(tuple(shape), dtype)


N = dim_symbol("n")


# ---------------------------------------------------------------------------------------------
# The records


def test_every_reduction_has_its_relation_and_reference() -> None:
    for op in ALL_OPS:
        record = OPS[op]
        assert record.relation is not None and record.reference is not None
        assert record.relation_name == ("ArgReduce" if op in ARG_OPS else "Reduce")


# ---------------------------------------------------------------------------------------------
# Relations


@pytest.mark.parametrize("op", VALUE_OPS)
def test_axis_none_reduces_every_axis(op: str) -> None:
    assert relate(op, t(2, 3, 4)) == t()
    assert relate(op, t(2, 3, 4), keepdims=True) == t(1, 1, 1)
    # An empty list means every axis too (GetReduceAxes), with or without exclude.
    assert relate(op, t(2, 3, 4), axis=[]) == t()
    assert relate(op, t(2, 3, 4), axis=[], exclude=True) == t()
    assert relate(op, t(2, 3, 4), exclude=True) == t()


@pytest.mark.parametrize("op", ALL_OPS)
def test_axis_lists_and_negative_axes(op: str) -> None:
    dtype = "int32" if op in ARG_OPS else "float32"
    assert relate(op, t(2, 3, 4), axis=[0, 2]) == t(3, dtype=dtype)
    assert relate(op, t(2, 3, 4), axis=[2, 0]) == t(3, dtype=dtype)
    assert relate(op, t(2, 3, 4), axis=[0, 2], keepdims=True) == t(1, 3, 1, dtype=dtype)
    assert relate(op, t(2, 3, 4), axis=[-1]) == t(2, 3, dtype=dtype)
    assert relate(op, t(2, 3, 4), axis=[-3, -1]) == t(3, dtype=dtype)
    assert relate(op, t(2, 3, 4), axis=[-2], keepdims=True) == t(2, 1, 4, dtype=dtype)


@pytest.mark.parametrize("op", ALL_OPS)
def test_duplicate_axes_are_rejected(op: str) -> None:
    repeated = r"expected distinct axes, found axis 1 repeated in axis=\[1, 1\]"
    with pytest.raises(RelationError, match=repeated):
        relate(op, t(2, 3, 4), axis=[1, 1])
    with pytest.raises(RelationError, match=r"found axis -2 repeated"):
        relate(op, t(2, 3, 4), axis=[1, -2], exclude=True)


@pytest.mark.parametrize("op", ALL_OPS)
def test_out_of_range_axes_are_rejected(op: str) -> None:
    message = r"axis=\[0, 3\]: 3 is out of range for a tensor of rank 3 \(expected -3 <= axis < 3\)"
    with pytest.raises(RelationError, match=message):
        relate(op, t(2, 3, 4), axis=[0, 3])
    with pytest.raises(
        RelationError, match=r"axis=\[-4\]: -4 is out of range for a tensor of rank 3"
    ):
        relate(op, t(2, 3, 4), axis=[-4], exclude=True)


@pytest.mark.parametrize("op", ALL_OPS)
def test_exclude_reduces_the_axes_not_listed(op: str) -> None:
    dtype = "int32" if op in ARG_OPS else "float32"
    assert relate(op, t(2, 3, 4), axis=[1], exclude=True) == t(3, dtype=dtype)
    assert relate(op, t(2, 3, 4), axis=[-2], exclude=True, keepdims=True) == t(1, 3, 1, dtype=dtype)
    assert relate(op, t(2, 3, 4), axis=[0, 2], exclude=True) == t(2, 4, dtype=dtype)
    # Listing every axis reduces none: the input shape, whatever keepdims says.
    assert relate(op, t(2, 3, 4), axis=[0, 1, 2], exclude=True) == t(2, 3, 4, dtype=dtype)
    assert relate(op, t(2, 3), axis=[1, 0], exclude=True, keepdims=True) == t(2, 3, dtype=dtype)


@pytest.mark.parametrize("op", VALUE_OPS)
def test_rank_zero_value_reductions(op: str) -> None:
    assert relate(op, t()) == t()
    assert relate(op, t(), keepdims=True) == t()
    with pytest.raises(
        RelationError, match=r"axis=\[0\]: 0 is out of range for a tensor of rank 0"
    ):
        relate(op, t(), axis=[0])


@pytest.mark.parametrize("op", ARG_OPS)
def test_rank_zero_index_reductions_are_rejected(op: str) -> None:
    with pytest.raises(RelationError, match="expected a tensor of rank at least 1, found rank 0"):
        relate(op, t())


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes(dtype: str) -> None:
    for op in VALUE_OPS:
        assert relate(op, t(2, 3, dtype=dtype), axis=[1]) == t(2, dtype=dtype)
    for op in ARG_OPS:
        assert relate(op, t(2, 3, dtype=dtype), axis=[1]) == t(2, dtype="int32")
        assert relate(op, t(2, 3, dtype=dtype), select_last_index=True) == t(dtype="int32")


@pytest.mark.parametrize("op", ALL_OPS)
def test_symbolic_and_unknown_dims_are_kept(op: str) -> None:
    dtype = "int32" if op in ARG_OPS else "float32"
    assert relate(op, t(N, 3), axis=[0]) == t(3, dtype=dtype)
    assert relate(op, t(N, 3), axis=[1]) == t(N, dtype=dtype)
    assert relate(op, t(N, 3), axis=[1], keepdims=True) == t(N, 1, dtype=dtype)
    assert relate(op, t(N, 2 * N + 1, 4), axis=[2], exclude=True) == t(4, dtype=dtype)
    assert relate(op, t(ANY, 3), axis=[-1]) == t(ANY, dtype=dtype)
    assert relate(op, t(ANY, N), axis=[0], keepdims=True) == t(1, N, dtype=dtype)


def test_reduced_extent_must_fit_int32_when_some_extent_is_unknown() -> None:
    big = 70000  # 70000 * 70000 > 2**31
    with pytest.raises(RelationError, match=r"below int32 max \(2147483647\), found 4900000000"):
        relate("sum", t(big, big, N))
    with pytest.raises(RelationError, match="int32 max"):
        relate("argmax", t(big, big, ANY), axis=[0, 1, 2])
    # TVM multiplies only the known extents before the first unknown one, and checks nothing
    # when every reduced extent is known.
    assert relate("sum", t(N, big, big)) == t()
    assert relate("sum", t(big, big, 3)) == t()
    assert relate("sum", t(big, big, N), axis=[1, 2]) == t(big)


def test_non_tensor_argument_is_rejected() -> None:
    with pytest.raises(RelationError, match="expected a tensor for data, found a tuple"):
        relate("sum", TupleType((t(2),)))
    with pytest.raises(RelationError, match="expected 1 argument, found 2"):
        relation = OPS["max"].relation
        assert relation is not None
        relation((t(2), t(2)), ReduceAttrs())


def test_default_attributes_when_none() -> None:
    relation = OPS["argmin"].relation
    assert relation is not None
    assert relation((t(2, 3),), None) == t(dtype="int32")


# ---------------------------------------------------------------------------------------------
# References: hand-computed values

TVM_DOC_DATA = np.array(
    [[[1, 2], [2, 3], [1, 3]], [[1, 4], [4, 3], [5, 2]], [[7, 1], [7, 2], [7, 3]]],
    dtype=np.float32,
)
"""The example of TVM's ``sum``, ``prod`` and ``mean`` docs (src/relay/op/tensor/reduce.cc)."""


def test_tvm_documented_examples() -> None:
    x = TVM_DOC_DATA
    np.testing.assert_array_equal(run("sum", x, axis=[1]), [[4, 8], [10, 9], [21, 6]])
    np.testing.assert_array_equal(run("sum", x, axis=[1, 2]), [12, 19, 27])
    np.testing.assert_array_equal(run("prod", x, axis=[1, 2]), [36, 480, 2058])
    np.testing.assert_array_equal(run("prod", x), np.float32(35562240))
    np.testing.assert_allclose(run("mean", x), 87 / 27, rtol=1e-6)
    np.testing.assert_allclose(run("mean", x, axis=[1, 2]), [2, 19 / 6, 4.5], rtol=1e-6)


def test_exclude_and_keepdims_values() -> None:
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    out = run("sum", x, axis=[1], exclude=True, keepdims=True)
    assert out.shape == (1, 3, 1)
    assert out[0, :, 0].tolist() == [
        sum(x[i, j, k] for i in range(2) for k in range(4)) for j in range(3)
    ]
    out = run("max", x, axis=[-1], exclude=True)
    assert out.tolist() == [x[:, :, k].max() for k in range(4)]
    # Listing every axis reduces none: every op is the identity.
    for op in VALUE_OPS:
        np.testing.assert_array_equal(run(op, x, axis=[0, 1, 2], exclude=True), x)


def test_reductions_over_a_size_zero_axis_give_the_identity() -> None:
    f32 = np.zeros((2, 0), np.float32)
    assert run("sum", f32, axis=[1]).tolist() == [0, 0]
    assert run("prod", f32, axis=[1]).tolist() == [1, 1]
    # TVM's min_value / max_value of a float dtype are the finite extremes, not infinities.
    assert run("max", f32, axis=[1]).tolist() == [-F32_MAX, -F32_MAX]
    assert run("min", f32, axis=[1]).tolist() == [F32_MAX, F32_MAX]
    assert run("max", np.zeros((0,), np.float16)).item() == -65504.0
    assert run("min", np.zeros((0, 3), np.int8), axis=[0]).tolist() == [127] * 3
    assert run("max", np.zeros((0, 3), np.uint8), axis=[0]).tolist() == [0] * 3
    assert run("max", np.zeros((0,), np.int64)).item() == -(2**63)
    assert run("min", np.zeros((0,), bool)).item() is True
    assert run("sum", np.zeros((0,), bool)).item() is False
    for op in ARG_OPS:
        out = run(op, np.zeros((3, 0), np.float32), axis=[1], select_last_index=True)
        assert out.dtype == np.int32 and out.tolist() == [-1, -1, -1]
    with pytest.raises(UndefinedBehavior, match="mean over zero elements"):
        run("mean", f32, axis=[1])
    # Reducing the other axis of the empty tensor is fine: an empty result.
    assert run("mean", f32, axis=[0]).shape == (0,)


def test_max_and_min_start_from_finite_extremes() -> None:
    # max(-FLT_MAX, -inf) is -FLT_MAX: an all--inf slice does not give -inf.
    assert run("max", np.array([-np.inf, -np.inf], np.float32)).item() == -F32_MAX
    assert run("min", np.array([np.inf], np.float16)).item() == 65504.0
    assert run("max", np.array([-np.inf, 1.5], np.float32)).item() == 1.5
    # With no axis reduced no combiner runs: the input comes back.
    assert run("max", np.array(-np.inf, np.float32)).item() == -np.inf
    assert np.isnan(run("min", np.array(np.nan), axis=[])).item()


def test_bool_reductions() -> None:
    x = np.array([[True, False], [False, False], [True, True]])
    assert run("sum", x, axis=[1]).tolist() == [True, False, True]  # any
    assert run("prod", x, axis=[1]).tolist() == [False, False, True]  # all
    assert run("max", x, axis=[1]).tolist() == [True, False, True]
    assert run("min", x, axis=[1]).tolist() == [False, False, True]
    assert run("sum", x).dtype == np.bool_
    # mean of bool: the count must fit bool, so only single elements are defined.
    assert run("mean", x[:, :1], axis=[1]).tolist() == [True, False, True]
    with pytest.raises(UndefinedBehavior, match="the count does not fit the dtype"):
        run("mean", x, axis=[1])


def test_narrow_integers_wrap() -> None:
    assert run("sum", np.array([100, 100], np.int8)).item() == -56
    assert run("sum", np.array([65535, 2], np.uint16)).item() == 1
    assert run("prod", np.array([16, 16], np.int8)).item() == 0
    assert run("prod", np.array([-128, -1], np.int8)).item() == -128


def test_wide_integer_overflow_is_undefined() -> None:
    big = 2**31 - 1
    assert run("sum", np.array([big, -1, -big], np.int32)).item() == -1
    assert run("sum", np.array([-(2**31), 0], np.int32)).item() == -(2**31)
    with pytest.raises(UndefinedBehavior, match="sum of int32 overflows"):
        run("sum", np.array([big, 1], np.int32))
    # Some evaluation order adds the two positives first, even though the total fits.
    with pytest.raises(UndefinedBehavior, match="overflows in some evaluation order"):
        run("sum", np.array([big, -1, 1], np.int32))
    with pytest.raises(UndefinedBehavior, match="sum of uint32"):
        run("sum", np.array([2**32 - 1, 1], np.uint32))
    with pytest.raises(UndefinedBehavior, match="sum of int64"):
        run("sum", np.array([2**62, 2**62], np.int64))
    with pytest.raises(UndefinedBehavior, match="mean of int32"):
        run("mean", np.array([big, big], np.int32))


def test_wide_integer_product_overflow_is_undefined() -> None:
    assert run("prod", np.array([-(2**31), 1], np.int32)).item() == -(2**31)
    assert run("prod", np.array([2**30, -2], np.int32)).item() == -(2**31)
    assert run("prod", np.array([2**16, 2**15, -1, -1, 0], np.int64)).item() == 0
    for bad in ([2**30, 2], [2**30, -2, -1], [-(2**30), -2], [2**16, 2**16, 0]):
        with pytest.raises(UndefinedBehavior, match="prod of int32 overflows"):
            run("prod", np.array(bad, np.int32))
    with pytest.raises(UndefinedBehavior, match="prod of uint64"):
        run("prod", np.array([2**32, 2**32], np.uint64))
    assert run("prod", np.array([2**32, 2**31 - 1], np.uint64)).item() == 2**32 * (2**31 - 1)


def test_integer_mean_truncates_toward_zero() -> None:
    assert run("mean", np.array([-7, 0], np.int32)).item() == -3
    assert run("mean", np.array([7, 0], np.int32)).item() == 3
    assert run("mean", np.array([[-9, 0, 0], [9, 1, 1]], np.int64), axis=[1]).tolist() == [-3, 3]
    assert run("mean", np.array([5, 6], np.uint32)).item() == 5
    # The int8 sum wraps (200 -> -56) before the division.
    assert run("mean", np.array([100, 100], np.int8)).item() == -28
    assert run("mean", np.array([255, 1], np.uint8)).item() == 0
    assert run("mean", np.zeros(127, np.int8)).item() == 0
    with pytest.raises(UndefinedBehavior, match="mean over 128 elements of int8"):
        run("mean", np.zeros(128, np.int8))
    assert run("mean", np.zeros(255, np.uint8)).item() == 0
    with pytest.raises(UndefinedBehavior, match="mean over 256 elements of uint8"):
        run("mean", np.zeros(256, np.uint8))


def test_float16_mean_is_computed_in_float32() -> None:
    # The float16 sum 131008 would overflow; MeanCompute casts to float32 first.
    out = run("mean", np.array([65504, 65504], np.float16))
    assert out.dtype == np.float16 and out.item() == 65504.0
    out = run("mean", np.array([1, 2, 2], np.float16))
    assert out.item() == np.float16(np.float32(5) / np.float32(3))


def test_argmax_ties_and_select_last_index() -> None:
    x = np.array([[3, 1, 3], [0, 5, 5]], np.int32)
    assert run("argmax", x, axis=[1]).tolist() == [0, 1]
    assert run("argmax", x, axis=[1], select_last_index=True).tolist() == [2, 2]
    assert run("argmin", x, axis=[1]).tolist() == [1, 0]
    assert run("argmin", x, axis=[0], select_last_index=True).tolist() == [1, 0, 0]
    assert run("argmax", x).item() == 4  # row-major over every axis
    assert run("argmax", x, select_last_index=True).item() == 5
    assert run("argmax", x, axis=[1], keepdims=True).tolist() == [[0], [1]]


def test_arg_index_is_row_major_within_the_reduced_axes() -> None:
    rng = np.random.default_rng(0)
    x = rng.permutation(60).reshape(3, 4, 5).astype(np.float32)
    out = run("argmax", x, axis=[2, 0])
    assert out.shape == (4,) and out.dtype == np.int32
    for j in range(4):
        block = x[:, j, :]  # axes (0, 2) in increasing order
        assert out[j] == int(np.argmax(block.reshape(-1)))
    out = run("argmin", x, axis=[1], exclude=True, keepdims=True)
    assert out.shape == (1, 4, 1)
    for j in range(4):
        assert out[0, j, 0] == int(np.argmin(x[:, j, :].reshape(-1)))


def test_arg_identity_takes_part_in_ties() -> None:
    # The reducer starts from (-1, min_value): a slice whose best equals min_value keeps -1
    # when ties go to the lower index.
    zeros = np.array([[0, 0], [0, 1]], np.uint8)
    assert run("argmax", zeros, axis=[1]).tolist() == [-1, 1]
    assert run("argmax", zeros, axis=[1], select_last_index=True).tolist() == [1, 1]
    assert run("argmax", np.array([False, False])).item() == -1
    assert run("argmin", np.array([True, True]), select_last_index=True).item() == 1
    assert run("argmin", np.array([127, 127], np.int8)).item() == -1
    lowest = np.array([-F32_MAX, -F32_MAX], np.float32)
    assert run("argmax", lowest).item() == -1
    assert run("argmax", lowest, select_last_index=True).item() == 1
    # A slice of only -inf never beats the identity's -FLT_MAX.
    for last in (False, True):
        assert run("argmax", np.array([-np.inf, -np.inf]), select_last_index=last).item() == -1
        assert run("argmin", np.array([np.inf]), select_last_index=last).item() == -1


@pytest.mark.parametrize("op", ["max", "min", "argmax", "argmin"])
def test_nan_in_comparison_reductions_is_undefined(op: str) -> None:
    x = np.array([[1.0, np.nan, 2.0], [1.0, 2.0, 3.0]], np.float32)
    with pytest.raises(UndefinedBehavior, match=f"{op} over a NaN"):
        run(op, x, axis=[1])


def test_nan_propagates_through_sums() -> None:
    x = np.array([[1.0, np.nan], [1.0, 2.0]], np.float32)
    out = run("sum", x, axis=[1])
    assert np.isnan(out[0]) and out[1] == 3.0
    assert np.isnan(run("mean", x, axis=[1])[0])
    assert np.isnan(run("sum", np.array([np.inf, -np.inf]))).item()


def test_undefined_attribute_combinations() -> None:
    x = np.ones((2, 3), np.float32)
    with pytest.raises(UndefinedBehavior, match="exclude=True and axis=None"):
        run("sum", x, exclude=True)
    with pytest.raises(UndefinedBehavior, match=r"axis=\[\]"):
        run("max", x, axis=[])
    assert run("sum", x, axis=[], exclude=True).item() == 6.0
    # Rank 0 returns the input before looking at the axes.
    assert run("sum", np.array(2, np.float32), exclude=True).item() == 2.0
    with pytest.raises(UndefinedBehavior, match="not int32 indices"):
        run("argmax", x, axis=[0, 1], exclude=True)
    ints = np.array([[4, 5, 6]], np.int32)
    np.testing.assert_array_equal(run("argmin", ints, axis=[0, 1], exclude=True), ints)


# ---------------------------------------------------------------------------------------------
# References against onnxruntime


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
        actual = run(op, x, axis=axes, keepdims=keepdims)
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
            actual = run(op, x, axis=[axis], keepdims=keepdims, select_last_index=select_last_index)
            assert actual.dtype == np.int32
            np.testing.assert_array_equal(actual, expected.astype(np.int32))


# ---------------------------------------------------------------------------------------------
# Reference types agree with relation types


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
    out = run(op, x, axis=[1])
    expected = relate(op, t(2, width, dtype=dtype), axis=[1])
    assert isinstance(expected, TensorType)
    assert (out.shape, str(out.dtype)) == (expected.shape, expected.dtype)
