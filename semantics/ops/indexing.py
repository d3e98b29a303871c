"""Indexing: operators that read or write elements at computed positions, sort, or make grids.

::

    gather(data, indices, axis=)                          GatherAttrs          injective
    gather_nd(data, indices, batch_dims=0, index_rank=None)
                                                          GatherNDAttrs        injective
    scatter_elements(data, indices, updates, axis=0, reduction="update")
                                                          ScatterElementsAttrs opaque
    scatter_nd(data, indices, updates, mode="update")     ScatterNDAttrs       opaque
    one_hot(indices, on_value, off_value, depth=1, axis=-1, dtype=)
                                                          OneHotAttrs          out-elemwise-fusable
    sort(data, axis=-1, is_ascend=True, dtype="")         ArgsortAttrs         opaque
    argsort(data, axis=-1, is_ascend=True, dtype=)        ArgsortAttrs         opaque
    topk(data, k=, axis=-1, ret_type="both", is_ascend=False, dtype=)
                                                          TopkAttrs            opaque
    searchsorted(sorted_sequence, values, right=False, dtype="int32")
                                                          SearchSortedAttrs    opaque
    unravel_index(data, shape)                            (none)               injective
    sparse_to_dense(sparse_indices, sparse_values, default_value, output_shape=)
                                                          SparseToDenseAttrs   opaque
    sequence_mask(data, valid_length, mask_value=0.0, axis=0)
                                                          SequenceMaskAttrs    injective
    invert_permutation(data)                              (none)               injective
    arange(start, stop, step, dtype=)                     ArangeAttrs          opaque
    meshgrid(data, indexing="ij")        data is a tuple  MeshgridAttrs        injective

``name=`` marks a field that must be given: required in TVM, or a TVM field whose default (a
null ``Integer`` or ``DataType``) every relation rejects: ``gather``'s ``axis``, ``topk``'s
``k``, and the ``dtype`` of ``one_hot``, ``argsort`` and ``topk`` (TVM's Python wrappers
always passed ``"int32"`` or a dtype; a null dtype would type the result as ``void``). Fields,
defaults and type keys follow TVM 0.18's ``include/tvm/relay/attrs/transform.h`` and
``algorithm.h`` (note the key ``relay.attrs.TopkAttrs``); relations follow
``src/relay/op/tensor/transform.cc`` and ``src/relay/op/algorithm/*.cc``. ``sort``, ``argsort``,
``topk`` and ``searchsorted`` registered no pattern, so they are opaque.

Type relations (named as TVM registered them; the name prefixes their error messages)::

    Gather          signed-integer indices of data's rank; axis in [-ndim, ndim); indices'
                    extent on axis >= 1 where known, the other extents equal data's; result
                    indices' shape, data's dtype
    GatherND        indices (M, Y_0..Y_{K-1}) with M a known integer, integer dtype;
                    0 <= batch_dims <= K, M + batch_dims <= ndim(data), Y_i = X_i for
                    i < batch_dims; result (Y_0..Y_{K-1}, X_{M+batch_dims}..), data's dtype
    ScatterElements integer indices; data, indices, updates of one rank; updates of data's
                    dtype and indices' shape; axis in range; reduction update, add, mul, min
                    or max; indices' other extents at most data's where known; data's type
    ScatterND       integer indices (M, Y_0..Y_{K-1}) with M a known integer <= ndim(data);
                    updates (Y_0..Y_{K-1}, X_M..X_{N-1}) of data's dtype; mode update, add,
                    mul, min or max; data's type
    OneHot          integer indices; rank-0 on_value and off_value; depth >= 1; axis in
                    [-1, ndim(indices)] (-1 is last); depth inserted at axis; dtype attribute
    Sort            axis in range; data's type
    Argsort         axis in range; data's shape, dtype attribute
    TopK            axis in range; ret_type both, values or indices; the axis extent becomes
                    k (the whole axis when k < 1); values of data's dtype, indices of dtype;
                    "both" gives the tuple (values, indices)
    SearchSorted    values of rank >= 1 and sorted_sequence of rank >= 1, of one dtype; a
                    sequence of rank > 1 has values' rank and agrees on the outer extents
                    where known; result values' shape, dtype attribute (an integer dtype)
    UnRavelIndexRel integer data of rank 0 or 1, an integer shape vector (S,): result (S,)
                    or (S, n), data's dtype
    SparseToDense   integer sparse_indices of rank 0, 1 or 2 ((N, ndim(output)) when rank
                    2; rank 0 and 1 need a rank-1 output), sparse_values of rank 0 or (N,),
                    a rank-0 default_value of the values' dtype; output_shape non-negative;
                    result output_shape, values' dtype
    SequenceMask    data of rank >= 2; axis 0 or 1; valid_length an integer vector of
                    data's extent at 1 - axis; data's type
    Identity        invert_permutation: an integer vector; its type
    Arange          rank-0 start, stop and step of dtype; result (?), dtype
    Meshgrid        a non-empty tuple of scalars and vectors of one dtype; one grid per field,
                    of extents (n_0, n_1, ...) (a scalar counts 1), the first two swapped when
                    indexing is "xy"

Meaning (what TVM's TOPI computes, on CPU):

- gather: ``out[i] = data[i with i[axis] replaced by indices[i]]``. gather_nd: each index
  tuple ``indices[:, y]`` selects a slice of data (after the batch dimensions, which are
  matched one-to-one). Neither wraps negative indices (the frontends normalise them first).
- scatter_elements copies data, then for each position ``i`` of indices, in row-major order,
  combines ``updates[i]`` into ``out[i with i[axis] replaced by indices[i]]`` (a negative
  index counts from the end once): ``update`` replaces, ``add``/``mul`` accumulate,
  ``min``/``max`` keep the extreme. scatter_nd does the same for each index tuple
  ``indices[:, y]``, which selects the slice of out that ``updates[y]`` covers (no negative
  wrap). Integer ``add``/``mul`` follow the arithmetic rules of ``elementwise`` (wrapping below
  32 bits, undefined overflow at 32 and 64).
- one_hot: ``out[..., j, ...] = on_value if indices[...] == j else off_value``, both cast to
  dtype as ``cast`` does; an index outside ``[0, depth)`` (negative too) matches nothing.
- sort, argsort, topk: a stable sort along axis; ascending keeps equal keys in index order,
  descending too (ties keep the smaller index first). topk's values and indices are the first
  k of that order. Index outputs are cast to dtype.
- searchsorted: for each value, the number of sequence elements ``< value`` (``<=`` with
  right), along the innermost axis of the matching row of the sequence.
- unravel_index: the coordinates of each flat index in a row-major tensor of the given shape.
- sparse_to_dense: default_value everywhere, then ``sparse_values[n]`` (or the scalar) at
  each index tuple ``sparse_indices[n]``.
- sequence_mask: elements whose position along axis is at least ``valid_length[b]`` (b the
  position along the other of axes 0 and 1) become mask_value, converted to data's dtype
  (truncated for integers, as ``make_const`` did); the rest are kept.
- invert_permutation: ``out[data[i]] = i``.
- arange: ``n = ceil((stop - start) / step)`` evaluated in double precision;
  ``out[i] = start + step * i`` computed in dtype (start, stop, step are of dtype). The
  relation only sees types, so the result is ``(?)`` (TVM's ArangeRel gave a known extent
  when the three arguments were constants, which it read from copies kept in the attributes;
  those copies are Relay expressions, not attribute values, and are omitted here). The shape
  function gives ``(n,)``.
- meshgrid: grid k holds ``data[k][i_k]`` at every position ``(i_0, i_1, ...)`` ("ij"); with
  "xy" the first two grid axes are swapped.

Undefined behaviour (``UndefinedBehavior``), with where TVM 0.18 left each case undefined:

- An index outside ``[0, extent)`` in gather, gather_nd, scatter_nd, sparse_to_dense and
  invert_permutation, or outside ``[-extent, extent)`` in scatter_elements: their computes
  (``topi::gather``, ``topi::gather_nd``, ``topi.scatter_nd``, ``topi::sparse_to_dense``,
  ``topi.invert_permutation``, ``topi.scatter_elements``) index buffers without checks.
  invert_permutation of a vector that is not a permutation (a repeated value leaves part of
  the output unwritten).
- Two writes to one position with reduction/mode "update" (scatter_elements, scatter_nd) or
  in sparse_to_dense: the GPU schedules write in parallel, so which one wins is unspecified.
- unravel_index of a negative flat index, one beyond the shape's size, or a shape with an
  entry <= 0 (TOPI divides by the entries and trusts the bound).
- sort, argsort, topk of float data containing NaN (the comparator is then not a strict
  weak order, which ``std::stable_sort`` requires); searchsorted on a sequence that is not
  sorted ascending, or with NaN (its binary search assumes order).
- topk with k larger than the axis extent (TVM's relation allows it; the sort kernel then
  reads past the end of the sorted row).
- arange with a step of 0, a non-finite n, a negative n (the shape function allocates a
  negative extent), or an element that the integer dtype cannot hold.
- one_hot's on/off value and sequence_mask's mask_value when the conversion is undefined
  (float to integer out of range or NaN, as ``cast``).
- Run-time shapes that contradict what a relation accepted because a dimension was ``?`` or
  symbolic (every reference re-checks its relation on the run-time shapes).

Deliberate departures from TVM (each a case where TVM crashed, gave no meaning, or typed a
program its compute could not build): gather's ``axis`` None is rejected (the relation
dereferences it); gather_nd, one_hot, sequence_mask, invert_permutation and unravel_index
require integer indices (TVM cast float indices or did not check); scatter_elements checks
the ranks, the updates' shape and dtype, and rejects the "mean" reduction, whose TOPI
meaning this spec does not define; scatter_nd checks the updates' dtype; one_hot rejects an
axis below -1 or above the rank, and non-scalar on/off values; sort checks its axis;
searchsorted requires equal dtypes and a sequence of rank >= 1; unravel_index requires a
rank-1 shape and indices of rank <= 1 (TVM's relation ignores the rest of the indices' shape);
sparse_to_dense requires indices of rank <= 2 (TVM allowed 3), values of rank <= 1, matching
extents and dtypes; arange requires its inputs to be rank-0 tensors of the dtype (TVM's
relation assigned those types).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal, TypeVar

import numpy as np
import numpy.typing as npt

from ..errors import UndefinedBehavior
from ..syntax import ANY, Dim, TensorType, TupleType, Type, is_dtype
from .registry import (
    AttrKind,
    Attrs,
    OpDef,
    OpPattern,
    RelationError,
    Tensor,
    attr_field,
    register,
)
from .shapes import dims_equal, normalize_axis, tensor_arg, tuple_arg

# ---------------------------------------------------------------------------------------------
# Attributes


@dataclass(frozen=True, slots=True)
class GatherAttrs(Attrs):
    """Attributes of ``gather``: the axis indexed."""

    type_key: ClassVar[str] = "relay.attrs.GatherAttrs"
    axis: int | None = attr_field(
        AttrKind.INT, None, optional=True, doc="The axis over which to select values."
    )


@dataclass(frozen=True, slots=True)
class GatherNDAttrs(Attrs):
    """Attributes of ``gather_nd``: leading batch axes, and the (unused) index tuple size."""

    type_key: ClassVar[str] = "relay.attrs.GatherNDAttrs"
    batch_dims: int = attr_field(AttrKind.INT, 0, doc="The number of batch dimensions.")
    index_rank: int | None = attr_field(
        AttrKind.INT,
        None,
        optional=True,
        doc="The size of an index tuple; only needed when it is dynamic (unused here).",
    )


@dataclass(frozen=True, slots=True)
class ScatterElementsAttrs(Attrs):
    """Attributes of ``scatter_elements``: the axis written and how updates combine."""

    type_key: ClassVar[str] = "relay.attrs.ScatterElementsAttrs"
    axis: int = attr_field(AttrKind.INT, 0, doc="The axis over which to select values.")
    reduction: str = attr_field(
        AttrKind.STR, "update", doc='"update", "add", "mul", "min" or "max".'
    )


@dataclass(frozen=True, slots=True)
class ScatterNDAttrs(Attrs):
    """Attributes of ``scatter_nd``: how updates combine with data."""

    type_key: ClassVar[str] = "relay.attrs.ScatterNDAttrs"
    mode: str = attr_field(AttrKind.STR, "update", doc='"update", "add", "mul", "min" or "max".')


@dataclass(frozen=True, slots=True)
class OneHotAttrs(Attrs):
    """Attributes of ``one_hot``: the depth, where its axis goes, and the result dtype."""

    type_key: ClassVar[str] = "relay.attrs.OneHotAttrs"
    depth: int = attr_field(AttrKind.INT, 1, doc="Depth of the one hot dimension.")
    axis: int = attr_field(AttrKind.INT, -1, doc="Axis to fill (-1: last).")
    dtype: str = attr_field(AttrKind.DTYPE, "", doc="Output data type.")


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


@dataclass(frozen=True, slots=True)
class SparseToDenseAttrs(Attrs):
    """Attributes of ``sparse_to_dense``: the dense shape."""

    type_key: ClassVar[str] = "relay.attrs.SparseToDenseAttrs"
    output_shape: tuple[int, ...] = attr_field(
        AttrKind.INTS, doc="Shape of the dense output tensor."
    )


@dataclass(frozen=True, slots=True)
class SequenceMaskAttrs(Attrs):
    """Attributes of ``sequence_mask``: the value written and the length axis."""

    type_key: ClassVar[str] = "relay.attrs.SequenceMaskAttrs"
    mask_value: float = attr_field(AttrKind.FLOAT, 0.0, doc="The masking value.")
    axis: int = attr_field(AttrKind.INT, 0, doc="The axis of the length dimension: 0 or 1.")


@dataclass(frozen=True, slots=True)
class ArangeAttrs(Attrs):
    """Attributes of ``arange``: the result dtype (TVM's copies of the inputs are omitted)."""

    type_key: ClassVar[str] = "relay.attrs.ArangeAttrs"
    dtype: str = attr_field(AttrKind.DTYPE, doc="Target data type.")


@dataclass(frozen=True, slots=True)
class MeshgridAttrs(Attrs):
    """Attributes of ``meshgrid``: matrix ("ij") or cartesian ("xy") indexing."""

    type_key: ClassVar[str] = "relay.attrs.MeshgridAttrs"
    indexing: str = attr_field(AttrKind.STR, "ij", doc='"ij" (matrix) or "xy" (cartesian).')


# ---------------------------------------------------------------------------------------------
# Shared helpers

_A = TypeVar("_A", bound=Attrs)
_R = TypeVar("_R")
IntArray = npt.NDArray[np.int64]

_REDUCTIONS = ("update", "add", "mul", "min", "max")


def _attrs(attrs: Attrs | None, cls: type[_A]) -> _A:
    if not isinstance(attrs, cls):
        found = "no attributes" if attrs is None else type(attrs).__name__
        raise RelationError(f"expected {cls.__name__}, found {found}")
    return attrs


def _arity(arg_types: tuple[Type, ...], n: int) -> None:
    if len(arg_types) != n:
        raise RelationError(f"expected {n} argument(s), found {len(arg_types)}")


def _tensors(arg_types: tuple[Type, ...], names: Sequence[str]) -> list[TensorType]:
    _arity(arg_types, len(names))
    return [tensor_arg(t, name) for t, name in zip(arg_types, names, strict=True)]


def _is_integer(dtype: str) -> bool:
    """A signed or unsigned integer dtype (not bool)."""
    return dtype.startswith(("int", "uint"))


def _integer(t: TensorType, what: str, *, signed_only: bool = False) -> None:
    ok = t.dtype.startswith("int") if signed_only else _is_integer(t.dtype)
    if not ok:
        kind = "a signed integer" if signed_only else "an integer"
        raise RelationError(f"expected {kind} dtype for {what}, found {t.dtype}")


def _dtype(dtype: str, what: str = "dtype") -> str:
    if not is_dtype(dtype):
        raise RelationError(f'expected a {what} attribute, found "{dtype}"')
    return dtype


def _index_dtype(dtype: str) -> str:
    _dtype(dtype)
    if not _is_integer(dtype):
        raise RelationError(f"expected an integer dtype attribute, found {dtype}")
    return dtype


def _fmt(shape: Sequence[Dim]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _type_of(value: Tensor) -> TensorType:
    return TensorType(tuple(int(d) for d in value.shape), value.dtype.name)


def _run_time(name: str, check: Callable[[], _R]) -> _R:
    """Run a relation on run-time shapes; a failure is undefined (the static type allowed it)."""
    try:
        return check()
    except RelationError as e:
        raise UndefinedBehavior(
            f"{name}: at run time, {e} (the static type left this unchecked)"
        ) from None


def _shape(t: Type) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    assert all(isinstance(d, int) for d in t.shape)
    return tuple(int(d) for d in t.shape)  # type: ignore[arg-type]


def _ints(a: Tensor) -> list[int]:
    """The elements of an integer array as Python integers (uint64 kept exact)."""
    return [int(v) for v in a.reshape(-1).tolist()]


def _check_range(name: str, values: Sequence[int], low: int, high: int) -> None:
    for v in values:
        if not low <= v < high:
            raise UndefinedBehavior(
                f"{name}: index {v} outside [{low}, {high}) reads out of bounds"
            )


def _no_duplicates(name: str, targets: Sequence[object]) -> None:
    if len(set(targets)) != len(targets):
        raise UndefinedBehavior(
            f'{name}: two updates of one position with mode "update" (the GPU schedules '
            "write in parallel, so the winner is unspecified)"
        )


def _combine(name: str, old: Tensor, new: Tensor, mode: str) -> Tensor:
    """``old`` combined with ``new`` (arrays of one dtype) by ``mode``, per element."""
    if mode == "update":
        return new
    if mode in ("min", "max"):
        pick = np.minimum if mode == "min" else np.maximum
        return np.asarray(pick(old, new), dtype=old.dtype)
    if old.dtype == np.bool_:
        # LLVM's i1 arithmetic: add wraps (xor), multiply is and.
        return np.asarray(
            np.logical_xor(old, new) if mode == "add" else np.logical_and(old, new), dtype=np.bool_
        )
    if old.dtype.kind in "iu" and old.dtype.itemsize >= 4:
        exact = [
            (a + b if mode == "add" else a * b) for a, b in zip(_ints(old), _ints(new), strict=True)
        ]
        info = np.iinfo(old.dtype.name)
        if any(not info.min <= v <= info.max for v in exact):
            raise UndefinedBehavior(f"{name}: {old.dtype} overflow in {mode} (nsw/nuw poison)")
    with np.errstate(all="ignore"):
        out = np.add(old, new) if mode == "add" else np.multiply(old, new)
    return np.asarray(out, dtype=old.dtype)


def _convert(name: str, value: float | Tensor, dtype: str) -> Tensor:
    """A value converted to ``dtype`` as ``cast`` does; undefined float-to-int conversions."""
    arr = np.asarray(value)
    target = np.dtype(dtype)
    if arr.dtype.kind == "f" and target.kind in "iu":
        v = float(arr)
        info = np.iinfo(target)
        if not math.isfinite(v) or not info.min <= math.trunc(v) <= info.max:
            raise UndefinedBehavior(f"{name}: {v} converted to {dtype} is poison")
        return np.asarray(math.trunc(v), dtype=target)
    if target == np.bool_:
        return np.asarray(bool(arr != 0) and not bool(np.isnan(arr)), dtype=target)
    with np.errstate(all="ignore"):
        return np.asarray(arr).astype(target)


# ---------------------------------------------------------------------------------------------
# gather


def _gather_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, GatherAttrs)
    data, indices = _tensors(arg_types, ("data", "indices"))
    _integer(indices, "indices", signed_only=True)
    if a.axis is None:
        raise RelationError("expected an axis attribute, found None")
    if len(indices.shape) != len(data.shape):
        raise RelationError(
            f"expected indices of the rank {len(data.shape)} of data, found rank "
            f"{len(indices.shape)}"
        )
    axis = normalize_axis(a.axis, len(data.shape))
    for i, (d, k) in enumerate(zip(data.shape, indices.shape, strict=True)):
        if i == axis:
            if isinstance(k, int) and k < 1:
                raise RelationError(f"expected an indices extent >= 1 on axis {axis}, found {k}")
        elif dims_equal(d, k) is False:
            raise RelationError(f"expected indices extent {d} (data's) on axis {i}, found {k}")
    return TensorType(indices.shape, data.dtype)


def _gather_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    data, indices = args
    a = _attrs(attrs, GatherAttrs)
    _run_time("gather", lambda: _gather_relation((_type_of(data), _type_of(indices)), attrs))
    assert a.axis is not None
    axis = a.axis % data.ndim
    idx = indices.astype(np.int64)
    _check_range("gather", _ints(idx), 0, data.shape[axis])
    return np.take_along_axis(data, idx, axis=axis)


# ---------------------------------------------------------------------------------------------
# gather_nd


def _gather_nd_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, GatherNDAttrs)
    data, indices = _tensors(arg_types, ("data", "indices"))
    _integer(indices, "indices")
    if not indices.shape:
        raise RelationError("expected indices of rank >= 1, found rank 0")
    m = indices.shape[0]
    if not isinstance(m, int):
        raise RelationError(f"expected a known first extent of indices, found {m}")
    k = len(indices.shape) - 1
    b = a.batch_dims
    if not 0 <= b <= k:
        raise RelationError(f"expected batch_dims in [0, {k}], found {b}")
    if m + b > len(data.shape):
        raise RelationError(
            f"expected index tuples of size {m} plus batch_dims {b} at most the rank "
            f"{len(data.shape)} of data"
        )
    for i in range(b):
        if dims_equal(data.shape[i], indices.shape[i + 1]) is False:
            raise RelationError(
                f"expected equal batch extents, found {data.shape[i]} in data and "
                f"{indices.shape[i + 1]} in indices at batch dimension {i}"
            )
    return TensorType((*indices.shape[1:], *data.shape[m + b :]), data.dtype)


