"""The ``sort`` operators (``semantics/ops/sort.py``): relations, references, checks."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from ops_helpers import a, bad, n, of_family, op_ref, op_rel, tensor_t, tref

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.registry import Tensor
from relay.semantics.ops.sort import ArgsortAttrs, SearchSortedAttrs, TopKAttrs
from relay.semantics.syntax import TupleType

RNG = np.random.default_rng(7)


NAMES = (
    "sort",
    "argsort",
    "topk",
    "searchsorted",
)


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
    x = tensor_t((n, 4), "int8")
    assert op_rel("sort", sort_attrs(), x) == x
    assert op_rel("argsort", sort_attrs(0), x) == tensor_t((n, 4), "int32")
    assert op_rel("topk", topk_attrs(2, 1), x) == TupleType(
        (tensor_t((n, 2), "int8"), tensor_t((n, 2), "int64"))
    )
    assert op_rel("topk", topk_attrs(0, 1, "values"), x) == x
    assert op_rel("topk", topk_attrs(3, 0, "indices"), x) == tensor_t((3, 4), "int64")
    bad("sort", sort_attrs(2), "axis=2 is out of range", x)
    bad("argsort", ArgsortAttrs(), 'dtype attribute, found ""', x)
    bad("topk", TopKAttrs.from_kwargs({"dtype": "int32"}), "k attribute", x)
    bad("topk", topk_attrs(1, 0, "all"), 'found "all"', x)


def test_sort_family_references_are_stable() -> None:
    x = a([3, 1, 3, 2, 1], "int32")
    same(tref("sort", sort_attrs(), x), a([1, 1, 2, 3, 3], "int32"))
    same(tref("argsort", sort_attrs(), x), a([1, 4, 3, 0, 2], "int32"))
    same(tref("argsort", sort_attrs(0, False), x), a([0, 2, 3, 1, 4], "int32"))
    values, indices = op_ref("topk", topk_attrs(2), x)  # type: ignore[misc]
    same(values, a([3, 3], "int32"))
    same(indices, a([0, 2], "int64"))
    same(
        tref("topk", topk_attrs(1, ascend=True, ret="indices"), a([2, 0], "uint8")), a([1], "int64")
    )
    with pytest.raises(UndefinedBehavior, match="NaN"):
        op_ref("sort", sort_attrs(), a([1.0, math.nan], "float32"))
    with pytest.raises(UndefinedBehavior, match="beyond the axis extent 2"):
        op_ref("topk", topk_attrs(3), a([1, 2], "int32"))


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
        got_v, got_i = op_ref("topk", topk_attrs(k, axis, ascend=ascend), x)  # type: ignore[misc]
        same(got_v, values)
        same(got_i, indices)
        if k == extent:
            same(tref("sort", sort_attrs(axis, ascend), x), values)
            same(tref("argsort", sort_attrs(axis, ascend), x), indices.astype(np.int32))


def test_searchsorted_relation_and_reference() -> None:
    attrs = SearchSortedAttrs()
    assert op_rel("searchsorted", attrs, tensor_t((5,)), tensor_t((2, 3))) == tensor_t(
        (2, 3), "int32"
    )
    assert op_rel("searchsorted", attrs, tensor_t((2, 5)), tensor_t((n, 3))) == tensor_t(
        (n, 3), "int32"
    )
    bad("searchsorted", attrs, "outer extents differ", tensor_t((2, 5)), tensor_t((3, 3)))
    bad("searchsorted", attrs, "values of rank >= 1", tensor_t((5,)), tensor_t(()))
    bad("searchsorted", attrs, "one dtype", tensor_t((5,)), tensor_t((2,), "int32"))
    seq = a([1, 2, 2, 4], "float32")
    same(tref("searchsorted", attrs, seq, a([2, 0, 5], "float32")), a([1, 0, 4], "int32"))
    right = SearchSortedAttrs.from_kwargs({"right": True, "dtype": "int64"})
    same(tref("searchsorted", right, seq, a([2, 0, 5], "float32")), a([3, 0, 4], "int64"))
    with pytest.raises(UndefinedBehavior, match="not sorted"):
        op_ref("searchsorted", attrs, a([2, 1], "float32"), a([1], "float32"))


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
