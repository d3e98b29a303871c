"""The ``sort`` operators (``semantics/ops/sort.py``): relations, references, checks."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pytest
from ops_helpers import a, n, of_family

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.registry import Attrs, RelationError, Tensor
from relay.semantics.ops.sort import ArgsortAttrs, SearchSortedAttrs, TopKAttrs
from relay.semantics.syntax import Dim, TensorType, TupleType, Type

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


def sort_attrs(axis: int = -1, ascend: bool = True) -> ArgsortAttrs:
    return ArgsortAttrs.from_kwargs(  # type: ignore[return-value]
        {"axis": axis, "is_ascend": ascend, "dtype": "int32"}
    )


def topk_attrs(k: int, axis: int = -1, ret: str = "both", ascend: bool = False) -> TopKAttrs:
    return TopKAttrs.from_kwargs(  # type: ignore[return-value]
        {"k": k, "axis": axis, "ret_type": ret, "is_ascend": ascend, "dtype": "int64"}
    )


@pytest.mark.parametrize("name", of_family(NAMES, "sort"))
def test_record(name: str) -> None:
    op = OPS[name]
    assert op.relation is not None and op.reference is not None
    assert op.family in ("index", "sort", "create", "shape") and op.relation_name
    kind, _, what = op.check.partition(":")
    assert kind in ("onnxruntime", "independent") and what


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