def _gather_nd_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    data, indices = args
    a = _attrs(attrs, GatherNDAttrs)
    out = _shape(
        _run_time(
            "gather_nd", lambda: _gather_nd_relation((_type_of(data), _type_of(indices)), attrs)
        )
    )
    m, b = indices.shape[0], a.batch_dims
    for j in range(m):
        _check_range("gather_nd", _ints(indices[j]), 0, data.shape[b + j])
    ys = indices.shape[1:]
    result = np.zeros(out, dtype=data.dtype)
    for y in np.ndindex(*ys):
        position = (*y[:b], *(int(indices[(j, *y)]) for j in range(m)))
        result[y] = data[position]
    return result


# ---------------------------------------------------------------------------------------------
# scatter_elements


def _scatter_elements_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, ScatterElementsAttrs)
    data, indices, updates = _tensors(arg_types, ("data", "indices", "updates"))
    _integer(indices, "indices")
    if a.reduction not in _REDUCTIONS:
        raise RelationError(
            f'expected reduction "update", "add", "mul", "min" or "max", found "{a.reduction}"'
        )
    if not len(data.shape) == len(indices.shape) == len(updates.shape):
        raise RelationError(
            f"expected data, indices and updates of one rank, found {len(data.shape)}, "
            f"{len(indices.shape)} and {len(updates.shape)}"
        )
    if updates.dtype != data.dtype:
        raise RelationError(f"expected updates of dtype {data.dtype}, found {updates.dtype}")
    axis = normalize_axis(a.axis, len(data.shape))
    for i, (d, k, u) in enumerate(zip(data.shape, indices.shape, updates.shape, strict=True)):
        if dims_equal(k, u) is False:
            raise RelationError(
                f"expected updates of the shape of indices {_fmt(indices.shape)}, found "
                f"{_fmt(updates.shape)}"
            )
        if i != axis and isinstance(d, int) and isinstance(k, int) and k > d:
            raise RelationError(f"indices extent {k} exceeds data's {d} on axis {i}")
    return TensorType(data.shape, data.dtype)


