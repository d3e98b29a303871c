"""Sorting and searching: sort, argsort, topk, searchsorted.

::

    sort(data, axis=-1, is_ascend=True, dtype="")         ArgsortAttrs         opaque
    argsort(data, axis=-1, is_ascend=True, dtype=)        ArgsortAttrs         opaque
    topk(data, k=, axis=-1, ret_type="both", is_ascend=False, dtype=)
                                                          TopkAttrs            opaque
    searchsorted(sorted_sequence, values, right=False, dtype="int32")
                                                          SearchSortedAttrs    opaque

``name=`` marks a field that must be given: required in TVM, or a TVM field whose default (a
null ``Integer`` or ``DataType``) every relation rejects: ``topk``'s ``k`` and the ``dtype``
of ``argsort`` and ``topk`` (TVM's Python wrappers always passed ``"int32"`` or a dtype; a
null dtype would type the result as ``void``). Fields, defaults and type keys follow TVM
0.18's ``include/tvm/relay/attrs/algorithm.h`` (note the key ``relay.attrs.TopkAttrs``);
relations follow ``src/relay/op/algorithm/*.cc`` and are named as TVM registered them (the
name prefixes their error messages). None of these ops registered a pattern, so they are
opaque. Meanings are what TVM's TOPI computes on CPU; each relation's and reference's
docstring states its operator's rule and undefined cases. Every reference re-checks its
relation on the run-time shapes: run-time shapes that contradict what a relation accepted
because a dimension was ``?`` or symbolic are undefined behaviour.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
import numpy.typing as npt

from ..errors import UndefinedBehavior
from ..syntax import TensorType, TupleType, Type
from .create import _attrs, _dtype, _tensor_list, _type_of
from .index import _is_integer, _run_time
from .registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    Tensor,
    attr_field,
    tensor_reference,
)
from .shapes import normalize_axis


@dataclass(frozen=True, slots=True)
class ArgsortAttrs(Attrs):
    """Attributes of ``sort`` and ``argsort``: the axis, the order, the index dtype."""

    type_key: ClassVar[str] = "relay.attrs.ArgsortAttrs"
    axis: int = attr_field(AttrKind.INT, -1, doc="Axis along which to sort.")
    is_ascend: bool = attr_field(AttrKind.BOOL, True, doc="Sort in ascending order.")
    dtype: str = attr_field(AttrKind.DTYPE, "", doc="DType of the output indices.")


@dataclass(frozen=True, slots=True)
class TopKAttrs(Attrs):
    """Attributes of ``topk``: how many, along which axis, what to return, the order."""

    type_key: ClassVar[str] = "relay.attrs.TopkAttrs"
    k: int | None = attr_field(
        AttrKind.INT, None, optional=True, doc="Number of top elements (< 1: all)."
    )
    axis: int = attr_field(AttrKind.INT, -1, doc="Axis along which to sort.")
    ret_type: str = attr_field(AttrKind.STR, "both", doc='"both", "values" or "indices".')
    is_ascend: bool = attr_field(AttrKind.BOOL, False, doc="Take the smallest, not largest.")
    dtype: str = attr_field(AttrKind.DTYPE, "", doc="Data type of the output indices.")


@dataclass(frozen=True, slots=True)
class SearchSortedAttrs(Attrs):
    """Attributes of ``searchsorted``: which side of equal elements, the index dtype."""

    type_key: ClassVar[str] = "relay.attrs.SearchSortedAttrs"
    right: bool = attr_field(AttrKind.BOOL, False, doc="Count elements <= value, not <.")
    dtype: str = attr_field(AttrKind.DTYPE, "int32", doc="Data type of the output indices.")


IntArray = npt.NDArray[np.int64]


def _index_dtype(dtype: str) -> str:
    _dtype(dtype)
    if not _is_integer(dtype):
        raise RelationError(f"expected an integer dtype attribute, found {dtype}")
    return dtype


def _sort_axis(data: TensorType, axis: int) -> int:
    return normalize_axis(axis, len(data.shape))


def _sort_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Sort``: the axis in range; the result has data's type.

    Departure from TVM: the axis is checked (TVM's relation did not)."""
    a = _attrs(attrs, ArgsortAttrs)
    (data,) = _tensor_list(arg_types, ("data",))
    _sort_axis(data, a.axis)
    return TensorType(data.shape, data.dtype)


