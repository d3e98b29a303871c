"""The indexing operators: type relations, numpy references, and independent checks.

Relations on good and bad calls (with their messages); references on small inputs computed by
hand; and for every op the comparison its record's ``check`` names: onnxruntime where ONNX has
the operator, otherwise a differently written formulation, on random inputs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pytest

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.create import ArangeAttrs
from relay.semantics.ops.index import (
    GatherAttrs,
    GatherNDAttrs,
    OneHotAttrs,
    ScatterElementsAttrs,
    ScatterNDAttrs,
    SequenceMaskAttrs,
    SparseToDenseAttrs,
)
from relay.semantics.ops.registry import Attrs, RelationError, Tensor
from relay.semantics.ops.shape import MeshgridAttrs
from relay.semantics.ops.sort import ArgsortAttrs, SearchSortedAttrs, TopKAttrs
from relay.semantics.syntax import ANY, Dim, TensorType, TupleType, Type, dim_symbol

n = dim_symbol("n")
RNG = np.random.default_rng(7)

NAMES = (
    "gather",
    "gather_nd",
    "scatter_elements",
    "scatter_nd",
    "one_hot",
    "sort",
    "argsort",
    "topk",
    "searchsorted",
    "unravel_index",
    "sparse_to_dense",
    "sequence_mask",
    "invert_permutation",
    "arange",
    "meshgrid",
)


def T(shape: Sequence[Dim], dtype: str = "float32") -> TensorType:
    return TensorType(tuple(shape), dtype)


def rel(op: str, attrs: Attrs | None, *args: Type) -> Type:
    relation = OPS[op].relation
    assert relation is not None
    return relation(tuple(args), attrs)


def ref(op: str, attrs: Attrs | None, *args: object) -> Tensor | tuple[Tensor, ...]:
    reference = OPS[op].reference
    assert reference is not None
    return reference(tuple(args), attrs)  # type: ignore[arg-type]


def tref(op: str, attrs: Attrs | None, *args: object) -> Tensor:
    out = ref(op, attrs, *args)
    assert not isinstance(out, tuple)
    return out


def bad(op: str, attrs: Attrs | None, message: str, *args: Type) -> None:
    with pytest.raises(RelationError, match=message):
        rel(op, attrs, *args)


def same(actual: Tensor, expected: Tensor) -> None:
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_array_equal(actual, expected)


def a(values: object, dtype: str = "int64") -> Tensor:
    return np.asarray(values, dtype=dtype)


@pytest.mark.parametrize("name", NAMES)
def test_record(name: str) -> None:
    op = OPS[name]
    assert op.relation is not None and op.reference is not None
    assert op.family in ("index", "sort", "create", "shape") and op.relation_name
    kind, _, what = op.check.partition(":")
    assert kind in ("onnxruntime", "independent") and what


# --- gather ---------------------------------------------------------------------------------


def test_gather_relation() -> None:
    attrs = GatherAttrs.from_kwargs({"axis": -1})
    assert rel("gather", attrs, T((2, 3)), T((2, 5), "int32")) == T((2, 5))
    assert rel("gather", attrs, T((n, 3)), T((n, 1), "int64")) == T((n, 1))
    bad("gather", attrs, "signed integer", T((2, 3)), T((2, 5), "uint8"))
    bad("gather", attrs, "rank 2 of data", T((2, 3)), T((2,), "int32"))
    bad("gather", attrs, "extent 2", T((2, 3)), T((4, 3), "int32"))
    bad("gather", attrs, ">= 1 on axis 1", T((2, 3)), T((2, 0), "int32"))
    bad(
        "gather",
        GatherAttrs.from_kwargs({"axis": 2}),
        "axis=2 is out of range",
        T((2, 3)),
        T((2, 3), "int32"),
    )
    bad("gather", GatherAttrs(), "axis attribute, found None", T((2,)), T((2,), "int32"))


def test_gather_reference_and_out_of_range() -> None:
    data = a([[1, 2], [3, 4]], "float32")
    got = tref("gather", GatherAttrs.from_kwargs({"axis": 1}), data, a([[0, 0], [1, 0]]))
    same(got, a([[1, 1], [4, 3]], "float32"))
    with pytest.raises(UndefinedBehavior, match="index -1"):
        ref("gather", GatherAttrs.from_kwargs({"axis": 0}), data, a([[-1, 0]]))


@pytest.mark.parametrize("shape,axis", [((3, 4), 0), ((2, 3, 4), 2), ((5,), 0), ((2, 2, 3), -2)])
def test_gather_matches_onnxruntime(shape: tuple[int, ...], axis: int) -> None:
    data = RNG.standard_normal(shape).astype(np.float32)
    ishape = list(shape)
    ishape[axis] = 3
    indices = RNG.integers(0, shape[axis], ishape).astype(np.int64)
    want = onnx_run("GatherElements", [data, indices], axis=axis)
    same(tref("gather", GatherAttrs.from_kwargs({"axis": axis}), data, indices), want)


# --- gather_nd ------------------------------------------------------------------------------


def test_gather_nd_relation() -> None:
    attrs = GatherNDAttrs()
    assert rel("gather_nd", attrs, T((2, 3, 4)), T((2, 5), "int32")) == T((5, 4))
    batch = GatherNDAttrs.from_kwargs({"batch_dims": 1})
    assert rel("gather_nd", batch, T((n, 3, 4)), T((1, n, 2), "int32")) == T((n, 2, 4))
    bad("gather_nd", attrs, "known first extent", T((2, 3)), T((ANY, 2), "int32"))
    bad("gather_nd", attrs, "plus batch_dims 0 at most the rank 2", T((2, 3)), T((3, 1), "int32"))
    bad("gather_nd", batch, "equal batch extents", T((2, 3)), T((1, 3), "int32"))
    bad("gather_nd", attrs, "rank >= 1", T((2, 3)), T((), "int32"))
    bad("gather_nd", attrs, "integer dtype", T((2, 3)), T((1,), "float32"))


def test_gather_nd_reference() -> None:
    data = a([[1, 2], [3, 4]], "int32")
    same(tref("gather_nd", GatherNDAttrs(), data, a([[1, 0], [0, 1]])), a([3, 2], "int32"))
    same(tref("gather_nd", GatherNDAttrs(), data, a([[1]])), a([[3, 4]], "int32"))
    with pytest.raises(UndefinedBehavior, match="index 2"):
        ref("gather_nd", GatherNDAttrs(), data, a([[2]]))


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


# --- scatter_elements -----------------------------------------------------------------------


def test_scatter_elements_relation() -> None:
    attrs = ScatterElementsAttrs()
    assert rel("scatter_elements", attrs, T((3, 3)), T((2, 3), "int32"), T((2, 3))) == T((3, 3))
    bad("scatter_elements", attrs, "one rank", T((3, 3)), T((3,), "int32"), T((3,)))
    bad("scatter_elements", attrs, "shape of indices", T((3,)), T((2,), "int32"), T((3,)))
    bad(
        "scatter_elements",
        attrs,
        "updates of dtype float32",
        T((3,)),
        T((2,), "int32"),
        T((2,), "int32"),
    )
    bad(
        "scatter_elements",
        attrs,
        "exceeds data's 3 on axis 1",
        T((3, 3)),
        T((1, 4), "int32"),
        T((1, 4)),
    )
    mean = ScatterElementsAttrs.from_kwargs({"reduction": "mean"})
    bad("scatter_elements", mean, 'found "mean"', T((3,)), T((2,), "int32"), T((2,)))


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
        ref("scatter_elements", attrs, data, a([1, 1]), a([5, 6], "float32"))
    with pytest.raises(UndefinedBehavior, match="index 4"):
        ref("scatter_elements", attrs, data, a([4]), a([5], "float32"))
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


# --- scatter_nd -----------------------------------------------------------------------------


def test_scatter_nd_relation() -> None:
    attrs = ScatterNDAttrs()
    assert rel("scatter_nd", attrs, T((3, 4)), T((1, 2), "int32"), T((2, 4))) == T((3, 4))
    bad("scatter_nd", attrs, r"updates of shape \(2, 4\)", T((3, 4)), T((1, 2), "int32"), T((2, 3)))
    bad("scatter_nd", attrs, "at most the rank 2", T((3, 4)), T((3, 2), "int32"), T((2,)))
    bad(
        "scatter_nd",
        ScatterNDAttrs.from_kwargs({"mode": "sub"}),
        'found "sub"',
        T((3,)),
        T((1, 1), "int32"),
        T((1,)),
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
        ref("scatter_nd", add, a([2**31 - 1], "int32"), a([[0]]), a([1], "int32"))


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


# --- one_hot --------------------------------------------------------------------------------


def one_hot(depth: int, axis: int = -1, dtype: str = "float32") -> OneHotAttrs:
    return OneHotAttrs.from_kwargs({"depth": depth, "axis": axis, "dtype": dtype})  # type: ignore[return-value]


def test_one_hot_relation() -> None:
    s = T(())
    assert rel("one_hot", one_hot(4), T((2, 3), "int32"), s, s) == T((2, 3, 4))
    assert rel("one_hot", one_hot(4, 0, "int8"), T((n,), "int32"), s, s) == T((4, n), "int8")
    bad("one_hot", one_hot(0), "depth >= 1", T((2,), "int32"), s, s)
    bad("one_hot", one_hot(2, 3), r"out of range \[-1, 1\]", T((2,), "int32"), s, s)
    bad("one_hot", one_hot(2), "scalar on_value", T((2,), "int32"), T((1,)), s)
    bad("one_hot", OneHotAttrs(), 'dtype attribute, found ""', T((2,), "int32"), s, s)
    bad("one_hot", one_hot(2), "integer dtype for indices", T((2,)), s, s)


def test_one_hot_reference() -> None:
    got = tref(
        "one_hot", one_hot(3, 0, "int32"), a([2, -1, 3]), a(5.9, "float32"), a(-1.5, "float32")
    )
    same(got, a([[-1, -1, -1], [-1, -1, -1], [5, -1, -1]], "int32"))
    with pytest.raises(UndefinedBehavior, match="poison"):
        ref("one_hot", one_hot(3, -1, "uint8"), a([0]), a(-1.0, "float32"), a(0.0, "float32"))


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


# --- sort, argsort, topk --------------------------------------------------------------------


def sort_attrs(axis: int = -1, ascend: bool = True) -> ArgsortAttrs:
    return ArgsortAttrs.from_kwargs(  # type: ignore[return-value]
        {"axis": axis, "is_ascend": ascend, "dtype": "int32"}
    )


def topk_attrs(k: int, axis: int = -1, ret: str = "both", ascend: bool = False) -> TopKAttrs:
    return TopKAttrs.from_kwargs(  # type: ignore[return-value]
        {"k": k, "axis": axis, "ret_type": ret, "is_ascend": ascend, "dtype": "int64"}
    )


def test_sort_family_relations() -> None:
    x = T((n, 4), "int8")
    assert rel("sort", sort_attrs(), x) == x
    assert rel("argsort", sort_attrs(0), x) == T((n, 4), "int32")
    assert rel("topk", topk_attrs(2, 1), x) == TupleType((T((n, 2), "int8"), T((n, 2), "int64")))
    assert rel("topk", topk_attrs(0, 1, "values"), x) == x
    assert rel("topk", topk_attrs(3, 0, "indices"), x) == T((3, 4), "int64")
    bad("sort", sort_attrs(2), "axis=2 is out of range", x)
    bad("argsort", ArgsortAttrs(), 'dtype attribute, found ""', x)
    bad("topk", TopKAttrs.from_kwargs({"dtype": "int32"}), "k attribute", x)
    bad("topk", topk_attrs(1, 0, "all"), 'found "all"', x)


def test_sort_family_references_are_stable() -> None:
    x = a([3, 1, 3, 2, 1], "int32")
    same(tref("sort", sort_attrs(), x), a([1, 1, 2, 3, 3], "int32"))
    same(tref("argsort", sort_attrs(), x), a([1, 4, 3, 0, 2], "int32"))
    same(tref("argsort", sort_attrs(0, False), x), a([0, 2, 3, 1, 4], "int32"))
    values, indices = ref("topk", topk_attrs(2), x)  # type: ignore[misc]
    same(values, a([3, 3], "int32"))
    same(indices, a([0, 2], "int64"))
    same(
        tref("topk", topk_attrs(1, ascend=True, ret="indices"), a([2, 0], "uint8")), a([1], "int64")
    )
    with pytest.raises(UndefinedBehavior, match="NaN"):
        ref("sort", sort_attrs(), a([1.0, math.nan], "float32"))
    with pytest.raises(UndefinedBehavior, match="beyond the axis extent 2"):
        ref("topk", topk_attrs(3), a([1, 2], "int32"))


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "float64"])
@pytest.mark.parametrize("shape,axis", [((6,), 0), ((3, 5), 1), ((4, 3, 2), 0)])
@pytest.mark.parametrize("ascend", [True, False])
def test_sort_family_matches_onnxruntime_topk(
    dtype: str, shape: tuple[int, ...], axis: int, ascend: bool
) -> None:
    # Few distinct values, so that ties (broken by index, as in ONNX) are common.
    x = RNG.integers(-2, 3, shape).astype(dtype)
    extent = shape[axis]
    for k in (extent, 2):
        values, indices = onnx_run(
            "TopK",
            [x, np.asarray([k], np.int64)],
            outputs=2,
            axis=axis,
            largest=0 if ascend else 1,
            sorted=1,
            out_dtype=[dtype, "int64"],
        )
        got_v, got_i = ref("topk", topk_attrs(k, axis, ascend=ascend), x)  # type: ignore[misc]
        same(got_v, values)
        same(got_i, indices)
        if k == extent:
            same(tref("sort", sort_attrs(axis, ascend), x), values)
            same(tref("argsort", sort_attrs(axis, ascend), x), indices.astype(np.int32))


# --- searchsorted ---------------------------------------------------------------------------


def test_searchsorted_relation_and_reference() -> None:
    attrs = SearchSortedAttrs()
    assert rel("searchsorted", attrs, T((5,)), T((2, 3))) == T((2, 3), "int32")
    assert rel("searchsorted", attrs, T((2, 5)), T((n, 3))) == T((n, 3), "int32")
    bad("searchsorted", attrs, "outer extents differ", T((2, 5)), T((3, 3)))
    bad("searchsorted", attrs, "values of rank >= 1", T((5,)), T(()))
    bad("searchsorted", attrs, "one dtype", T((5,)), T((2,), "int32"))
    seq = a([1, 2, 2, 4], "float32")
    same(tref("searchsorted", attrs, seq, a([2, 0, 5], "float32")), a([1, 0, 4], "int32"))
    right = SearchSortedAttrs.from_kwargs({"right": True, "dtype": "int64"})
    same(tref("searchsorted", right, seq, a([2, 0, 5], "float32")), a([3, 0, 4], "int64"))
    with pytest.raises(UndefinedBehavior, match="not sorted"):
        ref("searchsorted", attrs, a([2, 1], "float32"), a([1], "float32"))


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("seq_shape,values_shape", [((6,), (4, 3)), ((2, 5), (2, 4)), ((1,), (3,))])
def test_searchsorted_matches_counting(
    right: bool, seq_shape: tuple[int, ...], values_shape: tuple[int, ...]
) -> None:
    seq = np.sort(RNG.integers(-3, 4, seq_shape), axis=-1).astype(np.int32)
    values = RNG.integers(-4, 5, values_shape).astype(np.int32)
    attrs = SearchSortedAttrs.from_kwargs({"right": right})
    got = tref("searchsorted", attrs, seq, values)
    want = np.zeros(values_shape, dtype=np.int32)
    for pos in itertools.product(*map(range, values_shape)):
        row = seq if seq.ndim == 1 else seq[pos[:-1]]
        v = values[pos]
        want[pos] = sum(1 for s in row if (s <= v if right else s < v))
    same(got, want)


# --- unravel_index --------------------------------------------------------------------------


def test_unravel_index_relation_and_reference() -> None:
    assert rel("unravel_index", None, T((3,), "int32"), T((2,), "int64")) == T((2, 3), "int32")
    assert rel("unravel_index", None, T((), "int64"), T((n,), "int64")) == T((n,), "int64")
    bad("unravel_index", None, "shape vector", T((3,), "int32"), T((), "int32"))
    bad("unravel_index", None, "rank 0 or 1", T((3, 1), "int32"), T((2,), "int32"))
    bad("unravel_index", None, "integer dtype for data", T((3,)), T((2,), "int32"))
    same(
        tref("unravel_index", None, a([22, 41, 37], "int32"), a([7, 6])),
        a([[3, 6, 6], [4, 5, 1]], "int32"),
    )
    with pytest.raises(UndefinedBehavior, match="outside"):
        ref("unravel_index", None, a([42], "int32"), a([7, 6]))


def test_unravel_index_matches_numpy_unravel_index() -> None:
    for dims in [(7, 6), (2, 3, 4), (5,), (1, 3, 1, 2)]:
        flat = RNG.integers(0, math.prod(dims), 9).astype(np.int64)
        want = np.stack(np.unravel_index(flat, dims)).astype(np.int64)
        same(tref("unravel_index", None, flat, a(dims)), want)


# --- sparse_to_dense ------------------------------------------------------------------------


def std(shape: tuple[int, ...]) -> SparseToDenseAttrs:
    return SparseToDenseAttrs.from_kwargs({"output_shape": shape})  # type: ignore[return-value]


def test_sparse_to_dense_relation() -> None:
    s = T((), "float32")
    assert rel("sparse_to_dense", std((3, 4)), T((2, 2), "int32"), T((2,)), s) == T((3, 4))
    assert rel("sparse_to_dense", std((5,)), T((n,), "int32"), T(()), s) == T((5,))
    bad("sparse_to_dense", std((3, 4)), "tuples of size 2", T((2, 3), "int32"), T((2,)), s)
    bad("sparse_to_dense", std((3, 4)), "expected 2 sparse_values", T((2, 2), "int32"), T((3,)), s)
    bad(
        "sparse_to_dense",
        std((3,)),
        "default_value of dtype float32",
        T((2,), "int32"),
        T((2,)),
        T((), "int32"),
    )
    bad("sparse_to_dense", std((-1,)), "non-negative", T((2,), "int32"), T((2,)), s)


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
        ref("sparse_to_dense", std((3,)), a([1, 1], "int32"), a(5, "int32"), a(0, "int32"))
    with pytest.raises(UndefinedBehavior, match="index 3"):
        ref("sparse_to_dense", std((3,)), a([3], "int32"), a(5, "int32"), a(0, "int32"))


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


# --- sequence_mask --------------------------------------------------------------------------


def test_sequence_mask_relation_and_reference() -> None:
    attrs = SequenceMaskAttrs()
    assert rel("sequence_mask", attrs, T((3, 2, 4)), T((2,), "int32")) == T((3, 2, 4))
    bad("sequence_mask", attrs, r"valid_length of shape \(2\)", T((3, 2)), T((3,), "int32"))
    bad(
        "sequence_mask",
        SequenceMaskAttrs.from_kwargs({"axis": 2}),
        "axis 0 or 1",
        T((3, 2)),
        T((2,), "int32"),
    )
    bad("sequence_mask", attrs, "rank >= 2", T((3,)), T((3,), "int32"))
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


# --- invert_permutation ---------------------------------------------------------------------


def test_invert_permutation() -> None:
    assert rel("invert_permutation", None, T((n,), "int32")) == T((n,), "int32")
    bad("invert_permutation", None, "rank 1", T((2, 2), "int32"))
    bad("invert_permutation", None, "integer dtype", T((2,)))
    same(tref("invert_permutation", None, a([3, 4, 0, 2, 1], "int32")), a([2, 4, 3, 0, 1], "int32"))
    with pytest.raises(UndefinedBehavior, match="not a permutation"):
        ref("invert_permutation", None, a([0, 0], "int32"))
    for size in (1, 4, 9):
        perm = RNG.permutation(size).astype(np.int64)
        same(tref("invert_permutation", None, perm), np.argsort(perm).astype(np.int64))


# --- arange ---------------------------------------------------------------------------------


def test_arange_relation_and_reference() -> None:
    attrs = ArangeAttrs.from_kwargs({"dtype": "int32"})
    s = T((), "int32")
    assert rel("arange", attrs, s, s, s) == T((ANY,), "int32")
    bad("arange", attrs, r"Tensor\[\(\), int32\]", s, T((1,), "int32"), s)
    bad("arange", attrs, r"Tensor\[\(\), int32\]", s, s, T((), "int64"))
    same(tref("arange", attrs, a(1, "int32"), a(10, "int32"), a(3, "int32")), a([1, 4, 7], "int32"))
    same(tref("arange", attrs, a(5, "int32"), a(1, "int32"), a(-2, "int32")), a([5, 3], "int32"))
    same(tref("arange", attrs, a(5, "int32"), a(5, "int32"), a(1, "int32")), a([], "int32"))
    with pytest.raises(UndefinedBehavior, match="step 0"):
        ref("arange", attrs, a(0, "int32"), a(3, "int32"), a(0, "int32"))
    with pytest.raises(UndefinedBehavior, match="negative count"):
        ref("arange", attrs, a(0, "int32"), a(3, "int32"), a(-1, "int32"))
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


# --- meshgrid -------------------------------------------------------------------------------


def test_meshgrid_relation() -> None:
    ij = MeshgridAttrs()
    xy = MeshgridAttrs.from_kwargs({"indexing": "xy"})
    fields = TupleType((T((2,)), T(()), T((n,))))
    grid = T((2, 1, n))
    assert rel("meshgrid", ij, fields) == TupleType((grid, grid, grid))
    swapped = T((1, 2, n))
    assert rel("meshgrid", xy, fields) == TupleType((swapped, swapped, swapped))
    bad("meshgrid", ij, "one dtype", TupleType((T((2,)), T((2,), "int32"))))
    bad("meshgrid", ij, "scalars or vectors", TupleType((T((2, 2)),)))
    bad(
        "meshgrid",
        MeshgridAttrs.from_kwargs({"indexing": "yx"}),
        'found "yx"',
        TupleType((T((2,)),)),
    )


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("sizes", [(2,), (2, 3), (3, 1, 4), (2, 3, 2, 2)])
def test_meshgrid_matches_numpy_meshgrid(indexing: str, sizes: tuple[int, ...]) -> None:
    fields = tuple(RNG.standard_normal(s).astype(np.float32) for s in sizes)
    got = ref("meshgrid", MeshgridAttrs.from_kwargs({"indexing": indexing}), fields)
    want = np.meshgrid(*fields, indexing=indexing)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        same(g, w)