def _scatter_elements_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    data, indices, updates = args
    a = _attrs(attrs, ScatterElementsAttrs)
    types = (_type_of(data), _type_of(indices), _type_of(updates))
    _run_time("scatter_elements", lambda: _scatter_elements_relation(types, attrs))
    axis = a.axis % data.ndim
    extent = data.shape[axis]
    out = data.copy()
    targets = []
    for i in np.ndindex(*indices.shape):
        k = int(indices[i])
        if not -extent <= k < extent:
            raise UndefinedBehavior(
                f"scatter_elements: index {k} outside [{-extent}, {extent}) writes out of bounds"
            )
        targets.append((*i[:axis], k % extent, *i[axis + 1 :]))
    if a.reduction == "update":
        _no_duplicates("scatter_elements", targets)
    for i, t in zip(np.ndindex(*indices.shape), targets, strict=True):
        out[t] = _combine("scatter_elements", out[t], updates[i], a.reduction)
    return out


# ---------------------------------------------------------------------------------------------
# scatter_nd


def _scatter_nd_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, ScatterNDAttrs)
    data, indices, updates = _tensors(arg_types, ("data", "indices", "updates"))
    _integer(indices, "indices")
    if a.mode not in _REDUCTIONS:
        raise RelationError(
            f'expected mode "update", "add", "mul", "min" or "max", found "{a.mode}"'
        )
    if updates.dtype != data.dtype:
        raise RelationError(f"expected updates of dtype {data.dtype}, found {updates.dtype}")
    if not indices.shape:
        raise RelationError("expected indices of rank >= 1, found rank 0")
    m = indices.shape[0]
    if not isinstance(m, int):
        raise RelationError(f"expected a known first extent of indices, found {m}")
    if m > len(data.shape):
        raise RelationError(
            f"expected index tuples of size at most the rank {len(data.shape)} of data, found {m}"
        )
    want = (*indices.shape[1:], *data.shape[m:])
    if len(updates.shape) != len(want) or any(
        dims_equal(u, w) is False for u, w in zip(updates.shape, want, strict=True)
    ):
        raise RelationError(f"expected updates of shape {_fmt(want)}, found {_fmt(updates.shape)}")
    return TensorType(data.shape, data.dtype)


