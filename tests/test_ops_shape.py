"""The ``shape`` operators (``semantics/ops/shape.py``): relations, references, checks."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ops_helpers import (
    FAST,
    Tup,
    arange,
    array,
    assert_same,
    bad,
    check_agreement,
    dtypes,
    ints,
    m,
    n,
    of_family,
    op_ref,
    op_rel,
    rand,
    run_onnx,
    same_values,
    seeds,
    seeds32,
    shape_of,
    small_shapes,
    tensor_ref,
    tensor_t,
    typ,
)

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.index import (
    SliceLikeAttrs,
)
from relay.semantics.ops.linalg import MatrixSetDiagAttrs, TriluAttrs
from relay.semantics.ops.registry import Attrs, OpPattern, RelationError, Tensor
from relay.semantics.ops.shape import (
    ConcatenateAttrs,
    ExpandDimsAttrs,
    LayoutTransformAttrs,
    MeshgridAttrs,
    NdarraySizeAttrs,
    RepeatAttrs,
    ReshapeAttrs,
    ReshapeLikeAttrs,
    ReverseAttrs,
    ReverseSequenceAttrs,
    ShapeOfAttrs,
    SlidingWindowAttrs,
    SplitAttrs,
    SqueezeAttrs,
    StackAttrs,
    TileAttrs,
    TransposeAttrs,
)
from relay.semantics.syntax import ANY, Dim, TensorType, TupleType, Type

OPS_HERE = {
    "reverse": ("Reverse", OpPattern.INJECTIVE),
    "tile": ("Tile", OpPattern.BROADCAST),
    "repeat": ("Repeat", OpPattern.BROADCAST),
    "layout_transform": ("layout_transform", OpPattern.INJECTIVE),
    "reshape_like": ("ReshapeLike", OpPattern.INJECTIVE),
    "broadcast_to_like": ("BroadCastToLike", OpPattern.BROADCAST),
    "collapse_sum_like": ("CollapseSumLike", OpPattern.COMM_REDUCE),
    "shape_of": ("ShapeOf", OpPattern.OPAQUE),
    "ndarray_size": ("NdarraySize", OpPattern.INJECTIVE),
    "sliding_window": ("SlidingWindow", OpPattern.OPAQUE),
    "reverse_sequence": ("ReverseSequence", OpPattern.INJECTIVE),
}


FAMILY = {
    "reshape": "Reshape",
    "transpose": "Transpose",
    "concatenate": "Concatenate",
    "stack": "Stack",
    "split": "Split",
    "expand_dims": "ExpandDims",
    "squeeze": "Squeeze",
    "broadcast_to": "BroadCastTo",
}


RNG = np.random.default_rng(7)


NAMES = ("meshgrid",)


def same(actual: Tensor, expected: Tensor) -> None:
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_array_equal(actual, expected)


def ref_checked(op: str, attrs: Attrs | None, *args: object) -> Tensor:
    reference = OPS[op].reference
    assert reference is not None
    out = reference(tuple(args), attrs)  # type: ignore[arg-type]
    assert isinstance(out, np.ndarray)
    t = op_rel(op, attrs, *(typ(a) for a in args))
    assert isinstance(t, TensorType)
    assert out.shape == t.shape and out.dtype == np.dtype(t.dtype)
    return out


def lt(src: str, dst: str) -> LayoutTransformAttrs:
    return LayoutTransformAttrs(src_layout=src, dst_layout=dst)


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


def sw(axis: int, window: Sequence[int], strides: Sequence[int]) -> SlidingWindowAttrs:
    return SlidingWindowAttrs(axis=axis, window_shape=tuple(window), strides=tuple(strides))


def rs(seq: int = 1, batch: int = 0) -> ReverseSequenceAttrs:
    return ReverseSequenceAttrs(seq_axis=seq, batch_axis=batch)


def split_shapes(attrs: SplitAttrs, data: TensorType) -> list[tuple[Dim, ...]]:
    t = op_rel("split", attrs, data)
    assert isinstance(t, TupleType)
    out = []
    for f in t.fields:
        assert isinstance(f, TensorType)
        assert f.dtype == data.dtype
        out.append(f.shape)
    return out


RNG_NORMAL = np.random.default_rng(20240518)


def randn(*shape: int, dtype: str = "float32") -> Tensor:
    return RNG_NORMAL.standard_normal(shape).astype(dtype)


def shapes(
    min_rank: int = 0, max_rank: int = 4, min_dim: int = 0
) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(min_dim, 4), min_size=min_rank, max_size=max_rank).map(tuple)


@st.composite
def reshape_cases(draw: st.DrawFn) -> tuple[ReshapeAttrs, Tensor]:
    shape = draw(shapes())
    dtype = draw(dtypes)
    if draw(st.booleans()):
        # allowzero: newshape is a plain shape with the same number of elements.
        target = list(shape)
        draw(st.randoms()).shuffle(target)
        if math.prod(shape) == 0 and draw(st.booleans()):
            target.append(draw(st.integers(0, 3)))
        attrs = ReshapeAttrs(newshape=tuple(target), allowzero=True)
        return attrs, array(shape, dtype, draw(seeds32))
    newshape: list[int] = []
    literal_positions: list[int] = []
    i = 0
    while i < len(shape):
        kind = draw(st.sampled_from(["size", "copy", "merge", "split", "rest"]))
        if kind == "size" and shape[i] > 0:
            literal_positions.append(len(newshape))
            newshape.append(shape[i])
            i += 1
        elif kind == "merge" and i + 1 < len(shape):
            newshape.append(-3)
            i += 2
        elif kind == "split" and shape[i] > 0:
            d = shape[i]
            f = draw(st.sampled_from([k for k in range(1, d + 1) if d % k == 0]))
            newshape += draw(st.sampled_from([[-4, f, -1], [-4, -1, f], [-4, f, d // f]]))
            i += 1
        elif kind == "rest":
            newshape.append(-2)
            i = len(shape)
        else:
            newshape.append(0)
            i += 1
    # A -1 in place of a size placed before any -2, -3 or -4 (TVM writes the inferred size at
    # the -1's position in newshape).
    clean = [p for p in literal_positions if all(v >= 0 for v in newshape[:p])]
    use_minus_one: bool = draw(st.booleans())
    if clean and use_minus_one:
        position: int = draw(st.sampled_from(clean))
        newshape[position] = -1
    return ReshapeAttrs(newshape=tuple(newshape)), array(shape, dtype, draw(seeds32))


def test_meshgrid_relation() -> None:
    ij = MeshgridAttrs()
    xy = MeshgridAttrs.from_kwargs({"indexing": "xy"})
    fields = TupleType((tensor_t((2,)), tensor_t(()), tensor_t((n,))))
    grid = tensor_t((2, 1, n))
    assert op_rel("meshgrid", ij, fields) == TupleType((grid, grid, grid))
    swapped = tensor_t((1, 2, n))
    assert op_rel("meshgrid", xy, fields) == TupleType((swapped, swapped, swapped))
    bad("meshgrid", ij, "one dtype", TupleType((tensor_t((2,)), tensor_t((2,), "int32"))))
    bad("meshgrid", ij, "scalars or vectors", TupleType((tensor_t((2, 2)),)))
    bad(
        "meshgrid",
        MeshgridAttrs.from_kwargs({"indexing": "yx"}),
        'found "yx"',
        TupleType((tensor_t((2,)),)),
    )


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("sizes", [(2,), (2, 3), (3, 1, 4), (2, 3, 2, 2)])
def test_meshgrid_matches_numpy_meshgrid(indexing: str, sizes: tuple[int, ...]) -> None:
    fields = tuple(RNG.standard_normal(s).astype(np.float32) for s in sizes)
    got = op_ref("meshgrid", MeshgridAttrs.from_kwargs({"indexing": indexing}), fields)
    want = np.meshgrid(*fields, indexing=indexing)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        same(g, w)


@pytest.mark.parametrize("name", of_family(sorted({*NAMES, *OPS_HERE, *FAMILY}), "shape"))
def test_record(name: str) -> None:
    """Each operator of the family has a relation, a reference, an independent check and TVM's
    attribute type key, and the relation name and pattern the tables here give it."""
    op = OPS[name]
    assert op.relation is not None and op.reference is not None and op.relation_name
    if name in OPS_HERE:
        assert (op.relation_name, op.pattern) == OPS_HERE[name]
    if name in FAMILY:
        assert op.relation_name == FAMILY[name]
    kind, _, what = op.check.partition(":")
    assert kind in ("onnxruntime", "independent") and what
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


def test_reverse() -> None:
    assert op_rel("reverse", ReverseAttrs(axis=-1), tensor_t((n, 3))) == tensor_t((n, 3))
    same_values(ref_checked("reverse", ReverseAttrs(axis=1), arange(2, 3)), [[2, 1, 0], [5, 4, 3]])
    same_values(ref_checked("reverse", ReverseAttrs(axis=0), arange(2, 3)), [[3, 4, 5], [0, 1, 2]])
    with pytest.raises(RelationError, match="axis=2 is out of range for a tensor of rank 2"):
        op_rel("reverse", ReverseAttrs(axis=2), tensor_t((2, 3)))
    with pytest.raises(RelationError, match="found axis=None"):
        op_rel("reverse", ReverseAttrs(), tensor_t((2, 3)))


@FAST
@given(small_shapes, seeds, st.data())
def test_reverse_matches_a_loop(shape: tuple[int, ...], seed: int, data: st.DataObject) -> None:
    axis = data.draw(st.integers(0, len(shape) - 1))
    x = rand(shape, seed)
    out = ref_checked("reverse", ReverseAttrs(axis=axis), x)
    for idx in itertools.product(*map(range, shape)):
        src = list(idx)
        src[axis] = shape[axis] - 1 - idx[axis]
        assert out[idx] == x[tuple(src)]


def test_tile_relation() -> None:
    assert op_rel("tile", TileAttrs(reps=(2, 3)), tensor_t((4,))) == tensor_t((2, 12))
    assert op_rel("tile", TileAttrs(reps=(2,)), tensor_t((4, 5))) == tensor_t((4, 10))
    assert op_rel("tile", TileAttrs(reps=()), tensor_t((4, 5))) == tensor_t((4, 5))
    # As TVM: a symbolic or unknown extent becomes ?, whatever the rep.
    assert op_rel("tile", TileAttrs(reps=(1, 2)), tensor_t((n, 3))) == tensor_t((ANY, 6))
    with pytest.raises(RelationError, match=r"positive, found reps=\(2, 0\)"):
        op_rel("tile", TileAttrs(reps=(2, 0)), tensor_t((4,)))


def test_tile_reference() -> None:
    same_values(ref_checked("tile", TileAttrs(reps=(2,)), arange(2, dtype="int8")), [0, 1, 0, 1])
    same_values(ref_checked("tile", TileAttrs(reps=(2, 1)), arange(2)), [[0, 1], [0, 1]])


@FAST
@given(small_shapes, st.lists(st.integers(1, 3), max_size=4), seeds)
def test_tile_matches_onnxruntime(shape: tuple[int, ...], reps: list[int], seed: int) -> None:
    x = rand(shape, seed)
    rank = max(len(shape), len(reps))
    padded = x.reshape((1,) * (rank - len(shape)) + shape)
    full = [1] * (rank - len(reps)) + reps
    expected = onnx_run("Tile", [padded, np.array(full, dtype=np.int64)])
    np.testing.assert_array_equal(ref_checked("tile", TileAttrs(reps=tuple(reps)), x), expected)


def test_repeat() -> None:
    assert op_rel("repeat", RepeatAttrs(repeats=3, axis=0), tensor_t((n, 2))) == tensor_t(
        (3 * n, 2)
    )
    assert op_rel("repeat", RepeatAttrs(repeats=2, axis=-1), tensor_t((ANY, 2))) == tensor_t(
        (ANY, 4)
    )
    same_values(
        ref_checked("repeat", RepeatAttrs(repeats=2, axis=1), arange(2, 2)),
        [[0, 0, 1, 1], [2, 2, 3, 3]],
    )
    with pytest.raises(RelationError, match="repeats >= 1, found repeats=0"):
        op_rel("repeat", RepeatAttrs(repeats=0, axis=0), tensor_t((2,)))
    with pytest.raises(RelationError, match="axis=-2 is out of range for a tensor of rank 1"):
        op_rel("repeat", RepeatAttrs(repeats=1, axis=-2), tensor_t((2,)))
    with pytest.raises(RelationError, match="axis=None"):
        op_rel("repeat", RepeatAttrs(repeats=1), tensor_t((2,)))


@FAST
@given(small_shapes, st.integers(1, 3), seeds, st.data())
def test_repeat_matches_a_loop(
    shape: tuple[int, ...], repeats: int, seed: int, data: st.DataObject
) -> None:
    axis = data.draw(st.integers(0, len(shape) - 1))
    x = rand(shape, seed, "int32")
    out = ref_checked("repeat", RepeatAttrs(repeats=repeats, axis=axis), x)
    for idx in itertools.product(*map(range, out.shape)):
        src = list(idx)
        src[axis] = idx[axis] // repeats
        assert out[idx] == x[tuple(src)]


def test_layout_transform_relation() -> None:
    assert op_rel("layout_transform", lt("NCHW", "NHWC"), tensor_t((1, 8, 5, 6))) == tensor_t(
        (1, 5, 6, 8)
    )
    assert op_rel("layout_transform", lt("NCHW", "NCHW4c"), tensor_t((1, 8, 5, 6))) == tensor_t(
        (1, 2, 5, 6, 4)
    )
    assert op_rel("layout_transform", lt("NCHW4c", "NCHW"), tensor_t((1, 2, 5, 6, 4))) == tensor_t(
        (1, 8, 5, 6)
    )
    assert op_rel(
        "layout_transform", lt("NCHW2c", "NHWC4c"), tensor_t((1, 4, 5, 6, 2))
    ) == tensor_t((1, 5, 6, 2, 4))
    assert op_rel("layout_transform", lt("NC", "NC4c"), tensor_t((n, 4 * n))) == tensor_t((n, n, 4))


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
        op_rel("layout_transform", attrs, tensor_t(shape))


def test_layout_transform_reference() -> None:
    x = arange(1, 4, 1, 1)
    # NCHW -> NCHW2c: out[n, C, h, w, c] = x[n, 2C + c, h, w].
    same_values(
        ref_checked("layout_transform", lt("NCHW", "NCHW2c"), x), [[[[[0, 1]]], [[[2, 3]]]]]
    )
    back = ref_checked(
        "layout_transform",
        lt("NCHW2c", "NCHW"),
        ref_checked("layout_transform", lt("NCHW", "NCHW2c"), x),
    )
    same_values(back, x)


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
    out = ref_checked("layout_transform", lt(src, dst), x)
    np.testing.assert_array_equal(out, layout_loop(x, src, dst, out.shape))


def test_reshape_like() -> None:
    # TVM's documented example.
    attrs = ReshapeLikeAttrs(lhs_begin=1, rhs_end=3)
    assert op_rel(
        "reshape_like", attrs, tensor_t((1, 2, 3, 4)), tensor_t((6, 2, 2, 3), "int8")
    ) == tensor_t((1, 6, 2, 2))
    assert op_rel(
        "reshape_like", ReshapeLikeAttrs(), tensor_t((2, 3)), tensor_t((3, 2))
    ) == tensor_t((3, 2))
    negative = ReshapeLikeAttrs(lhs_begin=-2, lhs_end=-1, rhs_begin=0, rhs_end=-1)
    assert op_rel("reshape_like", negative, tensor_t((5, 6, 7)), tensor_t((3, 2, 9))) == tensor_t(
        (5, 3, 2, 7)
    )
    assert op_rel("reshape_like", ReshapeLikeAttrs(), tensor_t((n, 2)), tensor_t((4,))) == tensor_t(
        (4,)
    )
    same_values(
        ref_checked("reshape_like", ReshapeLikeAttrs(), arange(2, 2), arange(4)), [0, 1, 2, 3]
    )
    with pytest.raises(RelationError, match=r"cannot reshape \(2, 3\) \(6 elements\) to \(4\)"):
        op_rel("reshape_like", ReshapeLikeAttrs(), tensor_t((2, 3)), tensor_t((4,)))
    with pytest.raises(RelationError, match="lhs_begin=3, lhs_end=None"):
        op_rel("reshape_like", ReshapeLikeAttrs(lhs_begin=3), tensor_t((2, 3)), tensor_t((4,)))


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
    out = ref_checked("reshape_like", attrs, x, like)
    # The target shape, worked out from the attributes without the relation.
    lb = attrs.lhs_begin % len(shape)
    le = len(shape) if attrs.lhs_end is None else attrs.lhs_end % len(shape)
    rb = attrs.rhs_begin % len(like_shape)
    re = len(like_shape) if attrs.rhs_end is None else attrs.rhs_end % len(like_shape)
    target = shape[:lb] + like_shape[rb:re] + shape[le:]
    expected = onnx_run("Reshape", [x, np.array(target, dtype=np.int64)])
    np.testing.assert_array_equal(out, expected)


def test_broadcast_to_like() -> None:
    assert op_rel("broadcast_to_like", None, tensor_t((3, 1)), tensor_t((2, 3, 4))) == tensor_t(
        (2, 3, 4)
    )
    same_values(
        ref_checked("broadcast_to_like", None, arange(2, 1), np.zeros((2, 2), "float32")),
        [[0, 0], [1, 1]],
    )
    with pytest.raises(RelationError, match=r"cannot broadcast \(3\) to \(2, 4\)"):
        op_rel("broadcast_to_like", None, tensor_t((3,)), tensor_t((2, 4)))
    with pytest.raises(RelationError, match="same dtype, found float32 and int8"):
        op_rel("broadcast_to_like", None, tensor_t((3,)), tensor_t((3,), "int8"))


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
    np.testing.assert_array_equal(ref_checked("broadcast_to_like", None, x, like), expected)


def test_collapse_sum_like() -> None:
    assert op_rel("collapse_sum_like", None, tensor_t((2, 3, 4)), tensor_t((3, 1))) == tensor_t(
        (3, 1)
    )
    same_values(
        ref_checked(
            "collapse_sum_like", None, arange(2, 3, dtype="int32"), np.zeros((1,), "int32")
        ),
        [15],
    )
    same_values(
        ref_checked(
            "collapse_sum_like", None, arange(2, 3, dtype="int32"), np.zeros((2, 1), "int32")
        ),
        [[3], [12]],
    )
    same_values(
        ref_checked("collapse_sum_like", None, np.array([True, False]), np.zeros((), bool)), True
    )
    with pytest.raises(RelationError, match=r"cannot collapse \(2, 3\) to \(2\)"):
        op_rel("collapse_sum_like", None, tensor_t((2, 3)), tensor_t((2,)))
    big = np.array([2**31 - 1, 1], dtype="int32")
    with pytest.raises(UndefinedBehavior, match="overflows"):
        ref_checked("collapse_sum_like", None, big, np.zeros((), "int32"))


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
        ref_checked("collapse_sum_like", None, x, np.zeros(target, "float32")), expected
    )


def test_shape_of_and_ndarray_size() -> None:
    assert op_rel("shape_of", ShapeOfAttrs(dtype="int64"), tensor_t((n, ANY, 3))) == tensor_t(
        (3,), "int64"
    )
    assert op_rel("ndarray_size", NdarraySizeAttrs(dtype="int32"), tensor_t((n, 3))) == tensor_t(
        (), "int32"
    )
    same_values(
        ref_checked("shape_of", ShapeOfAttrs(dtype="int32"), np.zeros((2, 0, 5))), [2, 0, 5]
    )
    same_values(ref_checked("ndarray_size", NdarraySizeAttrs(dtype="float16"), np.zeros((2, 3))), 6)
    same_values(ref_checked("shape_of", ShapeOfAttrs(dtype="int32"), np.zeros(())), np.zeros((0,)))
    with pytest.raises(RelationError, match='expected a dtype attribute, found ""'):
        op_rel("shape_of", ShapeOfAttrs(), tensor_t((2,)))
    with pytest.raises(RelationError, match='expected a dtype attribute, found ""'):
        op_rel("ndarray_size", NdarraySizeAttrs(), tensor_t((2,)))


@FAST
@given(st.lists(st.integers(0, 4), max_size=4).map(tuple))
def test_shape_of_and_ndarray_size_match_onnxruntime(shape: tuple[int, ...]) -> None:
    x = np.zeros(shape, dtype="float32")
    expected_shape = onnx_run("Shape", [x], out_dtype="int64")
    expected_size = onnx_run("Size", [x], out_dtype="int64")
    same_values(ref_checked("shape_of", ShapeOfAttrs(dtype="int64"), x), expected_shape)
    same_values(ref_checked("ndarray_size", NdarraySizeAttrs(dtype="int64"), x), expected_size)


def test_sliding_window_relation() -> None:
    # TVM's documented example: data (2, 3, 32, 32), axis 1, window (3, 4, 5), strides (1, 2, 3).
    out = op_rel("sliding_window", sw(1, (3, 4, 5), (1, 2, 3)), tensor_t((2, 3, 32, 32)))
    assert out == tensor_t((2, 1, 15, 10, 3, 4, 5))
    assert op_rel("sliding_window", sw(0, (2,), (1,)), tensor_t((n,))) == tensor_t((n - 1, 2))
    with pytest.raises(RelationError, match="axis=2 is out of range for a tensor of rank 2"):
        op_rel("sliding_window", sw(2, (), ()), tensor_t((3, 3)))
    with pytest.raises(RelationError, match=r"of length 2 \(rank 2 less axis 0\)"):
        op_rel("sliding_window", sw(0, (1,), (1,)), tensor_t((3, 3)))
    with pytest.raises(RelationError, match="the window 4 is longer than the extent 3 of axis 0"):
        op_rel("sliding_window", sw(0, (4,), (1,)), tensor_t((3,)))
    with pytest.raises(RelationError, match="at least 1"):
        op_rel("sliding_window", sw(0, (1,), (0,)), tensor_t((3,)))


def test_sliding_window_reference() -> None:
    same_values(ref_checked("sliding_window", sw(0, (2,), (2,)), arange(5)), [[0, 1], [2, 3]])
    same_values(ref_checked("sliding_window", sw(0, (3,), (1,)), arange(4)), [[0, 1, 2], [1, 2, 3]])


@FAST
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), seeds, st.data())
def test_sliding_window_matches_a_loop(
    shape: tuple[int, ...], seed: int, data: st.DataObject
) -> None:
    axis = data.draw(st.integers(0, len(shape) - 1))
    window = [data.draw(st.integers(1, d)) for d in shape[axis:]]
    strides = [data.draw(st.integers(1, 3)) for _ in window]
    x = rand(shape, seed)
    out = ref_checked("sliding_window", sw(axis, window, strides), x)
    span = len(window)
    for idx in itertools.product(*map(range, out.shape)):
        pre, starts, offsets = idx[:axis], idx[axis : axis + span], idx[axis + span :]
        src = pre + tuple(i * s + w for i, s, w in zip(starts, strides, offsets, strict=True))
        assert out[idx] == x[src]


def test_reverse_sequence_relation() -> None:
    assert op_rel("reverse_sequence", rs(), tensor_t((n, 4)), tensor_t((n,), "int32")) == tensor_t(
        (n, 4)
    )
    with pytest.raises(RelationError, match=r"seq_lengths of length 3 \(data's extent"):
        op_rel("reverse_sequence", rs(), tensor_t((3, 4)), tensor_t((4,), "int32"))
    with pytest.raises(RelationError, match="signed integer dtype for seq_lengths, found uint8"):
        op_rel("reverse_sequence", rs(), tensor_t((3, 4)), tensor_t((3,), "uint8"))
    with pytest.raises(RelationError, match="seq_axis=2 is out of range"):
        op_rel("reverse_sequence", rs(seq=2), tensor_t((3, 4)), tensor_t((3,), "int32"))
    with pytest.raises(RelationError, match="seq_lengths of rank 1, found rank 0"):
        op_rel("reverse_sequence", rs(), tensor_t((3, 4)), tensor_t((), "int32"))


def test_reverse_sequence_reference() -> None:
    x = arange(4, 4)
    lengths = np.array([1, 2, 3, 4], "int32")
    same_values(
        ref_checked("reverse_sequence", rs(), x, lengths),
        [[0, 1, 2, 3], [5, 4, 6, 7], [10, 9, 8, 11], [15, 14, 13, 12]],
    )
    # topi's rule: a length above the extent reverses the whole axis; 0, 1 and negative
    # lengths leave the slice alone.
    same_values(
        ref_checked("reverse_sequence", rs(), arange(3, 2), np.array([9, -4, 0], "int64")),
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
    out = ref_checked("reverse_sequence", rs(seq=seq, batch=batch), x, lengths)
    np.testing.assert_array_equal(out, expected)


def test_run_time_shape_contradictions_are_undefined() -> None:
    assert op_rel(
        "slice_like", SliceLikeAttrs(axes=None), tensor_t((ANY,)), tensor_t((3,))
    ) == tensor_t((3,))
    with pytest.raises(UndefinedBehavior, match="slice_like: at run time"):
        ref_checked("slice_like", SliceLikeAttrs(axes=None), np.zeros(2), np.zeros(3))
    with pytest.raises(UndefinedBehavior, match="layout_transform: at run time"):
        OPS["layout_transform"].reference((np.zeros((1, 6)),), lt("NC", "NC4c"))  # type: ignore[misc]


@pytest.mark.parametrize(
    ("ishape", "newshape", "expected"),
    [
        # The examples of TVM's reshape documentation.
        ((2, 3, 4), (4, 0, 2), (4, 3, 2)),
        ((2, 3, 4), (2, 0, 0), (2, 3, 4)),
        ((2, 3, 4), (6, 1, -1), (6, 1, 4)),
        ((2, 3, 4), (3, -1, 8), (3, 1, 8)),
        ((2, 3, 4), (-1,), (24,)),
        ((2, 3, 4), (-2,), (2, 3, 4)),
        ((2, 3, 4), (2, -2), (2, 3, 4)),
        ((2, 3, 4), (-2, 1, 1), (2, 3, 4, 1, 1)),
        ((2, 3, 4), (-3, 4), (6, 4)),
        ((2, 3, 4, 5), (-3, -3), (6, 20)),
        ((2, 3, 4), (0, -3), (2, 12)),
        ((2, 3, 4), (-3, -2), (6, 4)),
        ((2, 3, 4), (-4, 1, 2, -2), (1, 2, 3, 4)),
        ((2, 3, 4), (2, -4, -1, 3, -2), (2, 1, 3, 4)),
        ((2, 3, 4), (-4, 2, -1, 0, 0), (2, 1, 3, 4)),
        ((), (1, 1), (1, 1)),
        ((1, 1), (), ()),
        ((0, 3), (-1, 2, 3), (0, 2, 3)),
    ],
)
def test_reshape_relation_special_values(
    ishape: tuple[int, ...], newshape: tuple[int, ...], expected: tuple[int, ...]
) -> None:
    assert (
        shape_of("reshape", ReshapeAttrs(newshape=newshape), tensor_t(ishape, "int8")) == expected
    )
    assert op_rel("reshape", ReshapeAttrs(newshape=newshape), tensor_t(ishape, "int8")) == tensor_t(
        expected, "int8"
    )


def test_reshape_allowzero_makes_zero_a_size() -> None:
    assert shape_of("reshape", ReshapeAttrs(newshape=(0, 3)), tensor_t((2, 3))) == (2, 3)
    assert shape_of("reshape", ReshapeAttrs(newshape=(0, 3), allowzero=True), tensor_t((0, 3))) == (
        0,
        3,
    )
    with pytest.raises(RelationError, match=r"cannot reshape \(2, 3\) \(6 elements\)"):
        op_rel("reshape", ReshapeAttrs(newshape=(0, 3), allowzero=True), tensor_t((2, 3)))


def test_reshape_symbolic_and_any() -> None:
    assert shape_of("reshape", ReshapeAttrs(newshape=(-1,)), tensor_t((n, 3))) == (3 * n,)
    assert shape_of("reshape", ReshapeAttrs(newshape=(-1, 3)), tensor_t((n, 3))) == (n, 3)
    assert shape_of("reshape", ReshapeAttrs(newshape=(0, -1)), tensor_t((n, 3, 4))) == (n, 12)
    assert shape_of("reshape", ReshapeAttrs(newshape=(-3,)), tensor_t((n, m))) == (n * m,)
    assert shape_of("reshape", ReshapeAttrs(newshape=(-1,)), tensor_t((ANY, 3))) == (ANY,)
    assert shape_of("reshape", ReshapeAttrs(newshape=(-3, 0)), tensor_t((ANY, 2, 5))) == (ANY, 5)
    assert shape_of("reshape", ReshapeAttrs(newshape=(-4, 2, -1)), tensor_t((ANY,))) == (2, ANY)
    # TVM skips the size check when a dimension is not a known integer.
    assert shape_of("reshape", ReshapeAttrs(newshape=(7,)), tensor_t((n, 3))) == (7,)


@pytest.mark.parametrize(
    ("ishape", "newshape", "message"),
    [
        (
            (2, 3, 4),
            (5, -1),
            r"cannot reshape \(2, 3, 4\) \(24 elements\) to \(5, 4\) \(20 elements\) given by "
            r"newshape=\[5, -1\]",
        ),
        ((2, 3), (7,), r"\(6 elements\) to \(7\) \(7 elements\)"),
        ((2, 3), (-1, -1), r"newshape=\[-1, -1\]: expected at most one -1, found two"),
        (
            (2, 3),
            (0, 0, 0),
            r"newshape=\[0, 0, 0\]: the 0 at position 2 copies input dimension 2, ",
        ),
        ((2,), (-3,), "merges input dimensions 0 and 1, but the input has rank 1"),
        ((6,), (-4, 2), r"newshape=\[-4, 2\]: expected two sizes after the -4 at position 0"),
        ((6,), (-4, -1, -1), "at most one -1 among the sizes after -4"),
        ((6,), (-4, -2, 3), r"newshape=\[-4, -2, 3\]: .* positive, 0 or -1, found -2 and 3"),
        ((2, 3), (-5,), r"newshape=\[-5\]: entry -5 at position 0 is neither a size nor one of"),
        # TVM writes the inferred size at the -1's position in newshape.
        ((2, 3, 4), (-2, -1), r"to \(2, 1, 4, 1\)"),
        ((2, 3, 4), (-4, 1, 2, -1), "has no counterpart in the output shape"),
    ],
)
def test_reshape_relation_errors(
    ishape: tuple[int, ...], newshape: tuple[int, ...], message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        op_rel("reshape", ReshapeAttrs(newshape=newshape), tensor_t(ishape))


def test_reshape_reference_keeps_row_major_order() -> None:
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    assert_same(tensor_ref("reshape", ReshapeAttrs(newshape=(3, -1)), x), [[0, 1], [2, 3], [4, 5]])
    assert_same(tensor_ref("reshape", ReshapeAttrs(newshape=(-1,)), x), [0, 1, 2, 3, 4, 5])
    y = tensor_ref("reshape", ReshapeAttrs(newshape=(-4, 1, 2, -2)), x)
    assert_same(y, [[[0, 1, 2], [3, 4, 5]]])


def test_reshape_reference_size_mismatch_at_run_time_is_undefined() -> None:
    # Tensor[(?, 3)] reshaped to (4, 3) typechecks; at run time the input has 2 rows.
    assert shape_of("reshape", ReshapeAttrs(newshape=(4, 3)), tensor_t((ANY, 3))) == (4, 3)
    with pytest.raises(UndefinedBehavior, match="reshape: at run time, cannot reshape"):
        op_ref("reshape", ReshapeAttrs(newshape=(4, 3)), np.zeros((2, 3), np.float32))


def test_transpose_relation() -> None:
    assert shape_of("transpose", TransposeAttrs(axes=None), tensor_t((2, 3, 4))) == (4, 3, 2)
    assert shape_of("transpose", TransposeAttrs(axes=(1, 0, 2)), tensor_t((2, 3, 4))) == (3, 2, 4)
    assert shape_of("transpose", TransposeAttrs(axes=(-1, 0, -2)), tensor_t((2, 3, 4))) == (4, 2, 3)
    assert shape_of("transpose", TransposeAttrs(axes=(1, 0)), tensor_t((n, ANY))) == (ANY, n)
    assert shape_of("transpose", TransposeAttrs(axes=None), tensor_t(())) == ()
    assert op_rel("transpose", TransposeAttrs(axes=None), tensor_t((2, 3), "bool")) == tensor_t(
        (3, 2), "bool"
    )


@pytest.mark.parametrize(
    ("axes", "message"),
    [
        ((0, 1), r"axes=\[0, 1\]: expected 3 axes .one per dimension of data., found 2"),
        ((0, 1, 1), r"axes=\[0, 1, 1\]: expected a permutation of the axes, found 1 twice"),
        ((0, -2, 1), "found 1 twice"),
        ((0, 1, 3), r"axes=\[0, 1, 3\]: 3 is out of range for a tensor of rank 3 \(expected -3"),
        ((), "expected 3 axes"),
    ],
)
def test_transpose_relation_errors(axes: tuple[int, ...], message: str) -> None:
    with pytest.raises(RelationError, match=message):
        op_rel("transpose", TransposeAttrs(axes=axes), tensor_t((2, 3, 4)))


def test_transpose_reference() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_same(tensor_ref("transpose", TransposeAttrs(axes=None), x), [[0, 3], [1, 4], [2, 5]])
    y = np.arange(24).reshape(2, 3, 4)
    out = tensor_ref("transpose", TransposeAttrs(axes=(-1, 0, 1)), y)
    assert out.shape == (4, 2, 3)
    assert out[3, 1, 2] == y[1, 2, 3]


def test_concatenate_relation() -> None:
    c = ConcatenateAttrs
    assert shape_of("concatenate", c(axis=0), Tup(tensor_t((2, 3)), tensor_t((4, 3)))) == (6, 3)
    assert shape_of(
        "concatenate", c(axis=-1), Tup(tensor_t((2, 3)), tensor_t((2, 1)), tensor_t((2, 5)))
    ) == (2, 9)
    assert shape_of(
        "concatenate", c(axis=0), Tup(tensor_t((n, 3)), tensor_t((m, 3)), tensor_t((2, 3)))
    ) == (
        n + m + 2,
        3,
    )
    assert shape_of("concatenate", c(axis=0), Tup(tensor_t((n, 3)), tensor_t((ANY, 3)))) == (ANY, 3)
    # TVM's own examples for ? off the axis.
    assert shape_of("concatenate", c(axis=0), Tup(tensor_t((ANY, 3)), tensor_t((ANY, ANY)))) == (
        ANY,
        3,
    )
    assert shape_of("concatenate", c(axis=0), Tup(tensor_t((1, 3)), tensor_t((1, ANY)))) == (2, ANY)
    assert shape_of("concatenate", c(axis=0), Tup(tensor_t((1, 3)), tensor_t((1, 3)))) == (2, 3)
    # Undecidable symbolic extents are accepted (TVM asserts them at run time).
    assert shape_of("concatenate", c(axis=1), Tup(tensor_t((n, 3)), tensor_t((2, 3)))) == (n, 6)
    assert op_rel("concatenate", c(axis=0), Tup(tensor_t((1,), "uint8"))) == tensor_t((1,), "uint8")


@pytest.mark.parametrize(
    ("fields", "axis", "message"),
    [
        ((tensor_t((2, 3)), tensor_t((2, 4))), 0, "dimension 1 is 3 in field 0 and 4 in field 1"),
        (
            (tensor_t((n, 3)), tensor_t((n + 1, 3))),
            1,
            "dimension 0 is n in field 0 and n \\+ 1 in field 1",
        ),
        (
            (tensor_t((2, 3)), tensor_t((2, 3, 1))),
            0,
            "same rank: field 0 has rank 2, field 1 has rank 3",
        ),
        (
            (tensor_t((2, 3)), tensor_t((2, 3), "int32")),
            0,
            "same dtype: field 0 is float32, field 1 is int32",
        ),
        (
            (tensor_t((2, 3)),),
            2,
            r"axis=2 is out of range for a tensor of rank 2 \(expected -2 <= axis",
        ),
        ((tensor_t((2, 3)),), -3, "axis=-3 is out of range"),
        ((tensor_t(()),), 0, r"axis=0 is out of range for a tensor of rank 0 \(it has no axes\)"),
        ((), 0, "expected a non-empty tuple"),
    ],
)
def test_concatenate_relation_errors(fields: tuple[Type, ...], axis: int, message: str) -> None:
    with pytest.raises(RelationError, match=message):
        op_rel("concatenate", ConcatenateAttrs(axis=axis), Tup(*fields))


def test_concatenate_needs_a_tuple() -> None:
    with pytest.raises(RelationError, match="expected a tuple of tensors for data, found a tensor"):
        op_rel("concatenate", ConcatenateAttrs(axis=0), tensor_t((2,)))


def test_concatenate_reference() -> None:
    a = np.array([[1, 2]], dtype=np.int32)
    b = np.array([[3, 4], [5, 6]], dtype=np.int32)
    out = tensor_ref("concatenate", ConcatenateAttrs(axis=-2), (a, b))
    assert_same(out, [[1, 2], [3, 4], [5, 6]])
    with pytest.raises(UndefinedBehavior, match="concatenate: at run time"):
        op_ref("concatenate", ConcatenateAttrs(axis=0), (a, np.zeros((1, 3), np.int32)))


def test_stack_relation() -> None:
    s = StackAttrs
    assert shape_of(
        "stack", s(axis=0), Tup(tensor_t((2, 3)), tensor_t((2, 3)), tensor_t((2, 3)))
    ) == (3, 2, 3)
    assert shape_of("stack", s(axis=2), Tup(tensor_t((2, 3)), tensor_t((2, 3)))) == (2, 3, 2)
    assert shape_of("stack", s(axis=-1), Tup(tensor_t((2, 3)), tensor_t((2, 3)))) == (2, 3, 2)
    assert shape_of("stack", s(axis=-3), Tup(tensor_t((2, 3)), tensor_t((2, 3)))) == (2, 2, 3)
    assert shape_of("stack", s(axis=1), Tup(tensor_t((n, ANY)), tensor_t((n, 4)))) == (n, 2, ANY)
    assert shape_of("stack", s(axis=0), Tup(tensor_t(()))) == (1,)
    # TVM's StackRel does not compare input axis `axis`: this is accepted, and undefined later.
    assert shape_of("stack", s(axis=0), Tup(tensor_t((2, 3)), tensor_t((5, 3)))) == (2, 2, 3)


@pytest.mark.parametrize(
    ("fields", "axis", "message"),
    [
        ((tensor_t((2, 3)), tensor_t((2, 4))), 0, "dimension 1 is 3 in field 0 and 4 in field 1"),
        (
            (tensor_t((2, 3)), tensor_t((2, 3), "int8")),
            0,
            "same dtype: field 0 is float32, field 1 is int8",
        ),
        ((tensor_t((2, 3)), tensor_t((2,))), 0, "same rank"),
        (
            (tensor_t((2, 3)),),
            3,
            r"axis=3 is out of range for stacking tensors of rank 2 \(expected -3",
        ),
        ((tensor_t((2, 3)),), -4, "axis=-4 is out of range"),
    ],
)
def test_stack_relation_errors(fields: tuple[Type, ...], axis: int, message: str) -> None:
    with pytest.raises(RelationError, match=message):
        op_rel("stack", StackAttrs(axis=axis), Tup(*fields))


def test_stack_reference() -> None:
    a = np.array([1, 2], dtype=np.float64)
    b = np.array([3, 4], dtype=np.float64)
    assert_same(tensor_ref("stack", StackAttrs(axis=0), (a, b)), [[1, 2], [3, 4]])
    assert_same(tensor_ref("stack", StackAttrs(axis=-1), (a, b)), [[1, 3], [2, 4]])
    with pytest.raises(UndefinedBehavior, match="does not compare input axis 0"):
        op_ref("stack", StackAttrs(axis=0), (np.zeros((2, 3)), np.zeros((5, 3))))


def test_split_relation_sections() -> None:
    s = SplitAttrs
    assert split_shapes(s(indices_or_sections=3, axis=1), tensor_t((2, 6))) == [(2, 2)] * 3
    assert split_shapes(s(indices_or_sections=2, axis=-1), tensor_t((4, 6))) == [(4, 3)] * 2
    assert split_shapes(s(indices_or_sections=1, axis=0), tensor_t((5,))) == [(5,)]
    assert split_shapes(s(indices_or_sections=2, axis=0), tensor_t((2 * n, 3))) == [(n, 3)] * 2
    assert split_shapes(s(indices_or_sections=2, axis=0), tensor_t((ANY, 3))) == [(ANY, 3)] * 2
    assert split_shapes(s(indices_or_sections=2, axis=0), tensor_t((0, 3))) == [(0, 3)] * 2


def test_split_relation_indices() -> None:
    s = SplitAttrs
    assert split_shapes(s(indices_or_sections=(2, 5), axis=0), tensor_t((7, 3))) == [
        (2, 3),
        (3, 3),
        (2, 3),
    ]
    assert split_shapes(s(indices_or_sections=(1,), axis=1), tensor_t((2, 4))) == [(2, 1), (2, 3)]
    assert split_shapes(s(indices_or_sections=(), axis=0), tensor_t((4,))) == [(4,)]
    assert split_shapes(s(indices_or_sections=(2,), axis=0), tensor_t((n,))) == [(2,), (n - 2,)]
    assert split_shapes(s(indices_or_sections=(2,), axis=0), tensor_t((ANY,))) == [(2,), (ANY,)]


@pytest.mark.parametrize(
    ("attrs", "data", "message"),
    [
        (
            SplitAttrs(indices_or_sections=4),
            tensor_t((6,)),
            "indices_or_sections=4 does not divide the extent 6 of dimension 0",
        ),
        (SplitAttrs(indices_or_sections=2), tensor_t((2 * n + 1,)), "into equal sections"),
        (
            SplitAttrs(indices_or_sections=0),
            tensor_t((6,)),
            "positive number of sections, found indices_or_sections=0",
        ),
        (
            SplitAttrs(indices_or_sections=(3, 2)),
            tensor_t((6,)),
            r"strictly from above 0, found indices_or_sections=\[3, 2\]",
        ),
        (SplitAttrs(indices_or_sections=(0, 2)), tensor_t((6,)), "strictly from above 0"),
        (SplitAttrs(indices_or_sections=(2, 2)), tensor_t((6,)), "strictly"),
        (
            SplitAttrs(indices_or_sections=(2, 6)),
            tensor_t((6,)),
            "below the extent 6 of dimension 0",
        ),
        (SplitAttrs(indices_or_sections=2, axis=2), tensor_t((2, 2)), "axis=2 is out of range"),
        (SplitAttrs(indices_or_sections=1), tensor_t(()), "rank at least 1 to split, found rank 0"),
    ],
)
def test_split_relation_errors(attrs: SplitAttrs, data: TensorType, message: str) -> None:
    with pytest.raises(RelationError, match=message):
        op_rel("split", attrs, data)


def test_split_reference() -> None:
    x = np.arange(7, dtype=np.uint16)
    pieces = op_ref("split", SplitAttrs(indices_or_sections=(2, 5)), x)
    assert isinstance(pieces, tuple)
    assert [p.tolist() for p in pieces] == [[0, 1], [2, 3, 4], [5, 6]]
    assert all(p.dtype == np.uint16 for p in pieces)
    y = np.arange(6).reshape(2, 3)
    cols = op_ref("split", SplitAttrs(indices_or_sections=3, axis=-1), y)
    assert isinstance(cols, tuple)
    assert [c.tolist() for c in cols] == [[[0], [3]], [[1], [4]], [[2], [5]]]
    with pytest.raises(UndefinedBehavior, match="split: at run time"):
        op_ref("split", SplitAttrs(indices_or_sections=2), np.zeros(5))


def test_expand_dims_relation() -> None:
    e = ExpandDimsAttrs
    assert shape_of("expand_dims", e(axis=0), tensor_t((2, 3))) == (1, 2, 3)
    assert shape_of("expand_dims", e(axis=2), tensor_t((2, 3))) == (2, 3, 1)
    assert shape_of("expand_dims", e(axis=1, num_newaxis=2), tensor_t((2, 3))) == (2, 1, 1, 3)
    assert shape_of("expand_dims", e(axis=-1), tensor_t((2, 3))) == (2, 3, 1)
    assert shape_of("expand_dims", e(axis=-3, num_newaxis=2), tensor_t((2, 3))) == (1, 1, 2, 3)
    assert shape_of("expand_dims", e(axis=1, num_newaxis=0), tensor_t((n, ANY))) == (n, ANY)
    assert shape_of("expand_dims", e(axis=0), tensor_t(())) == (1,)
    with pytest.raises(RelationError, match=r"axis=3 is out of range .* \(expected -3 <= axis"):
        op_rel("expand_dims", e(axis=3), tensor_t((2, 3)))
    with pytest.raises(RelationError, match="axis=-4 is out of range"):
        op_rel("expand_dims", e(axis=-4), tensor_t((2, 3)))
    with pytest.raises(RelationError, match="expected num_newaxis >= 0, found num_newaxis=-1"):
        op_rel("expand_dims", e(axis=0, num_newaxis=-1), tensor_t((2, 3)))


def test_expand_dims_reference() -> None:
    x = np.array([1, 2], dtype=np.int8)
    out = tensor_ref("expand_dims", ExpandDimsAttrs(axis=-1, num_newaxis=2), x)
    assert_same(out, [[[1]], [[2]]])


def test_squeeze_relation() -> None:
    sq = SqueezeAttrs
    assert shape_of("squeeze", sq(axis=None), tensor_t((1, 2, 1, 3))) == (2, 3)
    assert shape_of("squeeze", sq(axis=(0,)), tensor_t((1, 2, 1, 3))) == (2, 1, 3)
    assert shape_of("squeeze", sq(axis=(-2, 0)), tensor_t((1, 2, 1, 3))) == (2, 3)
    assert shape_of("squeeze", sq(axis=(0, 0)), tensor_t((1, 2))) == (2,)
    assert shape_of("squeeze", sq(axis=()), tensor_t((1, 2))) == (1, 2)
    assert shape_of("squeeze", sq(axis=None), tensor_t((1, 1))) == ()
    # A symbolic or unknown extent may be squeezed when named; it must be 1 at run time.
    assert shape_of("squeeze", sq(axis=(1, 2)), tensor_t((n, ANY, m))) == (n,)


@pytest.mark.parametrize(
    ("axis", "data", "message"),
    [
        (
            (1,),
            tensor_t((1, 2, 1)),
            r"axis=\[1\]: expected dimension 1 to squeeze to have extent 1, found 2",
        ),
        ((3,), tensor_t((1, 2, 1)), r"axis=\[3\]: 3 is out of range for a tensor of rank 3"),
        ((0, -4), tensor_t((1, 2, 1)), r"axis=\[0, -4\]: -4 is out of range"),
        (None, tensor_t((n, 1)), r"axis=None needs every dimension known, found \(n, 1\)"),
        (None, tensor_t((ANY, 1)), "needs every dimension known"),
    ],
)
def test_squeeze_relation_errors(
    axis: tuple[int, ...] | None, data: TensorType, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        op_rel("squeeze", SqueezeAttrs(axis=axis), data)


def test_squeeze_reference() -> None:
    x = np.arange(3, dtype=np.float16).reshape(1, 3, 1)
    assert_same(tensor_ref("squeeze", SqueezeAttrs(axis=None), x), [0, 1, 2])
    assert_same(tensor_ref("squeeze", SqueezeAttrs(axis=(-1,)), x), [[0, 1, 2]])
    with pytest.raises(
        UndefinedBehavior, match=r"squeeze: at run time, axis=\[1\]: expected dimension 1"
    ):
        op_ref("squeeze", SqueezeAttrs(axis=(1,)), x)


def test_broadcast_to_relation() -> None:
    b = InitOpAttrs
    assert op_rel("broadcast_to", b(shape=(2, 3)), tensor_t((3,), "int8")) == tensor_t(
        (2, 3), "int8"
    )
    assert shape_of("broadcast_to", b(shape=(4, 2, 3)), tensor_t((2, 1))) == (4, 2, 3)
    assert shape_of("broadcast_to", b(shape=(2, 0)), tensor_t((1,))) == (2, 0)
    assert shape_of("broadcast_to", b(shape=(2, 3)), tensor_t((ANY, 3))) == (2, 3)
    assert shape_of("broadcast_to", b(shape=(5,)), tensor_t(())) == (5,)
    # The dtype attribute is ignored (BroadCastToRel takes data's dtype).
    assert op_rel("broadcast_to", b(shape=(2,), dtype="int32"), tensor_t((1,))) == tensor_t((2,))


@pytest.mark.parametrize(
    ("data", "shape", "message"),
    [
        (tensor_t((3,)), (4,), r"to shape=\[4\]: dimensions 3 and 4 are incompatible"),
        (tensor_t((2, 3)), (3,), r"cannot broadcast \(2, 3\) to shape=\[3\]"),
        (tensor_t((3, 1)), (1, 3), r"cannot broadcast \(3, 1\) to shape=\[1, 3\]"),
        (tensor_t((2,)), (2, -1), r"expected non-negative dimensions, found shape=\[2, -1\]"),
        (tensor_t((2,)), None, "expected a shape, found shape=None"),
    ],
)
def test_broadcast_to_relation_errors(
    data: TensorType, shape: tuple[int, ...] | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        op_rel("broadcast_to", InitOpAttrs(shape=shape), data)


def test_broadcast_to_reference() -> None:
    x = np.array([[1], [2]], dtype=np.uint32)
    out = tensor_ref("broadcast_to", InitOpAttrs(shape=(2, 2, 3)), x)
    assert_same(out, [[[1, 1, 1], [2, 2, 2]]] * 2)
    with pytest.raises(UndefinedBehavior, match="broadcast_to: at run time"):
        op_ref("broadcast_to", InitOpAttrs(shape=(2, 3)), np.zeros((2, 2)))


@pytest.mark.parametrize(
    ("shape", "newshape", "allowzero"),
    [
        ((2, 3, 4), (4, 0, -1), False),
        ((2, 3, 4), (-1,), False),
        ((6, 2), (3, 2, 2), False),
        ((0, 3), (3, 0), True),
        ((2, 3, 4), (0, 0, -1), False),
    ],
)
def test_reshape_matches_onnxruntime(
    shape: tuple[int, ...], newshape: tuple[int, ...], allowzero: bool
) -> None:
    x = randn(*shape)
    (expected,) = run_onnx("Reshape", [x, ints(*newshape)], allowzero=int(allowzero))
    out = tensor_ref("reshape", ReshapeAttrs(newshape=newshape, allowzero=allowzero), x)
    assert_same(out, expected)


@pytest.mark.parametrize(
    ("shape", "axes"), [((2, 3, 4), None), ((2, 3, 4), (1, 2, 0)), ((5, 1, 2, 3), (3, 0, 2, 1))]
)
def test_transpose_matches_onnxruntime(
    shape: tuple[int, ...], axes: tuple[int, ...] | None
) -> None:
    x = randn(*shape)
    if axes is None:
        (expected,) = run_onnx("Transpose", [x])
    else:
        (expected,) = run_onnx("Transpose", [x], perm=list(axes))
    assert_same(tensor_ref("transpose", TransposeAttrs(axes=axes), x), expected)


@pytest.mark.parametrize(
    ("shapes", "axis"),
    [
        (((2, 3, 4), (1, 3, 4), (3, 3, 4)), 0),
        (((2, 1, 4), (2, 3, 4), (2, 2, 4)), 1),
        (((2, 3, 4), (2, 3, 1)), -1),
        (((2, 3, 4), (2, 3, 0)), 2),
    ],
)
def test_concatenate_matches_onnxruntime(shapes: tuple[tuple[int, ...], ...], axis: int) -> None:
    fields = [randn(*s) for s in shapes]
    (expected,) = run_onnx("Concat", fields, axis=axis)
    assert_same(tensor_ref("concatenate", ConcatenateAttrs(axis=axis), tuple(fields)), expected)


@pytest.mark.parametrize(
    ("shape", "split", "axis"),
    [((6, 4), 3, 0), ((2, 8), 4, -1), ((7, 3), (2, 5), 0), ((2, 9, 2), (1, 4, 8), 1)],
)
def test_split_matches_onnxruntime(
    shape: tuple[int, ...], split: int | tuple[int, ...], axis: int
) -> None:
    x = randn(*shape)
    extent = shape[axis]
    if isinstance(split, int):
        sizes = [extent // split] * split
    else:
        bounds = [0, *split, extent]
        sizes = [b - a for a, b in itertools.pairwise(bounds)]
    expected = run_onnx("Split", [x, ints(*sizes)], outputs=len(sizes), axis=axis)
    pieces = op_ref("split", SplitAttrs(indices_or_sections=split, axis=axis), x)
    assert isinstance(pieces, tuple)
    assert len(pieces) == len(expected)
    for piece, e in zip(pieces, expected, strict=True):
        assert_same(piece, e)


@pytest.mark.parametrize(
    ("shape", "axis", "num_newaxis"), [((2, 3), 0, 1), ((2, 3), -1, 2), ((4,), 1, 3), ((), 0, 1)]
)
def test_expand_dims_matches_onnxruntime(
    shape: tuple[int, ...], axis: int, num_newaxis: int
) -> None:
    x = randn(*shape)
    pivot = axis + len(shape) + 1 if axis < 0 else axis
    (expected,) = run_onnx("Unsqueeze", [x, ints(*range(pivot, pivot + num_newaxis))])
    out = tensor_ref("expand_dims", ExpandDimsAttrs(axis=axis, num_newaxis=num_newaxis), x)
    assert_same(out, expected)


@pytest.mark.parametrize(
    ("shape", "axis"), [((1, 3, 1, 2), None), ((1, 3, 1, 2), (0,)), ((1, 3, 1, 2), (-2, 0))]
)
def test_squeeze_matches_onnxruntime(shape: tuple[int, ...], axis: tuple[int, ...] | None) -> None:
    x = randn(*shape)
    inputs = [x] if axis is None else [x, ints(*axis)]
    (expected,) = run_onnx("Squeeze", inputs)
    assert_same(tensor_ref("squeeze", SqueezeAttrs(axis=axis), x), expected)


@pytest.mark.parametrize(
    ("shape", "target"), [((3,), (2, 3)), ((2, 1), (4, 2, 5)), ((), (2, 2)), ((1, 1), (1, 0))]
)
def test_broadcast_to_matches_onnxruntime_expand(
    shape: tuple[int, ...], target: tuple[int, ...]
) -> None:
    x = randn(*shape)
    (expected,) = run_onnx("Expand", [x, ints(*target)])
    assert_same(tensor_ref("broadcast_to", InitOpAttrs(shape=target), x), expected)


@pytest.mark.parametrize(
    ("shape", "count", "axis"),
    [((2, 3), 3, 0), ((2, 3), 2, 1), ((2, 3), 4, 2), ((2, 3), 2, -1), ((4,), 3, -2), ((), 2, 0)],
)
def test_stack_against_an_element_loop(shape: tuple[int, ...], count: int, axis: int) -> None:
    fields = tuple(RNG_NORMAL.integers(-100, 100, shape).astype(np.int16) for _ in range(count))
    pivot = axis + len(shape) + 1 if axis < 0 else axis
    out_shape = (*shape[:pivot], count, *shape[pivot:])
    expected = np.empty(out_shape, np.int16)
    for index in itertools.product(*(range(d) for d in out_shape)):
        k = index[pivot]
        expected[index] = fields[k][index[:pivot] + index[pivot + 1 :]]
    assert_same(tensor_ref("stack", StackAttrs(axis=axis), fields), expected)


@given(reshape_cases())
def test_reshape_agrees_with_relation(case: tuple[ReshapeAttrs, Tensor]) -> None:
    attrs, x = case
    check_agreement("reshape", attrs, x)
    out = tensor_ref("reshape", attrs, x)
    np.testing.assert_array_equal(out.reshape(-1), x.reshape(-1))


@given(shapes(), dtypes, seeds32, st.data())
def test_transpose_agrees_with_relation(
    shape: tuple[int, ...], dtype: str, seed: int, data: st.DataObject
) -> None:
    ndim = len(shape)
    axes = None
    if data.draw(st.booleans()):
        perm = data.draw(st.permutations(range(ndim)))
        axes = tuple(p - ndim if data.draw(st.booleans()) else p for p in perm)
    check_agreement("transpose", TransposeAttrs(axes=axes), array(shape, dtype, seed))


@given(shapes(min_rank=1), dtypes, seeds32, st.data())
def test_concatenate_agrees_with_relation(
    shape: tuple[int, ...], dtype: str, seed: int, data: st.DataObject
) -> None:
    ndim = len(shape)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    count = data.draw(st.integers(1, 3))
    extents = data.draw(st.lists(st.integers(0, 3), min_size=count, max_size=count))
    fields = []
    for k, e in enumerate(extents):
        s = list(shape)
        s[axis] = e
        fields.append(array(s, dtype, seed + k))
    check_agreement("concatenate", ConcatenateAttrs(axis=axis), tuple(fields))


@given(shapes(), dtypes, seeds32, st.data())
def test_stack_agrees_with_relation(
    shape: tuple[int, ...], dtype: str, seed: int, data: st.DataObject
) -> None:
    ndim = len(shape)
    axis = data.draw(st.integers(-(ndim + 1), ndim))
    count = data.draw(st.integers(1, 3))
    fields = tuple(array(shape, dtype, seed + k) for k in range(count))
    check_agreement("stack", StackAttrs(axis=axis), fields)


@given(shapes(min_rank=1), dtypes, seeds32, st.data())
def test_split_agrees_with_relation(
    shape: tuple[int, ...], dtype: str, seed: int, data: st.DataObject
) -> None:
    ndim = len(shape)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    extent = shape[axis]
    split: int | tuple[int, ...]
    if extent > 0 and data.draw(st.booleans()):
        chosen = data.draw(st.sets(st.integers(1, extent - 1), max_size=3)) if extent > 1 else set()
        split = tuple(sorted(chosen))
    else:
        split = data.draw(st.sampled_from([k for k in range(1, 5) if extent % k == 0]))
    check_agreement(
        "split", SplitAttrs(indices_or_sections=split, axis=axis), array(shape, dtype, seed)
    )


@given(shapes(), dtypes, seeds32, st.data())
def test_expand_dims_agrees_with_relation(
    shape: tuple[int, ...], dtype: str, seed: int, data: st.DataObject
) -> None:
    ndim = len(shape)
    axis = data.draw(st.integers(-ndim - 1, ndim))
    num = data.draw(st.integers(0, 2))
    attrs = ExpandDimsAttrs(axis=axis, num_newaxis=num)
    check_agreement("expand_dims", attrs, array(shape, dtype, seed))


@given(shapes(), dtypes, seeds32, st.data())
def test_squeeze_agrees_with_relation(
    shape: tuple[int, ...], dtype: str, seed: int, data: st.DataObject
) -> None:
    shape = tuple(1 if data.draw(st.booleans()) else d for d in shape)
    ndim = len(shape)
    axis = None
    units = [i for i, d in enumerate(shape) if d == 1]
    if data.draw(st.booleans()):
        chosen = data.draw(st.lists(st.sampled_from(units), max_size=3)) if units else []
        axis = tuple(a - ndim if data.draw(st.booleans()) else a for a in chosen)
    check_agreement("squeeze", SqueezeAttrs(axis=axis), array(shape, dtype, seed))


@given(shapes(), dtypes, seeds32, st.data())
def test_broadcast_to_agrees_with_relation(
    shape: tuple[int, ...], dtype: str, seed: int, data: st.DataObject
) -> None:
    target = [data.draw(st.integers(0, 3)) if d == 1 else d for d in shape]
    target = data.draw(st.lists(st.integers(0, 3), max_size=2)) + target
    attrs = InitOpAttrs(shape=tuple(target))
    check_agreement("broadcast_to", attrs, array(shape, dtype, seed))
