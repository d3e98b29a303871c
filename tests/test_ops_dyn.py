"""The ``dyn`` operators (``semantics/ops/dyn.py``): relations, references, checks."""

from __future__ import annotations

import dataclasses
import math
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
from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.index import OneHotAttrs, StridedSliceAttrs
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.ops.shape import ReshapeAttrs, TileAttrs
from relay.semantics.ops.sort import TopKAttrs
from relay.semantics.syntax import ANY, TensorType, TupleType, Type

DYN = ("dyn.reshape", "dyn.broadcast_to", "dyn.zeros", "dyn.ones", "dyn.full")


DYN_ALL = (*DYN, "dyn.strided_slice", "dyn.tile", "dyn.topk", "dyn.one_hot")


def T(shape: tuple[Any, ...], dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


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


def _python_slice(nested: Any, slices: list[slice]) -> Any:
    if not slices:
        return nested
    return [_python_slice(row, slices[1:]) for row in nested[slices[0]]]


TILE = TileAttrs.from_kwargs({"reps": ()})


def topk_attrs(ret_type: str = "both", axis: int = -1, **kwargs: Any) -> TopKAttrs:
    return TopKAttrs.from_kwargs({"ret_type": ret_type, "axis": axis, "dtype": "int32", **kwargs})


def one_hot_attrs(axis: int = -1, dtype: str = "float32") -> OneHotAttrs:
    return OneHotAttrs.from_kwargs({"axis": axis, "dtype": dtype})


def shape_func_pair(attrs: Attrs, *args: Array) -> tuple[tuple[int, ...], ...]:
    func = OPS["dyn.topk"].shape_func
    assert func is not None
    out = func(tuple(args), attrs)
    return tuple(tuple(int(d) for d in s) for s in out)  # type: ignore[union-attr]


@pytest.mark.parametrize("name", of_family(DYN_ALL, "dyn"))
def test_records(name: str) -> None:
    op = OPS[name]
    assert op.relation is not None and op.reference is not None
    assert op.family == ("dyn" if name.startswith("dyn.") else "qnn")
    assert op.check.startswith(("onnxruntime:", "independent:"))
    assert (op.shape_func is not None) == name.startswith("dyn.")


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


def test_new_dynamic_relations() -> None:
    assert rel("dyn.tile", TILE, T((2, n), "int8"), T((3,), "int64")) == T((ANY,) * 3, "int8")
    assert rel("dyn.tile", TILE, T((2, 3, 4)), T((1,), "int32")) == T((ANY,) * 3)
    both = rel("dyn.topk", topk_attrs(axis=0), T((5, n)), T((), "int64"))
    assert both == TupleType((T((ANY, n)), T((ANY, n), "int32")))
    assert rel("dyn.topk", topk_attrs("indices"), T((5, 2)), T((1,), "int32")) == T(
        (5, ANY), "int32"
    )
    got = rel("dyn.one_hot", one_hot_attrs(1), T((2, 3), "int32"), T(()), T(()), T((), "int64"))
    assert got == T((2, ANY, 3))


@pytest.mark.parametrize(
    ("op", "attrs", "args", "message"),
    [
        ("dyn.tile", TILE, (T((2,)), T((2, 1), "int64")), "expected a rank-1 tensor for reps"),
        ("dyn.tile", TILE, (T((2,)), T((ANY,), "int64")), "expected a static length for reps"),
        ("dyn.topk", topk_attrs(), (T((5,)), T((2,), "int64")), "shape .1,."),
        ("dyn.topk", topk_attrs(), (T((5,)), T((), "float32")), "integer dtype for k"),
        ("dyn.topk", topk_attrs(axis=1), (T((5,)), T((), "int64")), "axis=1 is out of range"),
        ("dyn.topk", topk_attrs("all"), (T((5,)), T((), "int64")), 'found "all"'),
        (
            "dyn.one_hot",
            one_hot_attrs(),
            (T((2,), "int32"), T(()), T(()), T((1,), "int64")),
            "scalar integer depth",
        ),
        (
            "dyn.one_hot",
            one_hot_attrs(3),
            (T((2,), "int32"), T(()), T(()), T((), "int64")),
            "axis=3 is out of range",
        ),
        (
            "dyn.one_hot",
            one_hot_attrs(),
            (T((2,), "float32"), T(()), T(()), T((), "int64")),
            "integer dtype for indices",
        ),
    ],
)
def test_new_dynamic_relation_errors(
    op: str, attrs: Attrs, args: tuple[Type, ...], message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(op, attrs, *args)


@settings(max_examples=40)
@given(
    shape=st.lists(st.integers(1, 3), max_size=3),
    reps=st.lists(st.integers(1, 3), max_size=4),
)
def test_dyn_tile_agrees_with_onnx_and_static(shape: list[int], reps: list[int]) -> None:
    x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    out = ref("dyn.tile", TILE, x, vec(*reps))
    assert out.shape == shape_func("dyn.tile", TILE, x, vec(*reps))
    static = rel("tile", TileAttrs.from_kwargs({"reps": tuple(reps)}), T(tuple(shape)))
    assert isinstance(static, TensorType) and out.shape == static.shape
    rank = max(len(shape), len(reps))
    if rank:  # ONNX Tile needs reps of data's rank: align both on the right with 1s.
        padded = x.reshape([1] * (rank - len(shape)) + shape)
        peer = onnx_run("Tile", [padded, vec(*([1] * (rank - len(reps)) + reps))])
        assert isinstance(peer, np.ndarray)
        np.testing.assert_array_equal(out, peer)
    with pytest.raises(UndefinedBehavior, match="negative size"):
        ref("dyn.tile", TILE, x, vec(*reps, -1))


@settings(max_examples=40)
@given(
    seed=st.integers(0, 2**16),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    data=st.data(),
)
def test_dyn_topk_agrees_with_onnx_and_static(seed: int, shape: list[int], data: Any) -> None:
    axis = data.draw(st.integers(0, len(shape) - 1))
    k = data.draw(st.integers(0, shape[axis]))
    ascend = data.draw(st.booleans())
    x = np.random.default_rng(seed).permutation(math.prod(shape)).astype(np.float32).reshape(shape)
    attrs = topk_attrs("both", axis, is_ascend=ascend)
    k_t = vec(k, dtype="int64") if data.draw(st.booleans()) else np.asarray(k, np.int64)
    values, indices = OPS["dyn.topk"].reference((x, k_t), attrs)  # type: ignore[misc]
    assert (values.shape, indices.shape) == shape_func_pair(attrs, x, k_t)
    static = rel("topk", dataclasses.replace(attrs, k=k), T(tuple(shape)))
    assert isinstance(static, TupleType)
    assert values.shape == static.fields[0].shape  # type: ignore[union-attr]
    count = k if k >= 1 else shape[axis]
    peer_v, peer_i = onnx_run(
        "TopK",
        [x, vec(count)],
        outputs=2,
        out_dtype=["float32", "int64"],
        axis=axis,
        largest=0 if ascend else 1,
        sorted=1,
    )
    np.testing.assert_array_equal(values, peer_v)
    np.testing.assert_array_equal(indices, peer_i.astype(np.int32))


@settings(max_examples=30)
@given(
    shape=st.lists(st.integers(1, 3), max_size=2),
    depth=st.integers(0, 4),
    data=st.data(),
)
def test_dyn_one_hot_agrees_with_onnx_and_static(shape: list[int], depth: int, data: Any) -> None:
    axis = data.draw(st.integers(-1, len(shape)))
    indices = np.asarray(
        data.draw(
            st.lists(st.integers(-1, 4), min_size=math.prod(shape), max_size=math.prod(shape))
        ),
        np.int64,
    ).reshape(shape)
    attrs = one_hot_attrs(axis)
    on, off = np.asarray(5.0, np.float32), np.asarray(-1.0, np.float32)
    depth_t = np.asarray(depth, np.int32)
    out = ref("dyn.one_hot", attrs, indices, on, off, depth_t)
    assert out.shape == shape_func("dyn.one_hot", attrs, indices, on, off, depth_t)
    if depth == 0:
        assert out.size == 0 and out.dtype == np.float32
        return
    static = rel(
        "one_hot", dataclasses.replace(attrs, depth=depth), T(tuple(shape), "int64"), T(()), T(())
    )
    assert isinstance(static, TensorType) and out.shape == static.shape
    if not shape:
        return  # ONNX's OneHot needs indices of rank >= 1
    # ONNX reads a negative index as counting from the end; TVM's one_hot matches none, as
    # for an index past the depth, which ONNX also gives all off values.
    beyond = np.where(indices < 0, 99, indices)
    peer = onnx_run(
        "OneHot",
        [beyond, vec(depth), np.asarray([-1.0, 5.0], np.float32)],
        opset=11,
        out_dtype="float32",
        axis=axis,
    )
    assert isinstance(peer, np.ndarray)
    np.testing.assert_array_equal(out, peer)