def _argsort_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Argsort``: the axis in range; data's shape with the ``dtype`` attribute."""
    a = _attrs(attrs, ArgsortAttrs)
    (data,) = _tensor_list(arg_types, ("data",))
    _sort_axis(data, a.axis)
    return TensorType(data.shape, _index_dtype(a.dtype))


def _topk_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``TopK``: the axis in range; ``ret_type`` both, values or indices; the axis extent
    becomes ``k`` (the whole axis when ``k < 1``); values of data's dtype, indices of ``dtype``;
    "both" gives the tuple ``(values, indices)``."""
    a = _attrs(attrs, TopKAttrs)
    (data,) = _tensor_list(arg_types, ("data",))
    if a.k is None:
        raise RelationError("expected a k attribute, found None")
    axis = _sort_axis(data, a.axis)
    if a.ret_type not in ("both", "values", "indices"):
        raise RelationError(
            f'expected ret_type "both", "values" or "indices", found "{a.ret_type}"'
        )
    shape = list(data.shape)
    if a.k >= 1:
        shape[axis] = a.k
    values = TensorType(tuple(shape), data.dtype)
    indices = TensorType(tuple(shape), _index_dtype(a.dtype))
    if a.ret_type == "both":
        return TupleType((values, indices))
    return values if a.ret_type == "values" else indices


def _order(data: Tensor, axis: int, ascend: bool, name: str) -> IntArray:
    """The stable sorting permutation along ``axis`` (ties keep index order)."""
    if data.dtype.kind == "f" and np.isnan(data).any():
        raise UndefinedBehavior(f"{name} of data containing NaN (no strict weak order)")
    keys = data if ascend else _descending_keys(data)
    return np.argsort(keys, axis=axis, kind="stable").astype(np.int64)


def _descending_keys(data: Tensor) -> Tensor:
    """Keys whose ascending order is ``data``'s descending order, with equal keys kept equal."""
    if data.dtype.kind == "f":
        return -data.astype(np.float64)
    if data.dtype == np.bool_:
        return np.logical_not(data)
    return np.asarray([-v for v in data.reshape(-1).tolist()], dtype=object).reshape(data.shape)


def _sort_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``sort``: a stable sort along the axis; ascending keeps equal keys in index order,
    descending too (ties keep the smaller index first).

    Undefined: float data containing NaN (the comparator is then not a strict weak order,
    which ``std::stable_sort`` requires)."""
    (data,) = args
    a = _attrs(attrs, ArgsortAttrs)
    _sort_relation((_type_of(data),), attrs)
    axis = a.axis % data.ndim
    return np.take_along_axis(data, _order(data, axis, a.is_ascend, "sort"), axis=axis)


def _argsort_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``argsort``: the permutation of ``sort``'s stable order, cast to ``dtype``.

    Undefined: float data containing NaN (as for ``sort``)."""
    (data,) = args
    a = _attrs(attrs, ArgsortAttrs)
    t = _argsort_relation((_type_of(data),), attrs)
    assert isinstance(t, TensorType)
    return _order(data, a.axis % data.ndim, a.is_ascend, "argsort").astype(t.dtype)


def _topk_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor | tuple[Tensor, ...]:
    """``topk``: the first ``k`` values and indices of ``sort``'s stable order (indices cast to
    ``dtype``), as ``ret_type`` asks.

    Undefined: float data containing NaN (as for ``sort``); ``k`` larger than the axis extent
    (TVM's relation allows it; the sort kernel then reads past the end of the sorted row)."""
    (data,) = args
    a = _attrs(attrs, TopKAttrs)
    t = _topk_relation((_type_of(data),), attrs)
    assert a.k is not None
    axis = a.axis % data.ndim
    order = _order(data, axis, a.is_ascend, "topk")
    count = a.k if a.k >= 1 else data.shape[axis]
    if count > data.shape[axis]:
        raise UndefinedBehavior(
            f"topk with k={a.k} beyond the axis extent {data.shape[axis]} (the kernel reads "
            "past the sorted row)"
        )
    first = np.take(order, np.arange(count), axis=axis)
    values = np.take_along_axis(data, first, axis=axis)
    index_dtype = t.fields[1].dtype if isinstance(t, TupleType) else t.dtype  # type: ignore[union-attr]
    indices = first.astype(index_dtype)
    if a.ret_type == "both":
        return values, indices
    return values if a.ret_type == "values" else indices