def _scatter_nd_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    data, indices, updates = args
    a = _attrs(attrs, ScatterNDAttrs)
    types = (_type_of(data), _type_of(indices), _type_of(updates))
    _run_time("scatter_nd", lambda: _scatter_nd_relation(types, attrs))
    m = indices.shape[0]
    for j in range(m):
        _check_range("scatter_nd", _ints(indices[j]), 0, data.shape[j])
    ys = list(np.ndindex(*indices.shape[1:]))
    targets = [tuple(int(indices[(j, *y)]) for j in range(m)) for y in ys]
    if a.mode == "update" and math.prod(data.shape[m:]) > 0:
        _no_duplicates("scatter_nd", targets)
    out = data.copy()
    for y, t in zip(ys, targets, strict=True):
        out[t] = _combine("scatter_nd", out[t], updates[y], a.mode)
    return out


# ---------------------------------------------------------------------------------------------
# one_hot


def _one_hot_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, OneHotAttrs)
    indices, on, off = _tensors(arg_types, ("indices", "on_value", "off_value"))
    _integer(indices, "indices")
    for t, what in ((on, "on_value"), (off, "off_value")):
        if t.shape:
            raise RelationError(f"expected a scalar {what} (rank 0), found {_fmt(t.shape)}")
    if a.depth < 1:
        raise RelationError(f"expected depth >= 1, found {a.depth}")
    ndim = len(indices.shape)
    if not -1 <= a.axis <= ndim:
        raise RelationError(
            f"axis={a.axis} is out of range [-1, {ndim}] for indices of rank {ndim}"
        )
    dtype = _dtype(a.dtype)
    at = ndim if a.axis == -1 else a.axis
    return TensorType((*indices.shape[:at], a.depth, *indices.shape[at:]), dtype)


