"""The ``index`` operators (``semantics/ops/index.py``): relations, references, checks."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from ops_helpers import (
    FAST,
    a,
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
    tref,
    typ,
)

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.index import (
    GatherAttrs,
    GatherNDAttrs,
    OneHotAttrs,
    ScatterElementsAttrs,
    ScatterNDAttrs,
    SequenceMaskAttrs,
    SliceLikeAttrs,
    SparseToDenseAttrs,
    StridedSliceAttrs,
    TakeAttrs,
)
from relay.semantics.ops.registry import Attrs, OpPattern, RelationError, Tensor
from relay.semantics.syntax import ANY, TensorType

OPS_HERE = {
    "slice_like": ("SliceLike", OpPattern.INJECTIVE),
}


FAMILY = {
    "take": "Take",
    "strided_slice": "StridedSlice",
}


RNG = np.random.default_rng(7)


NAMES = (
    "gather",
    "gather_nd",
    "scatter_elements",
    "scatter_nd",
    "one_hot",
    "unravel_index",
    "sparse_to_dense",
    "sequence_mask",
    "invert_permutation",
)


def same(actual: Tensor, expected: Tensor) -> None:
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_array_equal(actual, expected)


def one_hot(depth: int, axis: int = -1, dtype: str = "float32") -> OneHotAttrs:
    return OneHotAttrs.from_kwargs({"depth": depth, "axis": axis, "dtype": dtype})  # type: ignore[return-value]


def std(shape: tuple[int, ...]) -> SparseToDenseAttrs:
    return SparseToDenseAttrs.from_kwargs({"output_shape": shape})  # type: ignore[return-value]


def ref_checked(op: str, attrs: Attrs | None, *args: object) -> Tensor:
    reference = OPS[op].reference
    assert reference is not None
    out = reference(tuple(args), attrs)  # type: ignore[arg-type]
    assert isinstance(out, np.ndarray)
    t = op_rel(op, attrs, *(typ(a) for a in args))
    assert isinstance(t, TensorType)
    assert out.shape == t.shape and out.dtype == np.dtype(t.dtype)
    return out


def slice_attrs(
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] = (),
    axes: Sequence[int] | None = None,
    slice_mode: str = "end",
) -> StridedSliceAttrs:
    return StridedSliceAttrs(
        begin=tuple(begin),
        end=tuple(end),
        strides=tuple(strides),
        slice_mode=slice_mode,
        axes=None if axes is None else tuple(axes),
    )


RNG_NORMAL = np.random.default_rng(20240518)


def randn(*shape: int, dtype: str = "float32") -> Tensor:
    return RNG_NORMAL.standard_normal(shape).astype(dtype)


INDEX_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def shapes(
    min_rank: int = 0, max_rank: int = 4, min_dim: int = 0
) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(min_dim, 4), min_size=min_rank, max_size=max_rank).map(tuple)


def test_gather_relation() -> None:
    attrs = GatherAttrs.from_kwargs({"axis": -1})
    assert op_rel("gather", attrs, tensor_t((2, 3)), tensor_t((2, 5), "int32")) == tensor_t((2, 5))
    assert op_rel("gather", attrs, tensor_t((n, 3)), tensor_t((n, 1), "int64")) == tensor_t((n, 1))
    bad("gather", attrs, "signed integer", tensor_t((2, 3)), tensor_t((2, 5), "uint8"))
    bad("gather", attrs, "rank 2 of data", tensor_t((2, 3)), tensor_t((2,), "int32"))
    bad("gather", attrs, "extent 2", tensor_t((2, 3)), tensor_t((4, 3), "int32"))
    bad("gather", attrs, ">= 1 on axis 1", tensor_t((2, 3)), tensor_t((2, 0), "int32"))
    bad(
        "gather",
        GatherAttrs.from_kwargs({"axis": 2}),
        "axis=2 is out of range",
        tensor_t((2, 3)),
        tensor_t((2, 3), "int32"),
    )
    bad(
        "gather",
        GatherAttrs(),
        "axis attribute, found None",
        tensor_t((2,)),
        tensor_t((2,), "int32"),
    )


def test_gather_reference_and_out_of_range() -> None:
    data = a([[1, 2], [3, 4]], "float32")
    got = tref("gather", GatherAttrs.from_kwargs({"axis": 1}), data, a([[0, 0], [1, 0]]))
    same(got, a([[1, 1], [4, 3]], "float32"))
    with pytest.raises(UndefinedBehavior, match="index -1"):
        op_ref("gather", GatherAttrs.from_kwargs({"axis": 0}), data, a([[-1, 0]]))


@pytest.mark.parametrize("shape,axis", [((3, 4), 0), ((2, 3, 4), 2), ((5,), 0), ((2, 2, 3), -2)])
def test_gather_matches_onnxruntime(shape: tuple[int, ...], axis: int) -> None:
    data = RNG.standard_normal(shape).astype(np.float32)
    ishape = list(shape)
    ishape[axis] = 3
    indices = RNG.integers(0, shape[axis], ishape).astype(np.int64)
    want = onnx_run("GatherElements", [data, indices], axis=axis)
    same(tref("gather", GatherAttrs.from_kwargs({"axis": axis}), data, indices), want)


def test_gather_nd_relation() -> None:
    attrs = GatherNDAttrs()
    assert op_rel("gather_nd", attrs, tensor_t((2, 3, 4)), tensor_t((2, 5), "int32")) == tensor_t(
        (5, 4)
    )
    batch = GatherNDAttrs.from_kwargs({"batch_dims": 1})
    assert op_rel(
        "gather_nd", batch, tensor_t((n, 3, 4)), tensor_t((1, n, 2), "int32")
    ) == tensor_t((n, 2, 4))
    bad("gather_nd", attrs, "known first extent", tensor_t((2, 3)), tensor_t((ANY, 2), "int32"))
    bad(
        "gather_nd",
        attrs,
        "plus batch_dims 0 at most the rank 2",
        tensor_t((2, 3)),
        tensor_t((3, 1), "int32"),
    )
    bad("gather_nd", batch, "equal batch extents", tensor_t((2, 3)), tensor_t((1, 3), "int32"))
    bad("gather_nd", attrs, "rank >= 1", tensor_t((2, 3)), tensor_t((), "int32"))
    bad("gather_nd", attrs, "integer dtype", tensor_t((2, 3)), tensor_t((1,), "float32"))


def test_gather_nd_reference() -> None:
    data = a([[1, 2], [3, 4]], "int32")
    same(tref("gather_nd", GatherNDAttrs(), data, a([[1, 0], [0, 1]])), a([3, 2], "int32"))
    same(tref("gather_nd", GatherNDAttrs(), data, a([[1]])), a([[3, 4]], "int32"))
    with pytest.raises(UndefinedBehavior, match="index 2"):
        op_ref("gather_nd", GatherNDAttrs(), data, a([[2]]))


@pytest.mark.parametrize(
    "dshape,m,ys,batch", [((3, 4), 2, (5,), 0), ((3, 4, 2), 1, (2, 2), 0), ((2, 3, 4), 1, (2,), 1)]
)
def test_gather_nd_matches_onnxruntime(
    dshape: tuple[int, ...], m: int, ys: tuple[int, ...], batch: int
) -> None:
    data = RNG.standard_normal(dshape).astype(np.float32)
    rows = [RNG.integers(0, dshape[batch + j], ys) for j in range(m)]
    indices = np.stack(rows).astype(np.int64)
    # ONNX puts the index tuple last: (Y..., M).
    want = onnx_run("GatherND", [data, np.moveaxis(indices, 0, -1)], batch_dims=batch)
    attrs = GatherNDAttrs.from_kwargs({"batch_dims": batch})
    same(tref("gather_nd", attrs, data, indices), want)


def test_scatter_elements_relation() -> None:
    attrs = ScatterElementsAttrs()
    assert op_rel(
        "scatter_elements", attrs, tensor_t((3, 3)), tensor_t((2, 3), "int32"), tensor_t((2, 3))
    ) == tensor_t((3, 3))
    bad(
        "scatter_elements",
        attrs,
        "one rank",
        tensor_t((3, 3)),
        tensor_t((3,), "int32"),
        tensor_t((3,)),
    )
    bad(
        "scatter_elements",
        attrs,
        "shape of indices",
        tensor_t((3,)),
        tensor_t((2,), "int32"),
        tensor_t((3,)),
    )
    bad(
        "scatter_elements",
        attrs,
        "updates of dtype float32",
        tensor_t((3,)),
        tensor_t((2,), "int32"),
        tensor_t((2,), "int32"),
    )
    bad(
        "scatter_elements",
        attrs,
        "exceeds data's 3 on axis 1",
        tensor_t((3, 3)),
        tensor_t((1, 4), "int32"),
        tensor_t((1, 4)),
    )
    mean = ScatterElementsAttrs.from_kwargs({"reduction": "mean"})
    bad(
        "scatter_elements",
        mean,
        'found "mean"',
        tensor_t((3,)),
        tensor_t((2,), "int32"),
        tensor_t((2,)),
    )


def test_scatter_elements_reference() -> None:
    data = a([1, 2, 3, 4], "float32")
    attrs = ScatterElementsAttrs()
    same(
        tref("scatter_elements", attrs, data, a([3, -4]), a([9, 8], "float32")),
        a([8, 2, 3, 9], "float32"),
    )
    add = ScatterElementsAttrs.from_kwargs({"reduction": "add"})
    same(
        tref("scatter_elements", add, data, a([1, 1]), a([5, 6], "float32")),
        a([1, 13, 3, 4], "float32"),
    )
    with pytest.raises(UndefinedBehavior, match="two updates"):
        op_ref("scatter_elements", attrs, data, a([1, 1]), a([5, 6], "float32"))
    with pytest.raises(UndefinedBehavior, match="index 4"):
        op_ref("scatter_elements", attrs, data, a([4]), a([5], "float32"))
    bools = ScatterElementsAttrs.from_kwargs({"reduction": "add"})
    same(
        tref("scatter_elements", bools, a([True], "bool"), a([0]), a([True], "bool")),
        a([False], "bool"),
    )


@pytest.mark.parametrize("reduction", ["update", "add", "mul", "min", "max"])
@pytest.mark.parametrize("shape,axis", [((4, 3), 0), ((2, 5), 1), ((3, 2, 4), -1)])
def test_scatter_elements_matches_onnxruntime(
    reduction: str, shape: tuple[int, ...], axis: int
) -> None:
    data = RNG.standard_normal(shape).astype(np.float32)
    ishape = list(shape)
    extent = shape[axis]
    ishape[axis] = 2
    if reduction == "update":
        # Distinct positions along the axis in every line.
        line = RNG.permutation(extent)[:2].reshape(
            [-1 if i == axis % len(shape) else 1 for i in range(len(shape))]
        )
        indices = np.broadcast_to(line, ishape).astype(np.int64)
    else:
        indices = RNG.integers(-extent, extent, ishape).astype(np.int64)
    updates = RNG.standard_normal(ishape).astype(np.float32)
    onnx_reduction = "none" if reduction == "update" else reduction
    want = onnx_run(
        "ScatterElements", [data, indices, updates], opset=18, axis=axis, reduction=onnx_reduction
    )
    attrs = ScatterElementsAttrs.from_kwargs({"axis": axis, "reduction": reduction})
    np.testing.assert_allclose(
        tref("scatter_elements", attrs, data, indices, updates), want, rtol=1e-6
    )


def test_scatter_nd_relation() -> None:
    attrs = ScatterNDAttrs()
    assert op_rel(
        "scatter_nd", attrs, tensor_t((3, 4)), tensor_t((1, 2), "int32"), tensor_t((2, 4))
    ) == tensor_t((3, 4))
    bad(
        "scatter_nd",
        attrs,
        r"updates of shape \(2, 4\)",
        tensor_t((3, 4)),
        tensor_t((1, 2), "int32"),
        tensor_t((2, 3)),
    )
    bad(
        "scatter_nd",
        attrs,
        "at most the rank 2",
        tensor_t((3, 4)),
        tensor_t((3, 2), "int32"),
        tensor_t((2,)),
    )
    bad(
        "scatter_nd",
        ScatterNDAttrs.from_kwargs({"mode": "sub"}),
        'found "sub"',
        tensor_t((3,)),
        tensor_t((1, 1), "int32"),
        tensor_t((1,)),
    )


def test_scatter_nd_reference() -> None:
    data = a([[0, 0], [0, 0]], "int32")
    got = tref("scatter_nd", ScatterNDAttrs(), data, a([[1], [0]]), a([7], "int32"))
    same(got, a([[0, 0], [7, 0]], "int32"))
    add = ScatterNDAttrs.from_kwargs({"mode": "add"})
    same(
        tref("scatter_nd", add, data, a([[1, 1]]), a([[5, 6], [1, 1]], "int32")),
        a([[0, 0], [6, 7]], "int32"),
    )
    with pytest.raises(UndefinedBehavior, match="overflow"):
        op_ref("scatter_nd", add, a([2**31 - 1], "int32"), a([[0]]), a([1], "int32"))


@pytest.mark.parametrize("mode", ["update", "add", "mul", "min", "max"])
@pytest.mark.parametrize("dshape,m,count", [((4, 3), 1, 2), ((3, 4), 2, 3), ((2, 3, 2), 2, 4)])
def test_scatter_nd_matches_onnxruntime(
    mode: str, dshape: tuple[int, ...], m: int, count: int
) -> None:
    data = RNG.standard_normal(dshape).astype(np.float32)
    total = math.prod(dshape[:m])
    flat = RNG.permutation(total)[:count] if mode == "update" else RNG.integers(0, total, count)
    indices = np.stack(np.unravel_index(flat, dshape[:m])).astype(np.int64)
    updates = RNG.standard_normal((count, *dshape[m:])).astype(np.float32)
    onnx_mode = "none" if mode == "update" else mode
    want = onnx_run("ScatterND", [data, indices.T.copy(), updates], opset=18, reduction=onnx_mode)
    attrs = ScatterNDAttrs.from_kwargs({"mode": mode})
    np.testing.assert_allclose(tref("scatter_nd", attrs, data, indices, updates), want, rtol=1e-6)


def test_one_hot_relation() -> None:
    s = tensor_t(())
    assert op_rel("one_hot", one_hot(4), tensor_t((2, 3), "int32"), s, s) == tensor_t((2, 3, 4))
    assert op_rel("one_hot", one_hot(4, 0, "int8"), tensor_t((n,), "int32"), s, s) == tensor_t(
        (4, n), "int8"
    )
    bad("one_hot", one_hot(0), "depth >= 1", tensor_t((2,), "int32"), s, s)
    bad("one_hot", one_hot(2, 3), r"out of range \[-1, 1\]", tensor_t((2,), "int32"), s, s)
    bad("one_hot", one_hot(2), "scalar on_value", tensor_t((2,), "int32"), tensor_t((1,)), s)
    bad("one_hot", OneHotAttrs(), 'dtype attribute, found ""', tensor_t((2,), "int32"), s, s)
    bad("one_hot", one_hot(2), "integer dtype for indices", tensor_t((2,)), s, s)


def test_one_hot_reference() -> None:
    got = tref(
        "one_hot", one_hot(3, 0, "int32"), a([2, -1, 3]), a(5.9, "float32"), a(-1.5, "float32")
    )
    same(got, a([[-1, -1, -1], [-1, -1, -1], [5, -1, -1]], "int32"))
    with pytest.raises(UndefinedBehavior, match="poison"):
        op_ref("one_hot", one_hot(3, -1, "uint8"), a([0]), a(-1.0, "float32"), a(0.0, "float32"))


@pytest.mark.parametrize("shape,depth,axis", [((5,), 4, -1), ((2, 3), 3, 0), ((2, 3), 5, 1)])
def test_one_hot_matches_onnxruntime(shape: tuple[int, ...], depth: int, axis: int) -> None:
    # Non-negative indices only: ONNX wraps negative ones, TVM matches nothing.
    indices = RNG.integers(0, depth + 2, shape).astype(np.int64)
    on, off = np.float32(2.5), np.float32(-1.0)
    want = onnx_run(
        "OneHot",
        [indices, np.asarray(depth, np.int64), np.asarray([off, on])],
        axis=axis,
        out_dtype="float32",
    )
    got = tref("one_hot", one_hot(depth, axis), indices, np.asarray(on), np.asarray(off))
    same(got, want)


def test_unravel_index_relation_and_reference() -> None:
    assert op_rel(
        "unravel_index", None, tensor_t((3,), "int32"), tensor_t((2,), "int64")
    ) == tensor_t((2, 3), "int32")
    assert op_rel(
        "unravel_index", None, tensor_t((), "int64"), tensor_t((n,), "int64")
    ) == tensor_t((n,), "int64")
    bad("unravel_index", None, "shape vector", tensor_t((3,), "int32"), tensor_t((), "int32"))
    bad("unravel_index", None, "rank 0 or 1", tensor_t((3, 1), "int32"), tensor_t((2,), "int32"))
    bad("unravel_index", None, "integer dtype for data", tensor_t((3,)), tensor_t((2,), "int32"))
    same(
        tref("unravel_index", None, a([22, 41, 37], "int32"), a([7, 6])),
        a([[3, 6, 6], [4, 5, 1]], "int32"),
    )
    with pytest.raises(UndefinedBehavior, match="outside"):
        op_ref("unravel_index", None, a([42], "int32"), a([7, 6]))


def test_unravel_index_matches_numpy_unravel_index() -> None:
    for dims in [(7, 6), (2, 3, 4), (5,), (1, 3, 1, 2)]:
        flat = RNG.integers(0, math.prod(dims), 9).astype(np.int64)
        want = np.stack(np.unravel_index(flat, dims)).astype(np.int64)
        same(tref("unravel_index", None, flat, a(dims)), want)


def test_sparse_to_dense_relation() -> None:
    s = tensor_t((), "float32")
    assert op_rel(
        "sparse_to_dense", std((3, 4)), tensor_t((2, 2), "int32"), tensor_t((2,)), s
    ) == tensor_t((3, 4))
    assert op_rel(
        "sparse_to_dense", std((5,)), tensor_t((n,), "int32"), tensor_t(()), s
    ) == tensor_t((5,))
    bad(
        "sparse_to_dense",
        std((3, 4)),
        "tuples of size 2",
        tensor_t((2, 3), "int32"),
        tensor_t((2,)),
        s,
    )
    bad(
        "sparse_to_dense",
        std((3, 4)),
        "expected 2 sparse_values",
        tensor_t((2, 2), "int32"),
        tensor_t((3,)),
        s,
    )
    bad(
        "sparse_to_dense",
        std((3,)),
        "default_value of dtype float32",
        tensor_t((2,), "int32"),
        tensor_t((2,)),
        tensor_t((), "int32"),
    )
    bad("sparse_to_dense", std((-1,)), "non-negative", tensor_t((2,), "int32"), tensor_t((2,)), s)


def test_sparse_to_dense_reference() -> None:
    got = tref(
        "sparse_to_dense",
        std((3, 4)),
        a([[0, 0], [1, 2]], "int32"),
        a([1, 2], "int32"),
        a(0, "int32"),
    )
    same(got, a([[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]], "int32"))
    with pytest.raises(UndefinedBehavior, match="two updates"):
        op_ref("sparse_to_dense", std((3,)), a([1, 1], "int32"), a(5, "int32"), a(0, "int32"))
    with pytest.raises(UndefinedBehavior, match="index 3"):
        op_ref("sparse_to_dense", std((3,)), a([3], "int32"), a(5, "int32"), a(0, "int32"))


def test_sparse_to_dense_matches_a_dense_mask() -> None:
    for shape in [(4, 5), (6,), (2, 3, 2)]:
        total = math.prod(shape)
        flat = RNG.permutation(total)[: total // 2]
        rows = np.stack(np.unravel_index(flat, shape), axis=1).astype(np.int64)
        values = RNG.standard_normal(len(flat)).astype(np.float32)
        mask = np.zeros(total, dtype=bool)
        mask[flat] = True
        dense = np.full(total, np.float32(-7.0), dtype=np.float32)
        dense[np.flatnonzero(mask)] = values[np.argsort(flat)]
        got = tref("sparse_to_dense", std(shape), rows, values, a(-7.0, "float32"))
        same(got, dense.reshape(shape))


def test_sequence_mask_relation_and_reference() -> None:
    attrs = SequenceMaskAttrs()
    assert op_rel("sequence_mask", attrs, tensor_t((3, 2, 4)), tensor_t((2,), "int32")) == tensor_t(
        (3, 2, 4)
    )
    bad(
        "sequence_mask",
        attrs,
        r"valid_length of shape \(2\)",
        tensor_t((3, 2)),
        tensor_t((3,), "int32"),
    )
    bad(
        "sequence_mask",
        SequenceMaskAttrs.from_kwargs({"axis": 2}),
        "axis 0 or 1",
        tensor_t((3, 2)),
        tensor_t((2,), "int32"),
    )
    bad("sequence_mask", attrs, "rank >= 2", tensor_t((3,)), tensor_t((3,), "int32"))
    x = a([[1, 2], [3, 4], [5, 6]], "float32")
    masked = SequenceMaskAttrs.from_kwargs({"mask_value": 0.5})
    same(
        tref("sequence_mask", masked, x, a([1, 3], "int32")),
        a([[1, 2], [0.5, 4], [0.5, 6]], "float32"),
    )
    ints = SequenceMaskAttrs.from_kwargs({"mask_value": -1.7, "axis": 1})
    same(
        tref("sequence_mask", ints, a([[1, 2], [3, 4]], "int8"), a([0, 1])),
        a([[-1, -1], [3, -1]], "int8"),
    )


@pytest.mark.parametrize("axis", [0, 1])
def test_sequence_mask_matches_a_loop(axis: int) -> None:
    x = RNG.standard_normal((4, 3, 2)).astype(np.float64)
    batch = x.shape[1 - axis]
    lengths = RNG.integers(-1, 6, batch).astype(np.int32)
    attrs = SequenceMaskAttrs.from_kwargs({"axis": axis, "mask_value": 9.0})
    want = x.copy()
    for pos in itertools.product(*map(range, x.shape)):
        step, b = (pos[0], pos[1]) if axis == 0 else (pos[1], pos[0])
        if step >= lengths[b]:
            want[pos] = 9.0
    same(tref("sequence_mask", attrs, x, lengths), want)


def test_invert_permutation() -> None:
    assert op_rel("invert_permutation", None, tensor_t((n,), "int32")) == tensor_t((n,), "int32")
    bad("invert_permutation", None, "rank 1", tensor_t((2, 2), "int32"))
    bad("invert_permutation", None, "integer dtype", tensor_t((2,)))
    same(tref("invert_permutation", None, a([3, 4, 0, 2, 1], "int32")), a([2, 4, 3, 0, 1], "int32"))
    with pytest.raises(UndefinedBehavior, match="not a permutation"):
        op_ref("invert_permutation", None, a([0, 0], "int32"))
    for size in (1, 4, 9):
        perm = RNG.permutation(size).astype(np.int64)
        same(tref("invert_permutation", None, perm), np.argsort(perm).astype(np.int64))


@pytest.mark.parametrize("name", of_family(sorted({*NAMES, *OPS_HERE, *FAMILY}), "index"))
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


def test_slice_like() -> None:
    assert op_rel(
        "slice_like", SliceLikeAttrs(axes=None), tensor_t((4, 5, 6)), tensor_t((2, 3))
    ) == tensor_t((2, 3, 6))
    assert op_rel(
        "slice_like", SliceLikeAttrs(axes=(-1,)), tensor_t((4, 5, 6)), tensor_t((1, 1, 2))
    ) == tensor_t((4, 5, 2))
    assert op_rel(
        "slice_like", SliceLikeAttrs(axes=None), tensor_t((n, 5)), tensor_t((3, 2))
    ) == tensor_t((3, 2))
    same_values(
        ref_checked("slice_like", SliceLikeAttrs(axes=(1,)), arange(2, 3), np.zeros((1, 2))),
        [[0, 1], [3, 4]],
    )
    with pytest.raises(RelationError, match="the extent 5 of shape_like exceeds data's extent 4"):
        op_rel("slice_like", SliceLikeAttrs(axes=None), tensor_t((4,)), tensor_t((5,)))
    with pytest.raises(RelationError, match="exceeds data's extent n"):
        op_rel("slice_like", SliceLikeAttrs(axes=None), tensor_t((n,)), tensor_t((n + 1,)))
    with pytest.raises(RelationError, match=r"expected at least one axis in axes, found \(\)"):
        op_rel("slice_like", SliceLikeAttrs(axes=()), tensor_t((4,)), tensor_t((2,)))
    with pytest.raises(RelationError, match=r"axes=\[.*\]: 1 is out of range for shape_like"):
        op_rel("slice_like", SliceLikeAttrs(axes=(1,)), tensor_t((4, 4)), tensor_t((2,)))


@FAST
@given(small_shapes, seeds, st.data())
def test_slice_like_matches_onnxruntime(
    shape: tuple[int, ...], seed: int, data: st.DataObject
) -> None:
    like = tuple(data.draw(st.integers(0, d)) for d in shape)
    x = rand(shape, seed)
    ends = np.array(like, dtype=np.int64)
    expected = onnx_run("Slice", [x, np.zeros_like(ends), ends])
    out = ref_checked("slice_like", SliceLikeAttrs(axes=None), x, np.zeros(like, "float32"))
    np.testing.assert_array_equal(out, expected)


def test_take_relation() -> None:
    t = TakeAttrs
    data, idx = tensor_t((4, 5, 6)), tensor_t((2, 3), "int32")
    assert op_rel("take", t(), data, idx) == tensor_t((2, 3))
    assert shape_of("take", t(axis=0), data, idx) == (2, 3, 5, 6)
    assert shape_of("take", t(axis=1), data, idx) == (4, 2, 3, 6)
    assert shape_of("take", t(axis=-1), data, idx) == (4, 5, 2, 3)
    assert shape_of("take", t(axis=1), data, tensor_t((), "int64")) == (4, 6)
    assert shape_of(
        "take", t(axis=2, batch_dims=1), tensor_t((4, 5, 6)), tensor_t((4, 7), "int8")
    ) == (4, 5, 7)
    assert shape_of(
        "take", t(axis=1, batch_dims=1), tensor_t((4, 5, 6)), tensor_t((4, 7), "uint8")
    ) == (4, 7, 6)
    assert shape_of(
        "take", t(axis=2, batch_dims=2), tensor_t((4, 5, 6)), tensor_t((4, 5), "int32")
    ) == (4, 5)
    assert shape_of("take", t(axis=0), tensor_t((n, m)), tensor_t((ANY,), "int64")) == (ANY, m)
    # batch_dims is ignored by the flattened take; bool indices are uint(1) to TVM.
    assert shape_of("take", t(batch_dims=5), data, tensor_t((2,), "bool")) == (2,)
    for mode in ("clip", "wrap", "fast"):
        assert shape_of("take", t(axis=0, mode=mode), data, idx) == (2, 3, 5, 6)


@pytest.mark.parametrize(
    ("attrs", "indices", "message"),
    [
        (TakeAttrs(axis=0), tensor_t((2,), "float32"), "integer dtype for indices, found float32"),
        (
            TakeAttrs(axis=3),
            tensor_t((2,), "int32"),
            "axis=3 is out of range for a tensor of rank 3",
        ),
        (TakeAttrs(axis=-4), tensor_t((2,), "int32"), "axis=-4 is out of range"),
        (
            TakeAttrs(axis=1, batch_dims=2),
            tensor_t((4, 5), "int32"),
            r"batch_dims at most the axis 1, found batch_dims=2 \(axis=1\)",
        ),
        (TakeAttrs(axis=2, batch_dims=2), tensor_t((4,), "int32"), "at most the rank 1 of indices"),
        (
            TakeAttrs(axis=1, batch_dims=-1),
            tensor_t((4, 5), "int32"),
            "batch_dims >= 0, found batch_dims=-1",
        ),
        (TakeAttrs(axis=1, batch_dims=1), tensor_t((3, 7), "int32"), "4 in data and 3 in indices"),
        (
            TakeAttrs(axis=0, mode="nearest"),
            tensor_t((2,), "int32"),
            'mode "clip", .* found mode="nearest"',
        ),
    ],
)
def test_take_relation_errors(attrs: TakeAttrs, indices: TensorType, message: str) -> None:
    with pytest.raises(RelationError, match=message):
        op_rel("take", attrs, tensor_t((4, 5, 6)), indices)


def test_take_reference_flattened() -> None:
    a = np.array([[1, 2], [3, 4]], dtype=np.int32)
    # TVM's documented example.
    assert_same(tensor_ref("take", TakeAttrs(), a, np.array([3, 0, 2])), [4, 1, 3])
    out = tensor_ref("take", TakeAttrs(), a, np.array(2, dtype=np.int8))
    assert_same(out, 3)
    assert out.ndim == 0


def test_take_reference_axis() -> None:
    a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    # TVM's documented example.
    assert_same(tensor_ref("take", TakeAttrs(axis=1), a, np.array([1, 0])), [[2, 1], [4, 3]])
    assert_same(
        tensor_ref("take", TakeAttrs(axis=0), a, np.array([[1], [0]])), [[[3, 4]], [[1, 2]]]
    )


def test_take_reference_modes() -> None:
    x = np.array([10, 11, 12, 13], dtype=np.int64)
    idx = np.array([-5, -1, 0, 3, 4, 9], dtype=np.int32)
    clip = tensor_ref("take", TakeAttrs(axis=0, mode="clip"), x, idx)
    assert_same(clip, [10, 10, 10, 13, 13, 13])
    wrap = tensor_ref("take", TakeAttrs(axis=0, mode="wrap"), x, idx)
    assert_same(wrap, [13, 13, 10, 13, 10, 11])
    fast = tensor_ref("take", TakeAttrs(axis=0, mode="fast"), x, np.array([3, 0, 2]))
    assert_same(fast, [13, 10, 12])
    big = np.array([2**64 - 1, 5], dtype=np.uint64)
    assert_same(tensor_ref("take", TakeAttrs(axis=0, mode="clip"), x, big), [13, 13])
    assert_same(tensor_ref("take", TakeAttrs(axis=0, mode="wrap"), x, big), [13, 11])
    assert_same(tensor_ref("take", TakeAttrs(mode="wrap"), x, np.array([True])), [11])


def test_take_reference_batch_dims() -> None:
    data = np.arange(24).reshape(2, 3, 4)
    idx = np.array([[0, 3], [2, 1]])
    out = tensor_ref("take", TakeAttrs(axis=2, batch_dims=1), data, idx)
    assert_same(out, [[[0, 3], [4, 7], [8, 11]], [[14, 13], [18, 17], [22, 21]]])
    out = tensor_ref("take", TakeAttrs(axis=1, batch_dims=1), data, np.array([[2], [0]]))
    assert_same(out, [[[8, 9, 10, 11]], [[12, 13, 14, 15]]])
    # out[b, i, j] = data[b, i, idx[b, j]], written out with loops.
    idx3 = np.array([[3, 0, 1], [1, 1, 2]])
    out = tensor_ref("take", TakeAttrs(axis=2, batch_dims=1, mode="wrap"), data, idx3 - 4)
    expected = np.array(
        [[[data[b, i, idx3[b, j]] for j in range(3)] for i in range(3)] for b in range(2)]
    )
    assert_same(out, expected)


def test_take_undefined_cases() -> None:
    x = np.arange(4, dtype=np.float32)
    with pytest.raises(UndefinedBehavior, match='mode "fast" and index 4 outside'):
        op_ref("take", TakeAttrs(axis=0, mode="fast"), x, np.array([1, 4]))
    with pytest.raises(UndefinedBehavior, match='mode "fast" and index -1 outside'):
        op_ref("take", TakeAttrs(mode="fast"), x, np.array([-1]))
    with pytest.raises(UndefinedBehavior, match="extent 0"):
        op_ref("take", TakeAttrs(axis=1), np.zeros((2, 0)), np.array([0]))
    with pytest.raises(UndefinedBehavior, match="empty tensor"):
        op_ref("take", TakeAttrs(mode="wrap"), np.zeros((0,)), np.array([0]))
    # Nothing is read when the result is empty.
    assert tensor_ref("take", TakeAttrs(axis=1), np.zeros((0, 0)), np.array([5])).shape == (0, 1)


def test_strided_slice_relation() -> None:
    x = tensor_t((3, 4))
    # TVM's documented examples.
    assert shape_of("strided_slice", slice_attrs((0, 1), (2, 4), (1, 1)), x) == (2, 3)
    assert shape_of("strided_slice", slice_attrs((0, 0), (2, 2)), tensor_t((2, 2, 2))) == (2, 2, 2)
    assert shape_of("strided_slice", slice_attrs((0,), (4,), (2,)), tensor_t((5,))) == (2,)
    assert shape_of("strided_slice", slice_attrs((1,), (5,), (3,)), tensor_t((5,))) == (2,)
    # Negative strides.
    assert shape_of("strided_slice", slice_attrs((4,), (0,), (-1,)), tensor_t((5,))) == (4,)
    assert shape_of("strided_slice", slice_attrs((-1,), (-6,), (-2,)), tensor_t((5,))) == (3,)
    assert shape_of("strided_slice", slice_attrs((), (), (-1,)), tensor_t((5,))) == (4,)
    # Out-of-bounds begin and end are clamped.
    assert shape_of("strided_slice", slice_attrs((-10,), (100,)), tensor_t((5,))) == (5,)
    assert shape_of("strided_slice", slice_attrs((7,), (9,)), tensor_t((5,))) == (0,)
    assert shape_of("strided_slice", slice_attrs((100,), (-100,), (-1,)), tensor_t((5,))) == (5,)
    # axes
    at = slice_attrs((1,), (3,), (1,), axes=(1,))
    assert shape_of("strided_slice", at, tensor_t((7, 5, 4))) == (7, 2, 4)
    at = slice_attrs((1, 0), (3, 4), (1, 2), axes=(2, 0))
    assert shape_of("strided_slice", at, tensor_t((7, 5, 4))) == (2, 5, 2)
    # slice_mode "size": end holds sizes, -1 meaning "to the end"; strides are ignored.
    at = slice_attrs((1, 0), (2, -1), (5, 5), slice_mode="size")
    assert shape_of("strided_slice", at, tensor_t((4, 6))) == (2, 6)
    # A dimension that is not a known integer becomes ?, even when sliced whole.
    assert shape_of("strided_slice", slice_attrs((0,), (2,)), tensor_t((n, 4))) == (ANY, 4)
    assert shape_of("strided_slice", slice_attrs((0,), (2,), (1,), (1,)), tensor_t((n, 4))) == (
        n,
        2,
    )
    assert op_rel("strided_slice", slice_attrs((0,), (1,)), tensor_t((3,), "int64")) == tensor_t(
        (1,), "int64"
    )


@pytest.mark.parametrize(
    ("attrs", "data", "message"),
    [
        (slice_attrs((3,), (1,)), tensor_t((5,)), "begin 3 and end 1 with stride 1 run backwards"),
        (slice_attrs((1,), (3,), (-1,)), tensor_t((5,)), "run backwards on axis 0 of extent 5"),
        (
            slice_attrs((0,), (3,), (0,)),
            tensor_t((5,)),
            r"nonzero strides, found strides=\[0\] \(0 for axis 0\)",
        ),
        (
            slice_attrs((0, 0), (1, 1)),
            tensor_t((5,)),
            r"at most 1 entries .* found begin=\[0, 0\], end=\[1, 1\] and strides=\[\]",
        ),
        (slice_attrs((0,), (1,), (1,), (1,)), tensor_t((5,)), r"axes=\[1\]: 1 is out of range"),
        (slice_attrs((0,), (1,), (1,), (-1,)), tensor_t((5,)), r"axes=\[-1\]: -1 is out of range"),
        (
            slice_attrs((0,), (1,), (1, 1), axes=(0,)),
            tensor_t((5, 5)),
            r"same length, found axes=\[0\], begin=\[0\], end=\[1\] and strides=\[1, 1\]",
        ),
        (slice_attrs((), ()), tensor_t(()), "at least one axis to slice"),
        (
            slice_attrs((0,), (1,), slice_mode="step"),
            tensor_t((5,)),
            'slice_mode "end" or "size", found slice_mode="step"',
        ),
        (slice_attrs((-1,), (1,), slice_mode="size"), tensor_t((5,)), "run backwards"),
    ],
)
def test_strided_slice_relation_errors(
    attrs: StridedSliceAttrs, data: TensorType, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        op_rel("strided_slice", attrs, data)


def test_strided_slice_needs_begin_end_and_strides() -> None:
    attrs = StridedSliceAttrs(begin=(0,), end=(1,), strides=None, axes=None)
    with pytest.raises(RelationError, match=r"expected begin, end and strides, found .*None"):
        op_rel("strided_slice", attrs, tensor_t((5,)))


def test_strided_slice_reference() -> None:
    x = np.array([[1, 4, 7, 10], [2, 5, 8, 11], [3, 6, 9, 12]], dtype=np.float32)
    out = tensor_ref("strided_slice", slice_attrs((0, 1), (2, 4), (1, 1)), x)
    assert_same(out, [[4, 7, 10], [5, 8, 11]])
    v = np.arange(5, dtype=np.int32)
    assert_same(tensor_ref("strided_slice", slice_attrs((4,), (0,), (-1,)), v), [4, 3, 2, 1])
    assert_same(tensor_ref("strided_slice", slice_attrs((), (), (-1,)), v), [4, 3, 2, 1])
    assert_same(tensor_ref("strided_slice", slice_attrs((-1,), (-6,), (-2,)), v), [4, 2, 0])
    assert_same(tensor_ref("strided_slice", slice_attrs((-10,), (100,), (2,)), v), [0, 2, 4])
    out = tensor_ref("strided_slice", slice_attrs((2,), (-1,), slice_mode="size"), v)
    assert_same(out, [2, 3, 4])
    out = tensor_ref("strided_slice", slice_attrs((3, 1), (0, 3), (-1, 1), axes=(1, 0)), x)
    assert_same(out, [[11, 8, 5], [12, 9, 6]])


def test_strided_slice_backwards_at_run_time_is_undefined() -> None:
    attrs = slice_attrs((3,), (1,))
    assert shape_of("strided_slice", attrs, tensor_t((ANY,))) == (ANY,)
    with pytest.raises(UndefinedBehavior, match="strided_slice: at run time, begin 3 and end 1"):
        op_ref("strided_slice", attrs, np.zeros(5))


@pytest.mark.parametrize(
    ("shape", "indices_shape", "axis", "mode"),
    [
        ((5, 4), (3,), 0, "clip"),
        ((5, 4), (2, 3), 1, "wrap"),
        ((3, 4, 5), (2, 2), -1, "wrap"),
        ((3, 4, 5), (), 1, "fast"),
    ],
)
def test_take_matches_onnxruntime_gather(
    shape: tuple[int, ...], indices_shape: tuple[int, ...], axis: int, mode: str
) -> None:
    x = randn(*shape)
    extent = shape[axis]
    # Gather accepts [-extent, extent) with negative indices counting from the end, as wrap does.
    low = -extent if mode == "wrap" else 0
    idx = RNG_NORMAL.integers(low, extent, size=indices_shape).astype(np.int64)
    (expected,) = run_onnx("Gather", [x, idx], axis=axis)
    assert_same(tensor_ref("take", TakeAttrs(axis=axis, mode=mode), x, idx), expected)


@pytest.mark.parametrize(
    ("shape", "begin", "end", "strides", "axes"),
    [
        ((6, 5), (1, 0), (5, 5), (2, 1), None),
        ((6, 5), (-1,), (-7,), (-2,), None),
        ((6, 5), (4, 1), (0, 100), (-1, 3), None),
        ((4, 5, 6), (1, 2), (4, -1), (1, 2), (2, 0)),
        ((4, 5, 6), (-3,), (-100,), (-1,), (1,)),
        ((7,), (-100,), (100,), (3,), None),
    ],
)
def test_strided_slice_matches_onnxruntime_slice(
    shape: tuple[int, ...],
    begin: tuple[int, ...],
    end: tuple[int, ...],
    strides: tuple[int, ...],
    axes: tuple[int, ...] | None,
) -> None:
    x = randn(*shape)
    onnx_axes = list(range(len(begin))) if axes is None else list(axes)
    (expected,) = run_onnx("Slice", [x, ints(*begin), ints(*end), ints(*onnx_axes), ints(*strides)])
    out = tensor_ref("strided_slice", slice_attrs(begin, end, strides, axes), x)
    assert_same(out, expected)


@given(
    shapes(min_rank=1, min_dim=1),
    shapes(max_rank=3),
    dtypes,
    st.sampled_from(INDEX_DTYPES),
    st.sampled_from(["clip", "wrap", "fast"]),
    seeds32,
    st.data(),
)
def test_take_agrees_with_relation(
    shape: tuple[int, ...],
    ishape: tuple[int, ...],
    dtype: str,
    index_dtype: str,
    mode: str,
    seed: int,
    data: st.DataObject,
) -> None:
    ndim = len(shape)
    axis: int | None = None
    bd = 0
    if data.draw(st.booleans()):
        axis = data.draw(st.integers(-ndim, ndim - 1))
        bd = data.draw(st.integers(0, axis % ndim))
        ishape = shape[:bd] + ishape
    extent = math.prod(shape) if axis is None else shape[axis]
    if mode == "fast" or index_dtype == "bool":
        low, high = 0, min(extent, 2 if index_dtype == "bool" else extent)
    else:
        low = 0 if index_dtype.startswith(("u", "b")) else -6
        high = 7
    indices = array(ishape, index_dtype, seed, low, high)
    attrs = TakeAttrs(batch_dims=bd, axis=axis, mode=mode)
    check_agreement("take", attrs, array(shape, dtype, seed + 1), indices)


@given(shapes(min_rank=1), dtypes, seeds32, st.data())
def test_strided_slice_agrees_with_relation(
    shape: tuple[int, ...], dtype: str, seed: int, data: st.DataObject
) -> None:
    ndim = len(shape)
    mode = data.draw(st.sampled_from(["end", "size"]))
    if data.draw(st.booleans()):
        chosen = data.draw(
            st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True)
        )
        axes: tuple[int, ...] | None = tuple(chosen)
        count = len(chosen)
        lengths = [count, count, count]
    else:
        axes = None
        lengths = [data.draw(st.integers(0, ndim)) for _ in range(3)]
    entries = st.integers(-7, 7)
    begin = data.draw(st.lists(entries, min_size=lengths[0], max_size=lengths[0]))
    end = data.draw(st.lists(entries, min_size=lengths[1], max_size=lengths[1]))
    strides = data.draw(st.lists(entries.filter(bool), min_size=lengths[2], max_size=lengths[2]))
    attrs = slice_attrs(begin, end, strides, axes, mode)
    try:
        op_rel("strided_slice", attrs, tensor_t(shape, dtype))
    except RelationError:
        assume(False)
    check_agreement("strided_slice", attrs, array(shape, dtype, seed))