def _searchsorted_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``SearchSorted``: values of rank >= 1 and sorted_sequence of rank >= 1, of one dtype; a
    sequence of rank > 1 has values' rank and agrees on the outer extents where known; the
    result has values' shape and the ``dtype`` attribute (an integer dtype).

    Departure from TVM: equal dtypes and a sequence of rank >= 1 are required."""
    a = _attrs(attrs, SearchSortedAttrs)
    seq, values = _tensor_list(arg_types, ("sorted_sequence", "values"))
    if not values.shape:
        raise RelationError("expected values of rank >= 1, found rank 0")
    if not seq.shape:
        raise RelationError("expected sorted_sequence of rank >= 1, found rank 0")
    if seq.dtype != values.dtype:
        raise RelationError(
            f"expected sorted_sequence and values of one dtype, found {seq.dtype} and "
            f"{values.dtype}"
        )
    if len(seq.shape) > 1:
        if len(seq.shape) != len(values.shape):
            raise RelationError(
                f"expected values of the rank {len(seq.shape)} of sorted_sequence, found "
                f"rank {len(values.shape)}"
            )
        for i, (s, v) in enumerate(zip(seq.shape[:-1], values.shape[:-1], strict=True)):
            if isinstance(s, int) and isinstance(v, int) and s != v:
                raise RelationError(f"outer extents differ on axis {i}: {s} and {v}")
    return TensorType(values.shape, _index_dtype(a.dtype))


def _searchsorted_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``searchsorted``: for each value, the number of sequence elements ``< value`` (``<=``
    with ``right``), along the innermost axis of the matching row of the sequence.

    Undefined: a sequence that is not sorted ascending, or NaN in either operand (TVM's binary
    search assumes order)."""
    seq, values = args
    a = _attrs(attrs, SearchSortedAttrs)
    t = _run_time(
        "searchsorted",
        lambda: _searchsorted_relation((_type_of(seq), _type_of(values)), attrs),
    )
    assert isinstance(t, TensorType)
    if seq.dtype.kind == "f" and (np.isnan(seq).any() or np.isnan(values).any()):
        raise UndefinedBehavior("searchsorted with NaN (its binary search assumes order)")
    if seq.size and seq.shape[-1] > 1 and np.less(seq[..., 1:], seq[..., :-1]).any():
        raise UndefinedBehavior("searchsorted on a sequence that is not sorted ascending")
    side: Literal["left", "right"] = "right" if a.right else "left"
    out = np.zeros(values.shape, dtype=t.dtype)
    for outer in np.ndindex(*values.shape[:-1]):
        row = seq if seq.ndim == 1 else seq[outer]
        out[outer] = np.searchsorted(np.asarray(row), np.asarray(values[outer]), side=side)
    return out


_op = OpRegistrar(__name__, inputs=("data",), pattern=OpPattern.OPAQUE)


_op(
    "sort",
    "Sort data along axis (stable).",
    relation=_sort_relation,
    reference=tensor_reference(_sort_reference),
    check="onnxruntime:TopK",
    relation_name="Sort",
    attrs_type=ArgsortAttrs,
)


_op(
    "argsort",
    "The indices that sort data along axis (stable).",
    relation=_argsort_relation,
    reference=tensor_reference(_argsort_reference),
    check="onnxruntime:TopK",
    relation_name="Argsort",
    attrs_type=ArgsortAttrs,
)


_op(
    "topk",
    "The k largest (or smallest) elements along axis and their indices.",
    relation=_topk_relation,
    reference=tensor_reference(_topk_reference),
    check="onnxruntime:TopK",
    relation_name="TopK",
    attrs_type=TopKAttrs,
)


_op(
    "searchsorted",
    "Where each value would be inserted into the sorted innermost axis.",
    relation=_searchsorted_relation,
    reference=tensor_reference(_searchsorted_reference),
    check="independent:counting the elements below each value",
    relation_name="SearchSorted",
    inputs=("sorted_sequence", "values"),
    attrs_type=SearchSortedAttrs,
)