def _one_hot_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    indices, on, off = args
    a = _attrs(attrs, OneHotAttrs)
    t = _one_hot_relation((_type_of(indices), _type_of(on), _type_of(off)), attrs)
    assert isinstance(t, TensorType)
    on_v, off_v = _convert("one_hot", on, t.dtype), _convert("one_hot", off, t.dtype)
    at = indices.ndim if a.axis == -1 else a.axis
    positions = np.arange(a.depth).reshape((a.depth,) + (1,) * (indices.ndim - at))
    hit = np.expand_dims(indices, at).astype(object) == positions.astype(object)
    return np.where(hit, on_v, off_v).astype(t.dtype)


# ---------------------------------------------------------------------------------------------
# sort, argsort, topk


def _sort_axis(data: TensorType, axis: int) -> int:
    return normalize_axis(axis, len(data.shape))


def _sort_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, ArgsortAttrs)
    (data,) = _tensors(arg_types, ("data",))
    _sort_axis(data, a.axis)
    return TensorType(data.shape, data.dtype)


def _argsort_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, ArgsortAttrs)
    (data,) = _tensors(arg_types, ("data",))
    _sort_axis(data, a.axis)
    return TensorType(data.shape, _index_dtype(a.dtype))


def _topk_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, TopKAttrs)
    (data,) = _tensors(arg_types, ("data",))
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
    (data,) = args
    a = _attrs(attrs, ArgsortAttrs)
    _sort_relation((_type_of(data),), attrs)
    axis = a.axis % data.ndim
    return np.take_along_axis(data, _order(data, axis, a.is_ascend, "sort"), axis=axis)


