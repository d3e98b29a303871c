"""The shaping operators: relations, references, and their independent checks.

Relations are checked on TVM's documented examples and on bad input (the message checked);
references on small inputs whose values are written out by hand; and, on Hypothesis-drawn
inputs, every reference is compared with onnxruntime or with the differently written
formulation its record's ``check`` names (explicit index loops).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.index import SliceLikeAttrs
from relay.semantics.ops.linalg import EinsumAttrs, MatrixSetDiagAttrs, TriluAttrs
from relay.semantics.ops.registry import Attrs, OpPattern, RelationError, Tensor
from relay.semantics.ops.shape import (
    LayoutTransformAttrs,
    NdarraySizeAttrs,
    RepeatAttrs,
    ReshapeLikeAttrs,
    ReverseAttrs,
    ReverseSequenceAttrs,
    ShapeOfAttrs,
    SlidingWindowAttrs,
    TileAttrs,
)
from relay.semantics.syntax import ANY, Dim, TensorType, TupleType, Type, dim_symbol

OPS_HERE = {
    "reverse": ("Reverse", OpPattern.INJECTIVE),
    "tile": ("Tile", OpPattern.BROADCAST),
    "repeat": ("Repeat", OpPattern.BROADCAST),
    "layout_transform": ("layout_transform", OpPattern.INJECTIVE),
    "reshape_like": ("ReshapeLike", OpPattern.INJECTIVE),
    "broadcast_to_like": ("BroadCastToLike", OpPattern.BROADCAST),
    "collapse_sum_like": ("CollapseSumLike", OpPattern.COMM_REDUCE),
    "slice_like": ("SliceLike", OpPattern.INJECTIVE),
    "shape_of": ("ShapeOf", OpPattern.OPAQUE),
    "ndarray_size": ("NdarraySize", OpPattern.INJECTIVE),
    "einsum": ("Einsum", OpPattern.INJECTIVE),
    "matrix_set_diag": ("MatrixSetDiag", OpPattern.INJECTIVE),
    "trilu": ("trilu", OpPattern.ELEMWISE),
    "sliding_window": ("SlidingWindow", OpPattern.OPAQUE),
    "reverse_sequence": ("ReverseSequence", OpPattern.INJECTIVE),
}

n = dim_symbol("n")
FAST = settings(max_examples=15, deadline=None)


def T(shape: Sequence[Dim], dtype: str = "float32") -> TensorType:
    return TensorType(tuple(shape), dtype)


def rel(op: str, attrs: Attrs | None, *args: Type) -> Type:
    relation = OPS[op].relation
    assert relation is not None
    return relation(tuple(args), attrs)


def ref(op: str, attrs: Attrs | None, *args: object) -> Tensor:
    reference = OPS[op].reference
    assert reference is not None
    out = reference(tuple(args), attrs)  # type: ignore[arg-type]
    assert isinstance(out, np.ndarray)
    t = rel(op, attrs, *(typ(a) for a in args))
    assert isinstance(t, TensorType)
    assert out.shape == t.shape and out.dtype == np.dtype(t.dtype)
    return out


def typ(a: object) -> Type:
    if isinstance(a, tuple):
        return TupleType(tuple(typ(f) for f in a))
    assert isinstance(a, np.ndarray)
    return T(a.shape, a.dtype.name)


def same(actual: Tensor, expected: object) -> None:
    e = np.asarray(expected, dtype=actual.dtype)
    assert actual.shape == e.shape
    np.testing.assert_array_equal(actual, e)


def arange(*shape: int, dtype: str = "float32") -> Tensor:
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


small_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)
seeds = st.integers(0, 2**16)


def rand(shape: Sequence[int], seed: int, dtype: str = "float32") -> Tensor:
    return np.random.default_rng(seed).integers(-5, 6, size=tuple(shape)).astype(dtype)


# ---------------------------------------------------------------------------------------------
# Every record is complete


@pytest.mark.parametrize("name", sorted(OPS_HERE))
def test_record(name: str) -> None:
    op = OPS[name]
    assert op.relation is not None and op.reference is not None
    assert (op.relation_name, op.pattern) == OPS_HERE[name]
    assert op.family in ("shape", "index", "linalg")
    assert op.check.startswith(("onnxruntime:", "independent:"))
    if op.attrs_type is not None:
        assert op.attrs_type.type_key == f"relay.attrs.{op.attrs_type.__name__}"


def test_attribute_fields_and_defaults_follow_tvm() -> None:
    assert MatrixSetDiagAttrs() == MatrixSetDiagAttrs(0, 0, True, False)
    assert ReverseSequenceAttrs() == ReverseSequenceAttrs(seq_axis=1, batch_axis=0)
    assert ReshapeLikeAttrs() == ReshapeLikeAttrs(0, None, 0, None)
    assert TriluAttrs().upper is True
    assert [s.name for s in SlidingWindowAttrs.field_specs()] == [
        "axis",
        "window_shape",
        "strides",
    ]


# ---------------------------------------------------------------------------------------------
# reverse


def test_reverse() -> None:
    assert rel("reverse", ReverseAttrs(axis=-1), T((n, 3))) == T((n, 3))
    same(ref("reverse", ReverseAttrs(axis=1), arange(2, 3)), [[2, 1, 0], [5, 4, 3]])
    same(ref("reverse", ReverseAttrs(axis=0), arange(2, 3)), [[3, 4, 5], [0, 1, 2]])
    with pytest.raises(RelationError, match="axis=2 is out of range for a tensor of rank 2"):
        rel("reverse", ReverseAttrs(axis=2), T((2, 3)))
    with pytest.raises(RelationError, match="found axis=None"):
        rel("reverse", ReverseAttrs(), T((2, 3)))


@FAST
@given(small_shapes, seeds, st.data())
def test_reverse_matches_a_loop(shape: tuple[int, ...], seed: int, data: st.DataObject) -> None:
    axis = data.draw(st.integers(0, len(shape) - 1))
    x = rand(shape, seed)
    out = ref("reverse", ReverseAttrs(axis=axis), x)
    for idx in itertools.product(*map(range, shape)):
        src = list(idx)
        src[axis] = shape[axis] - 1 - idx[axis]
        assert out[idx] == x[tuple(src)]


# ---------------------------------------------------------------------------------------------
# tile and repeat


def test_tile_relation() -> None:
    assert rel("tile", TileAttrs(reps=(2, 3)), T((4,))) == T((2, 12))
    assert rel("tile", TileAttrs(reps=(2,)), T((4, 5))) == T((4, 10))
    assert rel("tile", TileAttrs(reps=()), T((4, 5))) == T((4, 5))
    # As TVM: a symbolic or unknown extent becomes ?, whatever the rep.
    assert rel("tile", TileAttrs(reps=(1, 2)), T((n, 3))) == T((ANY, 6))
    with pytest.raises(RelationError, match=r"positive, found reps=\(2, 0\)"):
        rel("tile", TileAttrs(reps=(2, 0)), T((4,)))


def test_tile_reference() -> None:
    same(ref("tile", TileAttrs(reps=(2,)), arange(2, dtype="int8")), [0, 1, 0, 1])
    same(ref("tile", TileAttrs(reps=(2, 1)), arange(2)), [[0, 1], [0, 1]])


@FAST
@given(small_shapes, st.lists(st.integers(1, 3), max_size=4), seeds)
def test_tile_matches_onnxruntime(shape: tuple[int, ...], reps: list[int], seed: int) -> None:
    x = rand(shape, seed)
    rank = max(len(shape), len(reps))
    padded = x.reshape((1,) * (rank - len(shape)) + shape)
    full = [1] * (rank - len(reps)) + reps
    expected = onnx_run("Tile", [padded, np.array(full, dtype=np.int64)])
    np.testing.assert_array_equal(ref("tile", TileAttrs(reps=tuple(reps)), x), expected)


def test_repeat() -> None:
    assert rel("repeat", RepeatAttrs(repeats=3, axis=0), T((n, 2))) == T((3 * n, 2))
    assert rel("repeat", RepeatAttrs(repeats=2, axis=-1), T((ANY, 2))) == T((ANY, 4))
    same(ref("repeat", RepeatAttrs(repeats=2, axis=1), arange(2, 2)), [[0, 0, 1, 1], [2, 2, 3, 3]])
    with pytest.raises(RelationError, match="repeats >= 1, found repeats=0"):
        rel("repeat", RepeatAttrs(repeats=0, axis=0), T((2,)))
    with pytest.raises(RelationError, match="axis=-2 is out of range for a tensor of rank 1"):
        rel("repeat", RepeatAttrs(repeats=1, axis=-2), T((2,)))
    with pytest.raises(RelationError, match="axis=None"):
        rel("repeat", RepeatAttrs(repeats=1), T((2,)))


@FAST
@given(small_shapes, st.integers(1, 3), seeds, st.data())
def test_repeat_matches_a_loop(
    shape: tuple[int, ...], repeats: int, seed: int, data: st.DataObject
) -> None:
    axis = data.draw(st.integers(0, len(shape) - 1))
    x = rand(shape, seed, "int32")
    out = ref("repeat", RepeatAttrs(repeats=repeats, axis=axis), x)
    for idx in itertools.product(*map(range, out.shape)):
        src = list(idx)
        src[axis] = idx[axis] // repeats
        assert out[idx] == x[tuple(src)]


# ---------------------------------------------------------------------------------------------
# layout_transform


def lt(src: str, dst: str) -> LayoutTransformAttrs:
    return LayoutTransformAttrs(src_layout=src, dst_layout=dst)


def test_layout_transform_relation() -> None:
    assert rel("layout_transform", lt("NCHW", "NHWC"), T((1, 8, 5, 6))) == T((1, 5, 6, 8))
    assert rel("layout_transform", lt("NCHW", "NCHW4c"), T((1, 8, 5, 6))) == T((1, 2, 5, 6, 4))
    assert rel("layout_transform", lt("NCHW4c", "NCHW"), T((1, 2, 5, 6, 4))) == T((1, 8, 5, 6))
    assert rel("layout_transform", lt("NCHW2c", "NHWC4c"), T((1, 4, 5, 6, 2))) == T((1, 5, 6, 2, 4))
    assert rel("layout_transform", lt("NC", "NC4c"), T((n, 4 * n))) == T((n, n, 4))


@pytest.mark.parametrize(
    ("attrs", "shape", "message"),
    [
        (lt("NCHW", "NHWD"), (1, 2, 3, 4), "they name different primal axes"),
        (lt("NCHW", "NHWC"), (1, 2, 3), "has 4 axes but data has rank 3"),
        (lt("NCHW", "NCHW3c"), (1, 8, 5, 6), "factor 3 does not divide the extent 8 of axis C"),
        (lt("NCHW4c", "NCHW"), (1, 2, 5, 6, 3), "the sub-axis 4c has extent 3, expected 4"),
        (lt("NCHW", "NCHWc"), (1, 2, 5, 6), "needs a positive factor before the sub-axis c"),
        (lt("NCHW", "NHW4C"), (1, 2, 5, 6), "factor 4 before the primal axis C"),
        (lt("NCHWN", "NCHW"), (1, 2, 5, 6, 1), "repeats the axis N"),
        (lt("NHW4c", "NHW"), (1, 5, 6, 4), "sub-axis c without its primal axis C"),
        (lt("", "NHW"), (1, 5, 6), 'expected a layout for src_layout, found ""'),
    ],
)
def test_layout_transform_relation_errors(
    attrs: LayoutTransformAttrs, shape: tuple[int, ...], message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel("layout_transform", attrs, T(shape))


def test_layout_transform_reference() -> None:
    x = arange(1, 4, 1, 1)
    # NCHW -> NCHW2c: out[n, C, h, w, c] = x[n, 2C + c, h, w].
    same(ref("layout_transform", lt("NCHW", "NCHW2c"), x), [[[[[0, 1]]], [[[2, 3]]]]])
    back = ref(
        "layout_transform", lt("NCHW2c", "NCHW"), ref("layout_transform", lt("NCHW", "NCHW2c"), x)
    )
    same(back, x)


def layout_loop(x: Tensor, src: str, dst: str, out_shape: tuple[int, ...]) -> Tensor:
    """Each output element read from its source index, the index maps written out."""

    def axes(layout: str) -> list[tuple[str, int]]:
        out, digits = [], ""
        for c in layout:
            if c.isdigit():
                digits += c
            else:
                out.append((c, int(digits or 0)))
                digits = ""
        return out

    s, d = axes(src), axes(dst)
    sub_src = {c.upper(): f for c, f in s if f}
    sub_dst = {c.upper(): f for c, f in d if f}
    out = np.zeros(out_shape, dtype=x.dtype)
    for idx in itertools.product(*map(range, out_shape)):
        # The logical coordinate of each primal axis.
        logical = {}
        for (c, f), i in zip(d, idx, strict=True):
            if not f:
                logical[c] = logical.get(c, 0) + i * sub_dst.get(c, 1)
            else:
                logical[c.upper()] = logical.get(c.upper(), 0) + i
        src_idx = []
        for c, f in s:
            if f:
                src_idx.append(logical[c.upper()] % f)
            else:
                src_idx.append(logical[c] // sub_src.get(c, 1))
        out[idx] = x[tuple(src_idx)]
    return out


@FAST
@given(
    st.sampled_from(
        [
            ("NCHW", "NHWC", (2, 4, 3, 2)),
            ("NCHW", "NCHW2c", (1, 4, 2, 3)),
            ("NCHW", "NHWC4c", (1, 8, 2, 2)),
            ("NCHW4c", "NCHW", (1, 2, 2, 3, 4)),
            ("NCHW4c", "NCHW2c", (2, 1, 2, 1, 4)),
            ("NHWC2c", "NCHW", (1, 2, 3, 2, 2)),
            ("CN", "NC3c", (6, 2)),
            ("HW2h", "WH", (3, 2, 2)),
        ]
    ),
    seeds,
)
def test_layout_transform_matches_a_loop(case: tuple[str, str, tuple[int, ...]], seed: int) -> None:
    src, dst, shape = case
    x = rand(shape, seed)
    out = ref("layout_transform", lt(src, dst), x)
    np.testing.assert_array_equal(out, layout_loop(x, src, dst, out.shape))


# ---------------------------------------------------------------------------------------------
# reshape_like


def test_reshape_like() -> None:
    # TVM's documented example.
    attrs = ReshapeLikeAttrs(lhs_begin=1, rhs_end=3)
    assert rel("reshape_like", attrs, T((1, 2, 3, 4)), T((6, 2, 2, 3), "int8")) == T((1, 6, 2, 2))
    assert rel("reshape_like", ReshapeLikeAttrs(), T((2, 3)), T((3, 2))) == T((3, 2))
    negative = ReshapeLikeAttrs(lhs_begin=-2, lhs_end=-1, rhs_begin=0, rhs_end=-1)
    assert rel("reshape_like", negative, T((5, 6, 7)), T((3, 2, 9))) == T((5, 3, 2, 7))
    assert rel("reshape_like", ReshapeLikeAttrs(), T((n, 2)), T((4,))) == T((4,))
    same(ref("reshape_like", ReshapeLikeAttrs(), arange(2, 2), arange(4)), [0, 1, 2, 3])
    with pytest.raises(RelationError, match=r"cannot reshape \(2, 3\) \(6 elements\) to \(4\)"):
        rel("reshape_like", ReshapeLikeAttrs(), T((2, 3)), T((4,)))
    with pytest.raises(RelationError, match="lhs_begin=3, lhs_end=None"):
        rel("reshape_like", ReshapeLikeAttrs(lhs_begin=3), T((2, 3)), T((4,)))


@FAST
@given(
    st.sampled_from(
        [
            ((2, 3, 4), (6, 4), ReshapeLikeAttrs()),
            ((1, 2, 3, 4), (6, 2, 2, 3), ReshapeLikeAttrs(lhs_begin=1, rhs_end=3)),
            ((2, 6), (5, 3, 2), ReshapeLikeAttrs(lhs_begin=-1, rhs_begin=1)),
            ((4, 1, 3), (2, 2), ReshapeLikeAttrs(lhs_end=2)),
        ]
    ),
    seeds,
)
def test_reshape_like_matches_onnxruntime(
    case: tuple[tuple[int, ...], tuple[int, ...], ReshapeLikeAttrs], seed: int
) -> None:
    shape, like_shape, attrs = case
    x, like = rand(shape, seed), np.zeros(like_shape, dtype="int8")
    out = ref("reshape_like", attrs, x, like)
    # The target shape, worked out from the attributes without the relation.
    lb = attrs.lhs_begin % len(shape)
    le = len(shape) if attrs.lhs_end is None else attrs.lhs_end % len(shape)
    rb = attrs.rhs_begin % len(like_shape)
    re = len(like_shape) if attrs.rhs_end is None else attrs.rhs_end % len(like_shape)
    target = shape[:lb] + like_shape[rb:re] + shape[le:]
    expected = onnx_run("Reshape", [x, np.array(target, dtype=np.int64)])
    np.testing.assert_array_equal(out, expected)


# ---------------------------------------------------------------------------------------------
# broadcast_to_like and collapse_sum_like


def test_broadcast_to_like() -> None:
    assert rel("broadcast_to_like", None, T((3, 1)), T((2, 3, 4))) == T((2, 3, 4))
    same(
        ref("broadcast_to_like", None, arange(2, 1), np.zeros((2, 2), "float32")), [[0, 0], [1, 1]]
    )
    with pytest.raises(RelationError, match=r"cannot broadcast \(3\) to \(2, 4\)"):
        rel("broadcast_to_like", None, T((3,)), T((2, 4)))
    with pytest.raises(RelationError, match="same dtype, found float32 and int8"):
        rel("broadcast_to_like", None, T((3,)), T((3,), "int8"))


@FAST
@given(small_shapes, seeds, st.data())
def test_broadcast_to_like_matches_onnxruntime(
    shape: tuple[int, ...], seed: int, data: st.DataObject
) -> None:
    source = tuple(
        1 if data.draw(st.booleans()) else d for d in shape[data.draw(st.integers(0, len(shape))) :]
    )
    x = rand(source, seed)
    like = np.zeros(shape, dtype="float32")
    expected = onnx_run("Expand", [x, np.array(shape, dtype=np.int64)])
    np.testing.assert_array_equal(ref("broadcast_to_like", None, x, like), expected)


def test_collapse_sum_like() -> None:
    assert rel("collapse_sum_like", None, T((2, 3, 4)), T((3, 1))) == T((3, 1))
    same(ref("collapse_sum_like", None, arange(2, 3, dtype="int32"), np.zeros((1,), "int32")), [15])
    same(
        ref("collapse_sum_like", None, arange(2, 3, dtype="int32"), np.zeros((2, 1), "int32")),
        [[3], [12]],
    )
    same(ref("collapse_sum_like", None, np.array([True, False]), np.zeros((), bool)), True)
    with pytest.raises(RelationError, match=r"cannot collapse \(2, 3\) to \(2\)"):
        rel("collapse_sum_like", None, T((2, 3)), T((2,)))
    big = np.array([2**31 - 1, 1], dtype="int32")
    with pytest.raises(UndefinedBehavior, match="overflows"):
        ref("collapse_sum_like", None, big, np.zeros((), "int32"))


@FAST
@given(small_shapes, seeds, st.data())
def test_collapse_sum_like_matches_onnxruntime(
    shape: tuple[int, ...], seed: int, data: st.DataObject
) -> None:
    lead = data.draw(st.integers(0, len(shape)))
    target = tuple(1 if data.draw(st.booleans()) else d for d in shape[lead:])
    x = rand(shape, seed)
    axes = list(range(lead)) + [
        lead + i for i, d in enumerate(target) if d == 1 and shape[lead + i] != 1
    ]
    summed = onnx_run(
        "ReduceSum",
        [x, np.array(axes, dtype=np.int64)],
        keepdims=1,
        noop_with_empty_axes=1,
        opset=13,
    )
    expected = np.reshape(summed, target)
    np.testing.assert_allclose(
        ref("collapse_sum_like", None, x, np.zeros(target, "float32")), expected
    )


# ---------------------------------------------------------------------------------------------
# slice_like


def test_slice_like() -> None:
    assert rel("slice_like", SliceLikeAttrs(axes=None), T((4, 5, 6)), T((2, 3))) == T((2, 3, 6))
    assert rel("slice_like", SliceLikeAttrs(axes=(-1,)), T((4, 5, 6)), T((1, 1, 2))) == T((4, 5, 2))
    assert rel("slice_like", SliceLikeAttrs(axes=None), T((n, 5)), T((3, 2))) == T((3, 2))
    same(
        ref("slice_like", SliceLikeAttrs(axes=(1,)), arange(2, 3), np.zeros((1, 2))),
        [[0, 1], [3, 4]],
    )
    with pytest.raises(RelationError, match="the extent 5 of shape_like exceeds data's extent 4"):
        rel("slice_like", SliceLikeAttrs(axes=None), T((4,)), T((5,)))
    with pytest.raises(RelationError, match="exceeds data's extent n"):
        rel("slice_like", SliceLikeAttrs(axes=None), T((n,)), T((n + 1,)))
    with pytest.raises(RelationError, match=r"expected at least one axis in axes, found \(\)"):
        rel("slice_like", SliceLikeAttrs(axes=()), T((4,)), T((2,)))
    with pytest.raises(RelationError, match=r"axes=\[.*\]: 1 is out of range for shape_like"):
        rel("slice_like", SliceLikeAttrs(axes=(1,)), T((4, 4)), T((2,)))


@FAST
@given(small_shapes, seeds, st.data())
def test_slice_like_matches_onnxruntime(
    shape: tuple[int, ...], seed: int, data: st.DataObject
) -> None:
    like = tuple(data.draw(st.integers(0, d)) for d in shape)
    x = rand(shape, seed)
    ends = np.array(like, dtype=np.int64)
    expected = onnx_run("Slice", [x, np.zeros_like(ends), ends])
    out = ref("slice_like", SliceLikeAttrs(axes=None), x, np.zeros(like, "float32"))
    np.testing.assert_array_equal(out, expected)


# ---------------------------------------------------------------------------------------------
# shape_of and ndarray_size


def test_shape_of_and_ndarray_size() -> None:
    assert rel("shape_of", ShapeOfAttrs(dtype="int64"), T((n, ANY, 3))) == T((3,), "int64")
    assert rel("ndarray_size", NdarraySizeAttrs(dtype="int32"), T((n, 3))) == T((), "int32")
    same(ref("shape_of", ShapeOfAttrs(dtype="int32"), np.zeros((2, 0, 5))), [2, 0, 5])
    same(ref("ndarray_size", NdarraySizeAttrs(dtype="float16"), np.zeros((2, 3))), 6)
    same(ref("shape_of", ShapeOfAttrs(dtype="int32"), np.zeros(())), np.zeros((0,)))
    with pytest.raises(RelationError, match='expected a dtype attribute, found ""'):
        rel("shape_of", ShapeOfAttrs(), T((2,)))
    with pytest.raises(RelationError, match='expected a dtype attribute, found ""'):
        rel("ndarray_size", NdarraySizeAttrs(), T((2,)))


@FAST
@given(st.lists(st.integers(0, 4), max_size=4).map(tuple))
def test_shape_of_and_ndarray_size_match_onnxruntime(shape: tuple[int, ...]) -> None:
    x = np.zeros(shape, dtype="float32")
    expected_shape = onnx_run("Shape", [x], out_dtype="int64")
    expected_size = onnx_run("Size", [x], out_dtype="int64")
    same(ref("shape_of", ShapeOfAttrs(dtype="int64"), x), expected_shape)
    same(ref("ndarray_size", NdarraySizeAttrs(dtype="int64"), x), expected_size)


# ---------------------------------------------------------------------------------------------
# einsum


def ein(eq: str) -> EinsumAttrs:
    return EinsumAttrs(equation=eq)


def Tup(*fields: Type) -> TupleType:
    return TupleType(tuple(fields))


def test_einsum_relation() -> None:
    assert rel("einsum", ein("ij,jk->ik"), Tup(T((2, 3)), T((3, 4)))) == T((2, 4))
    assert rel("einsum", ein("ij,jk"), Tup(T((2, 3)), T((3, 4)))) == T((2, 4))
    assert rel("einsum", ein("ii->i"), Tup(T((3, 3)))) == T((3,))
    assert rel("einsum", ein("ba"), Tup(T((2, 3)))) == T((3, 2))
    assert rel("einsum", ein("...ij->...ji"), Tup(T((5, 1, 2, 3)))) == T((5, 1, 3, 2))
    assert rel("einsum", ein("...i,...i"), Tup(T((4, 1, 2)), T((3, 2)))) == T((4, 3))
    assert rel("einsum", ein("i,i->"), Tup(T((n,)), T((n,)))) == T(())
    assert rel("einsum", ein("ij->j"), Tup(T((ANY, 3)))) == T((3,))


@pytest.mark.parametrize(
    ("eq", "fields", "message"),
    [
        ("ij,jk->ik", (T((2, 3)), T((4, 4))), "the label j has extents 3 and 4"),
        ("ij,jk", (T((2, 3)), T((3, 4), "int8")), "same dtype: field 0 is float32, field 1"),
        ("ij", (T((2, 3)), T((3,))), "1 input term"),
        ("ij->k", (T((2, 3)),), "the output label k is not an input"),
        ("ij->ii", (T((2, 3)),), "the output repeats the label i"),
        ("ijk", (T((2, 3)),), 'the term "ijk" does not fit operand 0 of rank 2'),
        ("i-j", (T((2, 3)),), "invalid character '-'"),
        ("...i->i", (T((2, 3)),), 'output must have "..." exactly when an input does'),
        ("...i,...i", (T((2, 2)), T((3, 2))), "dimensions 2 and 3 are incompatible"),
    ],
)
def test_einsum_relation_errors(eq: str, fields: tuple[Type, ...], message: str) -> None:
    with pytest.raises(RelationError, match=message):
        rel("einsum", ein(eq), Tup(*fields))


def test_einsum_reference() -> None:
    a = np.array([[1, 2], [3, 4]], dtype="int32")
    same(ref("einsum", ein("ij,jk->ik"), (a, a)), [[7, 10], [15, 22]])
    same(ref("einsum", ein("ii"), (a,)), 5)
    same(ref("einsum", ein("ij->ji"), (a,)), [[1, 3], [2, 4]])
    with pytest.raises(UndefinedBehavior, match="may overflow"):
        ref("einsum", ein("i->"), (np.array([2**31 - 1, 1], dtype="int32"),))
    with pytest.raises(UndefinedBehavior, match="bool sums over i"):
        ref("einsum", ein("i->"), (np.array([True, True]),))


@FAST
@given(
    st.sampled_from(
        [
            ("ij,jk->ik", [(2, 3), (3, 4)]),
            ("bij,bjk->bik", [(2, 2, 3), (2, 3, 1)]),
            ("ii->i", [(3, 3)]),
            ("ij->", [(2, 4)]),
            ("i,j->ij", [(3,), (2,)]),
            ("ijk->kji", [(2, 3, 1)]),
            ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 2)]),
            ("ij,ij,ij->i", [(2, 2), (2, 2), (2, 2)]),
        ]
    ),
    seeds,
)
def test_einsum_matches_onnxruntime(case: tuple[str, list[tuple[int, ...]]], seed: int) -> None:
    eq, shapes = case
    xs = tuple(rand(s, seed + i) for i, s in enumerate(shapes))
    expected = onnx_run("Einsum", list(xs), equation=eq)
    np.testing.assert_allclose(ref("einsum", ein(eq), xs), expected)


# ---------------------------------------------------------------------------------------------
# matrix_set_diag


def msd(k1: int = 0, k2: int = 0, sup: bool = True, sub: bool = False) -> MatrixSetDiagAttrs:
    return MatrixSetDiagAttrs(k1=k1, k2=k2, super_diag_right_align=sup, sub_diag_right_align=sub)


def test_matrix_set_diag_relation() -> None:
    assert rel("matrix_set_diag", msd(), T((2, 3, 4)), T((2, 3))) == T((2, 3, 4))
    assert rel("matrix_set_diag", msd(-1, 2), T((3, 4)), T((4, 3))) == T((3, 4))
    assert rel("matrix_set_diag", msd(1, 1), T((3, 3)), T((2,))) == T((3, 3))
    with pytest.raises(RelationError, match="expected k1 <= k2, found k1=1, k2=0"):
        rel("matrix_set_diag", msd(1, 0), T((3, 3)), T((3,)))
    with pytest.raises(RelationError, match=r"expected a diagonal of shape \(2\)"):
        rel("matrix_set_diag", msd(1, 1), T((3, 3)), T((3,)))
    with pytest.raises(RelationError, match="k2=3 names no diagonal of a matrix with 3 columns"):
        rel("matrix_set_diag", msd(0, 3), T((3, 3)), T((4, 3)))
    with pytest.raises(RelationError, match="rank at least 2"):
        rel("matrix_set_diag", msd(), T((3,)), T((3,)))


def test_matrix_set_diag_reference() -> None:
    zeros = np.zeros((3, 3), dtype="int32")
    same(ref("matrix_set_diag", msd(), zeros, np.array([1, 2, 3], "int32")), np.diag([1, 2, 3]))
    same(
        ref("matrix_set_diag", msd(1, 1), zeros, np.array([1, 2], "int32")),
        [[0, 1, 0], [0, 0, 2], [0, 0, 0]],
    )
    # TensorFlow's example band: rows k2 .. k1; the super-diagonal right-aligned (padded on
    # the left), the sub-diagonal left-aligned (padded on the right).
    band = np.array([[0, 9, 1], [6, 5, 8], [1, 2, 0]], "int32")
    same(
        ref("matrix_set_diag", msd(-1, 1), zeros, band),
        [[6, 9, 0], [1, 5, 1], [0, 2, 8]],
    )
    band_left = np.array([[9, 1, 0], [6, 5, 8], [0, 1, 2]], "int32")
    same(
        ref("matrix_set_diag", msd(-1, 1, sup=False, sub=True), zeros, band_left),
        [[6, 9, 0], [1, 5, 1], [0, 2, 8]],
    )


@FAST
@given(
    st.integers(1, 4),
    st.integers(1, 4),
    st.booleans(),
    st.booleans(),
    seeds,
    st.data(),
)
def test_matrix_set_diag_matches_a_loop(
    rows: int, cols: int, sup: bool, sub: bool, seed: int, data: st.DataObject
) -> None:
    k1 = data.draw(st.integers(-(rows - 1), cols - 1))
    k2 = data.draw(st.integers(k1, cols - 1))
    width = min(rows + min(k2, 0), cols - max(k1, 0))
    count = k2 - k1 + 1
    x = rand((2, rows, cols), seed, "int32")
    diag = rand((2, count, width) if count > 1 else (2, width), seed + 1, "int32")
    out = ref("matrix_set_diag", msd(k1, k2, sup, sub), x, diag)
    for b, i, j in itertools.product(range(2), range(rows), range(cols)):
        k = j - i
        if not k1 <= k <= k2:
            assert out[b, i, j] == x[b, i, j]
            continue
        # Diagonal k holds the elements (i, i + k); its length and padding decide where
        # element (i, j) sits in its row of the band.
        positions = [(r, r + k) for r in range(rows) if 0 <= r + k < cols]
        pos = positions.index((i, j))
        aligned_right = sup if k >= 0 else sub
        pad = width - len(positions) if aligned_right and count > 1 else 0
        expected = diag[b, k2 - k, pad + pos] if count > 1 else diag[b, pos]
        assert out[b, i, j] == expected


# ---------------------------------------------------------------------------------------------
# trilu


def test_trilu() -> None:
    assert rel("trilu", TriluAttrs(), T((n, 3, 3)), T((), "int64")) == T((n, 3, 3))
    x = arange(3, 3) + 1
    k0 = np.array(0, "int32")
    same(ref("trilu", TriluAttrs(), x, k0), [[1, 2, 3], [0, 5, 6], [0, 0, 9]])
    same(
        ref("trilu", TriluAttrs(upper=False), x, np.array(-1, "int8")),
        [[0, 0, 0], [4, 0, 0], [7, 8, 0]],
    )
    same(ref("trilu", TriluAttrs(), x, np.array(5, "int64")), np.zeros((3, 3)))
    with pytest.raises(RelationError, match="rank at least 2, found rank 1"):
        rel("trilu", TriluAttrs(), T((3,)), T((), "int32"))
    with pytest.raises(RelationError, match=r"expected a rank-0 k, found rank 1 \(1\)"):
        rel("trilu", TriluAttrs(), T((3, 3)), T((1,), "int32"))
    with pytest.raises(RelationError, match="integer dtype for k, found float32"):
        rel("trilu", TriluAttrs(), T((3, 3)), T(()))


@FAST
@given(
    st.lists(st.integers(1, 4), min_size=2, max_size=4).map(tuple),
    st.integers(-4, 4),
    st.booleans(),
    seeds,
)
def test_trilu_matches_onnxruntime(shape: tuple[int, ...], k: int, upper: bool, seed: int) -> None:
    x = rand(shape, seed)
    kk = np.array(k, dtype=np.int64)
    expected = onnx_run("Trilu", [x, kk], upper=int(upper), opset=14)
    np.testing.assert_array_equal(ref("trilu", TriluAttrs(upper=upper), x, kk), expected)


# ---------------------------------------------------------------------------------------------
# sliding_window


def sw(axis: int, window: Sequence[int], strides: Sequence[int]) -> SlidingWindowAttrs:
    return SlidingWindowAttrs(axis=axis, window_shape=tuple(window), strides=tuple(strides))


def test_sliding_window_relation() -> None:
    # TVM's documented example: data (2, 3, 32, 32), axis 1, window (3, 4, 5), strides (1, 2, 3).
    out = rel("sliding_window", sw(1, (3, 4, 5), (1, 2, 3)), T((2, 3, 32, 32)))
    assert out == T((2, 1, 15, 10, 3, 4, 5))
    assert rel("sliding_window", sw(0, (2,), (1,)), T((n,))) == T((n - 1, 2))
    with pytest.raises(RelationError, match="axis=2 is out of range for a tensor of rank 2"):
        rel("sliding_window", sw(2, (), ()), T((3, 3)))
    with pytest.raises(RelationError, match=r"of length 2 \(rank 2 less axis 0\)"):
        rel("sliding_window", sw(0, (1,), (1,)), T((3, 3)))
    with pytest.raises(RelationError, match="the window 4 is longer than the extent 3 of axis 0"):
        rel("sliding_window", sw(0, (4,), (1,)), T((3,)))
    with pytest.raises(RelationError, match="at least 1"):
        rel("sliding_window", sw(0, (1,), (0,)), T((3,)))


def test_sliding_window_reference() -> None:
    same(ref("sliding_window", sw(0, (2,), (2,)), arange(5)), [[0, 1], [2, 3]])
    same(ref("sliding_window", sw(0, (3,), (1,)), arange(4)), [[0, 1, 2], [1, 2, 3]])


@FAST
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), seeds, st.data())
def test_sliding_window_matches_a_loop(
    shape: tuple[int, ...], seed: int, data: st.DataObject
) -> None:
    axis = data.draw(st.integers(0, len(shape) - 1))
    window = [data.draw(st.integers(1, d)) for d in shape[axis:]]
    strides = [data.draw(st.integers(1, 3)) for _ in window]
    x = rand(shape, seed)
    out = ref("sliding_window", sw(axis, window, strides), x)
    span = len(window)
    for idx in itertools.product(*map(range, out.shape)):
        pre, starts, offsets = idx[:axis], idx[axis : axis + span], idx[axis + span :]
        src = pre + tuple(i * s + w for i, s, w in zip(starts, strides, offsets, strict=True))
        assert out[idx] == x[src]


# ---------------------------------------------------------------------------------------------
# reverse_sequence


def rs(seq: int = 1, batch: int = 0) -> ReverseSequenceAttrs:
    return ReverseSequenceAttrs(seq_axis=seq, batch_axis=batch)


def test_reverse_sequence_relation() -> None:
    assert rel("reverse_sequence", rs(), T((n, 4)), T((n,), "int32")) == T((n, 4))
    with pytest.raises(RelationError, match=r"seq_lengths of length 3 \(data's extent"):
        rel("reverse_sequence", rs(), T((3, 4)), T((4,), "int32"))
    with pytest.raises(RelationError, match="signed integer dtype for seq_lengths, found uint8"):
        rel("reverse_sequence", rs(), T((3, 4)), T((3,), "uint8"))
    with pytest.raises(RelationError, match="seq_axis=2 is out of range"):
        rel("reverse_sequence", rs(seq=2), T((3, 4)), T((3,), "int32"))
    with pytest.raises(RelationError, match="seq_lengths of rank 1, found rank 0"):
        rel("reverse_sequence", rs(), T((3, 4)), T((), "int32"))


def test_reverse_sequence_reference() -> None:
    x = arange(4, 4)
    lengths = np.array([1, 2, 3, 4], "int32")
    same(
        ref("reverse_sequence", rs(), x, lengths),
        [[0, 1, 2, 3], [5, 4, 6, 7], [10, 9, 8, 11], [15, 14, 13, 12]],
    )
    # topi's rule: a length above the extent reverses the whole axis; 0, 1 and negative
    # lengths leave the slice alone.
    same(
        ref("reverse_sequence", rs(), arange(3, 2), np.array([9, -4, 0], "int64")),
        [[1, 0], [2, 3], [4, 5]],
    )


@FAST
@given(
    st.lists(st.integers(1, 4), min_size=2, max_size=4).map(tuple),
    st.booleans(),
    seeds,
    st.data(),
)
def test_reverse_sequence_matches_onnxruntime(
    shape: tuple[int, ...], swap: bool, seed: int, data: st.DataObject
) -> None:
    batch, seq = (1, 0) if swap else (0, 1)
    lengths = np.array(
        [data.draw(st.integers(0, shape[seq])) for _ in range(shape[batch])], dtype=np.int64
    )
    x = rand(shape, seed)
    expected = onnx_run("ReverseSequence", [x, lengths], batch_axis=batch, time_axis=seq)
    out = ref("reverse_sequence", rs(seq=seq, batch=batch), x, lengths)
    np.testing.assert_array_equal(out, expected)


# ---------------------------------------------------------------------------------------------
# Run-time shapes that contradict a ? the relation accepted are undefined


def test_run_time_shape_contradictions_are_undefined() -> None:
    assert rel("slice_like", SliceLikeAttrs(axes=None), T((ANY,)), T((3,))) == T((3,))
    with pytest.raises(UndefinedBehavior, match="slice_like: at run time"):
        ref("slice_like", SliceLikeAttrs(axes=None), np.zeros(2), np.zeros(3))
    with pytest.raises(UndefinedBehavior, match="layout_transform: at run time"):
        OPS["layout_transform"].reference((np.zeros((1, 6)),), lt("NC", "NC4c"))  # type: ignore[misc]