def _argsort_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    (data,) = args
    a = _attrs(attrs, ArgsortAttrs)
    t = _argsort_relation((_type_of(data),), attrs)
    assert isinstance(t, TensorType)
    return _order(data, a.axis % data.ndim, a.is_ascend, "argsort").astype(t.dtype)


def _topk_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor | tuple[Tensor, ...]:
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


# ---------------------------------------------------------------------------------------------
# searchsorted


def _searchsorted_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, SearchSortedAttrs)
    seq, values = _tensors(arg_types, ("sorted_sequence", "values"))
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
    seq, values = args
    a = _attrs(attrs, SearchSortedAttrs)
    t = _run_time(
        "searchsorted",
        lambda: _searchsorted_relation((_type_of(seq), _type_of(values)), attrs),
    )
    assert isinstance(t, TensorType)
    if seq.dtype.kind == "f" and (np.isnan(seq).any() or np.isnan(values).any()):
        raise UndefinedBehavior("searchsorted with NaN (its binary search assumes order)")
    rows = seq.reshape(-1, seq.shape[-1])
    if seq.shape[-1] > 1 and np.less(rows[:, 1:], rows[:, :-1]).any():
        raise UndefinedBehavior("searchsorted on a sequence that is not sorted ascending")
    side: Literal["left", "right"] = "right" if a.right else "left"
    out = np.zeros(values.shape, dtype=t.dtype)
    for outer in np.ndindex(*values.shape[:-1]):
        row = seq if seq.ndim == 1 else seq[outer]
        out[outer] = np.searchsorted(np.asarray(row), np.asarray(values[outer]), side=side)
    return out


# ---------------------------------------------------------------------------------------------
# unravel_index


def _unravel_index_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    data, shape = _tensors(arg_types, ("data", "shape"))
    _integer(data, "data")
    _integer(shape, "shape")
    if len(shape.shape) != 1:
        raise RelationError(f"expected a shape vector (rank 1), found rank {len(shape.shape)}")
    if len(data.shape) > 1:
        raise RelationError(f"expected data of rank 0 or 1, found rank {len(data.shape)}")
    return TensorType((shape.shape[0], *data.shape), data.dtype)


def _unravel_index_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    data, shape = args
    t = _unravel_index_relation((_type_of(data), _type_of(shape)), attrs)
    dims = _ints(shape)
    if any(d <= 0 for d in dims):
        raise UndefinedBehavior(f"unravel_index with shape {dims}: an entry <= 0")
    total = math.prod(dims)
    out = np.zeros(_shape(t), dtype=data.dtype)
    for position, flat in zip(np.ndindex(*data.shape), _ints(data), strict=True):
        if not 0 <= flat < total:
            raise UndefinedBehavior(f"unravel_index of {flat} outside [0, {total})")
        for i in reversed(range(len(dims))):
            flat, out[(i, *position)] = divmod(flat, dims[i])
    return out


# ---------------------------------------------------------------------------------------------
# sparse_to_dense


def _sparse_to_dense_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, SparseToDenseAttrs)
    indices, values, default = _tensors(
        arg_types, ("sparse_indices", "sparse_values", "default_value")
    )
    _integer(indices, "sparse_indices", signed_only=True)
    out = a.output_shape
    if any(d < 0 for d in out):
        raise RelationError(f"expected non-negative dimensions in output_shape, found {out}")
    if len(indices.shape) > 2:
        raise RelationError(f"expected sparse_indices of rank <= 2, found {len(indices.shape)}")
    if len(values.shape) > 1:
        raise RelationError(f"expected sparse_values of rank <= 1, found {len(values.shape)}")
    if default.shape:
        raise RelationError(f"expected a scalar default_value, found {_fmt(default.shape)}")
    if default.dtype != values.dtype:
        raise RelationError(
            f"expected default_value of dtype {values.dtype}, found {default.dtype}"
        )
    width = indices.shape[1] if len(indices.shape) == 2 else 1
    if dims_equal(width, len(out)) is False:
        raise RelationError(
            f"expected index tuples of size {len(out)} (the output rank), found {width}"
        )
    count = indices.shape[0] if indices.shape else 1
    if values.shape and dims_equal(values.shape[0], count) is False:
        raise RelationError(f"expected {count} sparse_values, found {values.shape[0]}")
    return TensorType(out, values.dtype)


def _sparse_to_dense_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    indices, values, default = args
    a = _attrs(attrs, SparseToDenseAttrs)
    types = (_type_of(indices), _type_of(values), _type_of(default))
    _run_time("sparse_to_dense", lambda: _sparse_to_dense_relation(types, attrs))
    tuples = indices.reshape(-1, indices.shape[1] if indices.ndim == 2 else 1)
    targets = [tuple(int(v) for v in row) for row in tuples]
    for row in targets:
        for v, d in zip(row, a.output_shape, strict=True):
            _check_range("sparse_to_dense", [v], 0, d)
    _no_duplicates("sparse_to_dense", targets)
    out = np.full(a.output_shape, default, dtype=values.dtype)
    for n, target in enumerate(targets):
        out[target] = values[n] if values.ndim else values
    return out


# ---------------------------------------------------------------------------------------------
# sequence_mask


def _sequence_mask_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, SequenceMaskAttrs)
    data, valid = _tensors(arg_types, ("data", "valid_length"))
    if a.axis not in (0, 1):
        raise RelationError(f"expected axis 0 or 1, found {a.axis}")
    if len(data.shape) < 2:
        raise RelationError(f"expected data of rank >= 2, found rank {len(data.shape)}")
    _integer(valid, "valid_length")
    batch = data.shape[1 - a.axis]
    if len(valid.shape) != 1 or dims_equal(valid.shape[0], batch) is False:
        raise RelationError(f"expected valid_length of shape ({batch}), found {_fmt(valid.shape)}")
    return TensorType(data.shape, data.dtype)


def _sequence_mask_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    data, valid = args
    a = _attrs(attrs, SequenceMaskAttrs)
    _run_time(
        "sequence_mask",
        lambda: _sequence_mask_relation((_type_of(data), _type_of(valid)), attrs),
    )
    mask = _convert("sequence_mask", a.mask_value, data.dtype.name)
    steps = np.arange(data.shape[a.axis]).astype(object)
    lengths = valid.astype(object)
    # masked[s, b] (axis 0) or masked[b, s] (axis 1): step s is at or past length b.
    masked = steps[:, None] >= lengths[None, :]
    if a.axis == 1:
        masked = masked.T
    masked = masked.reshape(masked.shape + (1,) * (data.ndim - 2)).astype(bool)
    return np.where(masked, mask, data).astype(data.dtype)


# ---------------------------------------------------------------------------------------------
# invert_permutation


def _invert_permutation_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    (data,) = _tensors(arg_types, ("data",))
    _integer(data, "data")
    if len(data.shape) != 1:
        raise RelationError(f"expected a vector (rank 1), found rank {len(data.shape)}")
    return data


def _invert_permutation_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    (data,) = args
    _invert_permutation_relation((_type_of(data),), attrs)
    values = _ints(data)
    if sorted(values) != list(range(len(values))):
        raise UndefinedBehavior(f"invert_permutation of {values}, not a permutation")
    out = np.zeros(data.shape, dtype=data.dtype)
    out[np.asarray(values, dtype=np.int64)] = np.arange(len(values))
    return out


# ---------------------------------------------------------------------------------------------
# arange


def _arange_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, ArangeAttrs)
    dtype = _dtype(a.dtype)
    for t in _tensors(arg_types, ("start", "stop", "step")):
        if t.shape or t.dtype != dtype:
            raise RelationError(
                f"expected start, stop and step of type Tensor[(), {dtype}], found "
                f"Tensor[{_fmt(t.shape)}, {t.dtype}]"
            )
    return TensorType((ANY,), dtype)


def _arange_count(start: Tensor, stop: Tensor, step: Tensor) -> int:
    """``ceil((stop - start) / step)`` in double precision, or ``UndefinedBehavior``."""
    s0, s1, s2 = float(start), float(stop), float(step)
    if s2 == 0:
        raise UndefinedBehavior("arange with step 0")
    n = (s1 - s0) / s2
    if not math.isfinite(n):
        raise UndefinedBehavior(f"arange with a non-finite count ({s1} - {s0}) / {s2}")
    count = math.ceil(n)
    if count < 0:
        raise UndefinedBehavior(f"arange with a negative count {count}")
    return count


def _arange_shape(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[int, ...]:
    start, stop, step = args
    return (_arange_count(start, stop, step),)


def _arange_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    start, stop, step = args
    t = _arange_relation((_type_of(start), _type_of(stop), _type_of(step)), attrs)
    assert isinstance(t, TensorType)
    n = _arange_count(start, stop, step)
    if np.dtype(t.dtype).kind in "iub":
        exact = [int(start) + int(step) * i for i in range(n)]
        if t.dtype != "bool":
            info = np.iinfo(np.dtype(t.dtype))
            if any(not info.min <= v <= info.max for v in exact):
                raise UndefinedBehavior(f"arange: an element overflows {t.dtype}")
        return np.asarray(exact, dtype=t.dtype).reshape((n,))
    i = np.arange(n).astype(t.dtype)
    with np.errstate(all="ignore"):
        return np.asarray(start + step * i, dtype=t.dtype).reshape((n,))


# ---------------------------------------------------------------------------------------------
# meshgrid


def _meshgrid_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, MeshgridAttrs)
    _arity(arg_types, 1)
    fields = tuple_arg(arg_types[0], "data")
    if not fields:
        raise RelationError("expected a non-empty tuple of tensors for data, found ()")
    if a.indexing not in ("ij", "xy"):
        raise RelationError(f'expected indexing "ij" or "xy", found "{a.indexing}"')
    dtype = fields[0].dtype
    grid: list[Dim] = []
    for i, f in enumerate(fields):
        if f.dtype != dtype:
            raise RelationError(
                f"meshgrid requires tensors of one dtype: field 0 is {dtype}, field {i} is "
                f"{f.dtype}"
            )
        if len(f.shape) > 1:
            raise RelationError(
                f"expected scalars or vectors, found rank {len(f.shape)} in field {i}"
            )
        grid.append(f.shape[0] if f.shape else 1)
    if a.indexing == "xy" and len(grid) >= 2:
        grid[0], grid[1] = grid[1], grid[0]
    return TupleType(tuple(TensorType(tuple(grid), dtype) for _ in fields))


def _meshgrid_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[Tensor, ...]:
    first: object = args[0] if len(args) == 1 else None
    fields = tuple(first) if isinstance(first, tuple | list) else args
    a = _attrs(attrs, MeshgridAttrs)
    t = _meshgrid_relation((TupleType(tuple(_type_of(f) for f in fields)),), attrs)
    assert isinstance(t, TupleType)
    grid = _shape(t.fields[0])
    n = len(fields)
    out = []
    for k, f in enumerate(fields):
        # Field k varies along grid axis k, except that "xy" swaps grid axes 0 and 1.
        along = k
        if a.indexing == "xy" and n >= 2 and k < 2:
            along = 1 - k
        shape = [1] * n
        shape[along] = f.size
        out.append(np.broadcast_to(f.reshape(shape), grid).copy())
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Records

_RECORDS: tuple[OpDef, ...] = (
    OpDef(
        "gather",
        ("data", "indices"),
        GatherAttrs,
        OpPattern.INJECTIVE,
        "Gather elements of data along axis at the positions in indices.",
        relation=_gather_relation,
        reference=_gather_reference,
        relation_name="Gather",
        family="transform",
        check="onnxruntime:GatherElements",
    ),
    OpDef(
        "gather_nd",
        ("data", "indices"),
        GatherNDAttrs,
        OpPattern.INJECTIVE,
        "Gather slices of data at the index tuples along the first axis of indices.",
        relation=_gather_nd_relation,
        reference=_gather_nd_reference,
        relation_name="GatherND",
        family="transform",
        check="onnxruntime:GatherND",
    ),
    OpDef(
        "scatter_elements",
        ("data", "indices", "updates"),
        ScatterElementsAttrs,
        OpPattern.OPAQUE,
        "Combine updates into a copy of data along axis at the positions in indices.",
        relation=_scatter_elements_relation,
        reference=_scatter_elements_reference,
        relation_name="ScatterElements",
        family="transform",
        check="onnxruntime:ScatterElements",
    ),
    OpDef(
        "scatter_nd",
        ("data", "indices", "updates"),
        ScatterNDAttrs,
        OpPattern.OPAQUE,
        "Combine slices of updates into a copy of data at the index tuples of indices.",
        relation=_scatter_nd_relation,
        reference=_scatter_nd_reference,
        relation_name="ScatterND",
        family="transform",
        check="onnxruntime:ScatterND",
    ),
    OpDef(
        "one_hot",
        ("indices", "on_value", "off_value"),
        OneHotAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "A one-hot encoding of indices along a new axis of extent depth.",
        relation=_one_hot_relation,
        reference=_one_hot_reference,
        relation_name="OneHot",
        family="transform",
        check="onnxruntime:OneHot",
    ),
    OpDef(
        "sort",
        ("data",),
        ArgsortAttrs,
        OpPattern.OPAQUE,
        "Sort data along axis (stable).",
        relation=_sort_relation,
        reference=_sort_reference,
        relation_name="Sort",
        family="transform",
        check="onnxruntime:TopK",
    ),
    OpDef(
        "argsort",
        ("data",),
        ArgsortAttrs,
        OpPattern.OPAQUE,
        "The indices that sort data along axis (stable).",
        relation=_argsort_relation,
        reference=_argsort_reference,
        relation_name="Argsort",
        family="transform",
        check="onnxruntime:TopK",
    ),
    OpDef(
        "topk",
        ("data",),
        TopKAttrs,
        OpPattern.OPAQUE,
        "The k largest (or smallest) elements along axis and their indices.",
        relation=_topk_relation,
        reference=_topk_reference,
        relation_name="TopK",
        family="transform",
        check="onnxruntime:TopK",
    ),
    OpDef(
        "searchsorted",
        ("sorted_sequence", "values"),
        SearchSortedAttrs,
        OpPattern.OPAQUE,
        "Where each value would be inserted into the sorted innermost axis.",
        relation=_searchsorted_relation,
        reference=_searchsorted_reference,
        relation_name="SearchSorted",
        family="transform",
        check="independent:counting the elements below each value",
    ),
    OpDef(
        "unravel_index",
        ("data", "shape"),
        None,
        OpPattern.INJECTIVE,
        "The coordinates of flat indices in a row-major tensor of the given shape.",
        relation=_unravel_index_relation,
        reference=_unravel_index_reference,
        relation_name="UnRavelIndexRel",
        family="transform",
        check="independent:numpy.unravel_index",
    ),
    OpDef(
        "sparse_to_dense",
        ("sparse_indices", "sparse_values", "default_value"),
        SparseToDenseAttrs,
        OpPattern.OPAQUE,
        "A dense tensor of output_shape from sparse index tuples and values.",
        relation=_sparse_to_dense_relation,
        reference=_sparse_to_dense_reference,
        relation_name="SparseToDense",
        family="transform",
        check="independent:dense mask built from the index tuples",
    ),
    OpDef(
        "sequence_mask",
        ("data", "valid_length"),
        SequenceMaskAttrs,
        OpPattern.INJECTIVE,
        "Replace elements past each sequence's valid length with mask_value.",
        relation=_sequence_mask_relation,
        reference=_sequence_mask_reference,
        relation_name="SequenceMask",
        family="transform",
        check="independent:element-by-element loop",
    ),
    OpDef(
        "invert_permutation",
        ("data",),
        None,
        OpPattern.INJECTIVE,
        "The inverse of the permutation data.",
        relation=_invert_permutation_relation,
        reference=_invert_permutation_reference,
        relation_name="Identity",
        family="transform",
        check="independent:numpy.argsort of the permutation",
    ),
    OpDef(
        "arange",
        ("start", "stop", "step"),
        ArangeAttrs,
        OpPattern.OPAQUE,
        "Evenly spaced values from start towards stop by step.",
        relation=_arange_relation,
        reference=_arange_reference,
        relation_name="Arange",
        family="transform",
        check="onnxruntime:Range",
        shape_func=_arange_shape,
    ),
    OpDef(
        "meshgrid",
        ("data",),
        MeshgridAttrs,
        OpPattern.INJECTIVE,
        "Coordinate grids from a tuple of coordinate vectors.",
        relation=_meshgrid_relation,
        reference=_meshgrid_reference,
        relation_name="Meshgrid",
        family="transform",
        check="independent:numpy.meshgrid",
    ),
)

for _op in _RECORDS:
    register(_op)
