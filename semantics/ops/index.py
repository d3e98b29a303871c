"""Indexing operators: take, slices, gather, scatter, one_hot and index arithmetic.

::

    take(data, indices, batch_dims=0, axis=None, mode="clip")   TakeAttrs            injective
    strided_slice(data, begin=, end=, strides=, slice_mode="end", axes=)
                                                                StridedSliceAttrs    injective
    slice_like(data, shape_like, axes=)                         SliceLikeAttrs       injective
    gather(data, indices, axis=)                                GatherAttrs          injective
    gather_nd(data, indices, batch_dims=0, index_rank=None)     GatherNDAttrs        injective
    scatter_elements(data, indices, updates, axis=0, reduction="update")
                                                                ScatterElementsAttrs opaque
    scatter_nd(data, indices, updates, mode="update")           ScatterNDAttrs       opaque
    one_hot(indices, on_value, off_value, depth=1, axis=-1, dtype=)
                                                                OneHotAttrs          out-fusable
    unravel_index(data, shape)                                  (none)               injective
    sparse_to_dense(sparse_indices, sparse_values, default_value, output_shape=)
                                                                SparseToDenseAttrs   opaque
    sequence_mask(data, valid_length, mask_value=0.0, axis=0)   SequenceMaskAttrs    injective
    invert_permutation(data)                                    (none)               injective

out-fusable is out_elemwise_fusable. ``name=`` also marks a TVM field whose default (a null
``Integer`` or ``DataType``) every relation rejects: ``gather``'s ``axis`` and ``one_hot``'s
``dtype`` (TVM's Python wrappers always passed one). Relations follow
``src/relay/op/tensor/transform.cc``; computes follow ``include/tvm/topi/transform.h`` and
``python/tvm/topi/scatter*.py``, which index buffers without checks: an index outside the
range a reference names is undefined, and so are run-time shapes that contradict what a
relation accepted because a dimension was ``?`` or symbolic (every reference re-checks its
relation). The helpers ``_run_time`` and ``_is_integer`` serve ``sort`` too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from ..errors import UndefinedBehavior
from ..syntax import ANY, Dim, TensorType, Type
from .create import (
    _arity,
    _attrs,
    _dtype,
    _fmt_shape,
    _out_shape,
    _show,
    _tensor_list,
    _type_of,
)
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
from .shape import _axis, _data, _provably_greater, _shape, _two
from .shapes import (
    dims_equal,
    normalize_axis,
    tensor_arg,
)


@dataclass(frozen=True, slots=True)
class TakeAttrs(Attrs):
    """Attributes of ``take``: the axis to index, and what out-of-range indices do."""

    type_key: ClassVar[str] = "relay.attrs.TakeAttrs"
    batch_dims: int = attr_field(AttrKind.INT, 0, doc="The number of leading batch axes.")
    axis: int | None = attr_field(
        AttrKind.INT, None, optional=True, doc="The axis to select along; None flattens data."
    )
    mode: str = attr_field(
        AttrKind.STR, "clip", doc='Out-of-range indices: "clip", "wrap" or "fast" (unchecked).'
    )


# kw_only: TVM declares the required `axes` after the defaulted `slice_mode`, and a plain
# dataclass cannot put a field without a default after one with a default.
@dataclass(frozen=True, slots=True, kw_only=True)
class StridedSliceAttrs(Attrs):
    """Attributes of ``strided_slice``: begin, end and stride per sliced axis."""

    type_key: ClassVar[str] = "relay.attrs.StridedSliceAttrs"
    begin: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, optional=True, doc="Begin index of each slice (inclusive)."
    )
    end: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, optional=True, doc="End index (exclusive), or size when slice_mode=size."
    )
    strides: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, optional=True, doc="Stride of each slice; may be negative."
    )
    slice_mode: str = attr_field(
        AttrKind.STR, "end", doc='"end": end holds end indices; "size": end holds sizes.'
    )
    axes: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, optional=True, doc="The axes sliced; None means the leading axes."
    )


_INT64_MAX = 2**63 - 1
"""TVM's stand-in for "to the end of the axis" in strided_slice (``max_value(int64)``)."""


_TAKE_MODES = ("clip", "wrap", "fast")


def _take_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Take``: indices of an integer (or bool) dtype; ``axis`` None gives indices' shape (data
    flattened), else ``data.shape[:axis] + indices.shape[batch_dims:] + data.shape[axis + 1:]``;
    ``mode`` clip, wrap or fast.

    Departures from TVM: a negative ``batch_dims`` is rejected (TakeRel adds ``ndim(indices)`` to
    ``axis`` instead of to ``batch_dims`` and then indexes the shape at a negative position); an
    ``axis`` equal to ``ndim(data)``, which TakeRel lets through and ``topi::take`` rejects, is
    rejected; batch extents that provably differ are rejected here rather than by ``topi::take``;
    a mode other than clip, wrap or fast is rejected (``topi::take`` treats it as wrap)."""
    a = _attrs(attrs, TakeAttrs)
    _arity(arg_types, 2)
    data = tensor_arg(arg_types[0], "data")
    indices = tensor_arg(arg_types[1], "indices")
    if not (indices.dtype == "bool" or indices.dtype.startswith(("int", "uint"))):
        raise RelationError(f"expected an integer dtype for indices, found {indices.dtype}")
    if a.mode not in _TAKE_MODES:
        raise RelationError(f'expected mode "clip", "wrap" or "fast", found mode="{a.mode}"')
    if a.axis is None:
        # The flattened take ignores batch_dims (topi::take without an axis).
        return TensorType(indices.shape, data.dtype)
    axis = _axis(a.axis, len(data.shape), f"axis={a.axis}")
    bd = a.batch_dims
    if bd < 0:
        raise RelationError(f"expected batch_dims >= 0, found batch_dims={bd}")
    if bd > len(indices.shape):
        raise RelationError(
            f"expected batch_dims at most the rank {len(indices.shape)} of indices, "
            f"found batch_dims={bd}"
        )
    if bd > axis:
        raise RelationError(
            f"expected batch_dims at most the axis {axis}, found batch_dims={bd} (axis={a.axis})"
        )
    for i in range(bd):
        if dims_equal(data.shape[i], indices.shape[i]) is False:
            raise RelationError(
                f"expected equal batch dimensions, found {data.shape[i]} in data and "
                f"{indices.shape[i]} in indices at dimension {i}"
            )
    oshape = (*data.shape[:axis], *indices.shape[bd:], *data.shape[axis + 1 :])
    return TensorType(oshape, data.dtype)


def _take_positions(indices: Tensor, extent: int, mode: str) -> npt.NDArray[np.int64]:
    """The positions read along an axis of ``extent`` (at least 1), as int64."""
    if indices.dtype == np.bool_:
        indices = indices.astype(np.int64)
    if indices.dtype.kind == "u":
        u = indices.astype(np.uint64)
        if mode == "clip":
            return np.minimum(u, np.uint64(extent - 1)).astype(np.int64)
        if mode == "wrap":
            return (u % np.uint64(extent)).astype(np.int64)
        bad = u >= np.uint64(extent)
    else:
        i = indices.astype(np.int64)
        if mode == "clip":
            return np.clip(i, 0, extent - 1)
        if mode == "wrap":
            # topi: truncmod(truncmod(i, n) + n, n), which is floor modulo for n > 0.
            return np.mod(i, extent)
        bad = (i < 0) | (i >= extent)
    if bad.any():
        found = indices[bad].flat[0]
        raise UndefinedBehavior(
            f'take with mode "fast" and index {found} outside [0, {extent}): TVM reads out of '
            "bounds"
        )
    return indices.astype(np.int64)


def _take_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``take``: the elements of data at the indices along the axis (of the flattened data without
    one), the first ``batch_dims`` axes of data and indices matched one-to-one. Mode clip clamps
    an index to ``[0, extent - 1]``, wrap takes it modulo the extent (``truncmod(truncmod(i, n) +
    n, n)``), fast uses it as it is. Modes wrap and fast with ``batch_dims > 0``, whose topi
    computes ignore ``batch_dims`` and fail to build, get the evident meaning (clip's batch
    indexing with their own index rule).

    Undefined: mode fast with an index outside ``[0, extent)`` (``topi::take`` reads ``a[idx]``
    unchecked: "Fast mode segfaults when there are out-of-bounds indices"); any mode when the
    indexed extent is 0 and the result is not empty (clip reads ``a[-1]``, wrap takes ``truncmod``
    by 0); batch extents that differ at run time."""
    data, indices = args
    a = _attrs(attrs, TakeAttrs)
    out = _out_shape(
        _run_time("take", lambda: _take_relation((_type_of(data), _type_of(indices)), attrs))
    )
    if math.prod(out) == 0:
        return np.zeros(out, dtype=data.dtype)
    if a.axis is None:
        flat = data.reshape(-1)
        if flat.size == 0:
            raise UndefinedBehavior("take from an empty tensor with a non-empty result")
        return np.asarray(flat[_take_positions(indices, flat.size, a.mode)])
    axis = a.axis + data.ndim if a.axis < 0 else a.axis
    bd = a.batch_dims
    extent = data.shape[axis]
    if extent == 0:
        raise UndefinedBehavior(f"take along an axis of extent 0 with a non-empty result {out}")
    batch, pre, post = data.shape[:bd], data.shape[bd:axis], data.shape[axis + 1 :]
    inner = indices.shape[bd:]
    nb = math.prod(batch)
    # Bring the indexed axis next to the flattened batch axis, gather both at once, then move
    # the gathered index dimensions after the `pre` dimensions.
    d = np.moveaxis(data.reshape((nb, *pre, extent, *post)), 1 + len(pre), 1)
    k = _take_positions(indices, extent, a.mode).reshape((nb, *inner))
    b = np.arange(nb).reshape((nb,) + (1,) * len(inner))
    r = d[b, k]
    ni, npre = len(inner), len(pre)
    perm = (0, *range(1 + ni, 1 + ni + npre), *range(1, 1 + ni), *range(1 + ni + npre, r.ndim))
    return r.transpose(perm).reshape((*batch, *pre, *inner, *post))


def _canonical_index(index: int, extent: int, stride: int) -> int:
    """topi's ``CanonicalizeIndex``: wrap a negative index once, then clamp."""
    lo, hi = (-1, extent - 1) if stride < 0 else (0, extent)
    if index < 0:
        index += extent
    return min(max(index, lo), hi)


def _strided_slice_plan(
    shape: Sequence[Dim], a: StridedSliceAttrs
) -> tuple[list[Dim], dict[int, tuple[int, int, int]]]:
    """The output shape, and per known axis its (canonical begin, stride, extent).

    Follows StridedSliceRel and topi's ``StridedSliceOutputShape`` (``ConvertToVec``,
    ``StridedSliceCanonicalizeBegin``). A repeated axis takes its last entry, as in TVM.
    """
    if a.begin is None or a.end is None or a.strides is None:
        raise RelationError(
            f"expected begin, end and strides, found begin={_show(a.begin)}, "
            f"end={_show(a.end)}, strides={_show(a.strides)}"
        )
    if a.slice_mode not in ("end", "size"):
        raise RelationError(
            f'expected slice_mode "end" or "size", found slice_mode="{a.slice_mode}"'
        )
    ndim = len(shape)
    begin, end, strides = list(a.begin), list(a.end), list(a.strides)
    if a.axes is not None:
        axes = list(a.axes)
        if not len(axes) == len(begin) == len(end) == len(strides):
            raise RelationError(
                "expected axes, begin, end and strides of the same length, found "
                f"axes={_show(axes)}, begin={_show(begin)}, end={_show(end)} and "
                f"strides={_show(strides)}"
            )
        for ax in axes:
            if not 0 <= ax < ndim:
                raise RelationError(
                    f"axes={_show(axes)}: {ax} is out of range for a tensor of rank {ndim} "
                    f"(expected 0 <= axis < {ndim})"
                )
    else:
        if max(len(begin), len(end), len(strides)) > ndim:
            raise RelationError(
                f"expected at most {ndim} entries (the rank of data) in begin, end and "
                f"strides, found begin={_show(begin)}, end={_show(end)} and "
                f"strides={_show(strides)}"
            )
        axes = list(range(ndim))
        strides += [1] * (ndim - len(strides))
        begin += [0 if strides[i] > 0 else _INT64_MAX for i in range(len(begin), ndim)]
        end += [0 if strides[i] < 0 else _INT64_MAX for i in range(len(end), ndim)]
    if not axes:
        raise RelationError("expected at least one axis to slice, found none")
    size_mode = a.slice_mode == "size"
    oshape = list(shape)
    plan: dict[int, tuple[int, int, int]] = {}
    for i, ax in enumerate(axes):
        stride = 1 if size_mode else strides[i]
        stop = end[i]
        if size_mode:
            stop = _INT64_MAX if end[i] < 0 else begin[i] + end[i]
        extent = shape[ax]
        if not isinstance(extent, int):
            oshape[ax] = ANY
            plan.pop(ax, None)
            continue
        if stride == 0:
            raise RelationError(
                f"expected nonzero strides, found strides={_show(a.strides)} (0 for axis {ax})"
            )
        b = _canonical_index(begin[i], extent, stride)
        e = _canonical_index(stop, extent, stride)
        if (e > b) if stride < 0 else (b > e):
            raise RelationError(
                f"begin {begin[i]} and end {stop} with stride {stride} run backwards on axis "
                f"{ax} of extent {extent} (canonically {b} and {e})"
            )
        n = -(-abs(e - b) // abs(stride))
        oshape[ax] = n
        plan[ax] = (b, stride, n)
    return oshape, plan


def _strided_slice_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``StridedSlice``: topi's ``StridedSliceOutputShape``: ``begin`` and ``end`` wrapped once,
    then clamped; the extent of an axis that is not a known integer becomes ``?``. TVM's nullable
    ``begin``, ``end``, ``strides`` and ``axes`` have no default and so are required, written
    ``None`` when absent.

    TVM quirks kept: a missing ``end`` is padded with 0 when the stride is negative (so
    ``strides=[-1]`` alone stops before index 0); a slice whose canonical bounds run backwards is
    rejected instead of made empty; a slice of no axes (a rank-0 tensor, or ``axes=[]``) fails;
    ``size`` mode ignores strides. Departures from TVM: a ``slice_mode`` other than "end" or "size"
    is rejected; ``size`` mode computes ``begin + size`` without the int64 overflow of TVM's
    ``ConvertToVec``."""
    a = _attrs(attrs, StridedSliceAttrs)
    data = _data(arg_types)
    oshape, _ = _strided_slice_plan(data.shape, a)
    return TensorType(tuple(oshape), data.dtype)


def _strided_slice_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``strided_slice``: on each sliced axis the elements ``begin, begin + stride, ..`` of the
    relation's canonical bounds (``strided_slice_with_axes``).

    Undefined: at run time, clamped bounds that run backwards or a stride of 0."""
    (data,) = args
    a = _attrs(attrs, StridedSliceAttrs)
    _, plan = _run_time("strided_slice", lambda: _strided_slice_plan(data.shape, a))
    positions = []
    for ax, extent in enumerate(data.shape):
        if ax in plan:
            b, stride, n = plan[ax]
            positions.append(b + stride * np.arange(n, dtype=np.int64))
        else:
            positions.append(np.arange(extent, dtype=np.int64))
    return data[np.ix_(*positions)]


_op = OpRegistrar(__name__, inputs=("data", "indices"), pattern=OpPattern.INJECTIVE)


_op(
    "take",
    "Gather elements of data at indices along an axis.",
    relation=_take_relation,
    reference=tensor_reference(_take_reference),
    check="onnxruntime:Gather",
    relation_name="Take",
    attrs_type=TakeAttrs,
)


_op(
    "strided_slice",
    "A strided slice of data, as in numpy's data[begin:end:stride].",
    relation=_strided_slice_relation,
    reference=tensor_reference(_strided_slice_reference),
    check="onnxruntime:Slice",
    relation_name="StridedSlice",
    inputs=("data",),
    attrs_type=StridedSliceAttrs,
)


@dataclass(frozen=True, slots=True)
class SliceLikeAttrs(Attrs):
    """Attributes of ``slice_like``: the axes to slice (None: every shared axis)."""

    type_key: ClassVar[str] = "relay.attrs.SliceLikeAttrs"
    axes: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, optional=True, doc="The axes sliced to shape_like's extents; None: all."
    )


def _slice_like_axes(ndim: int, like_ndim: int, axes: tuple[int, ...] | None) -> list[int]:
    if axes is None:
        return list(range(min(ndim, like_ndim)))
    if not axes:
        raise RelationError("expected at least one axis in axes, found ()")
    out = []
    for axis in axes:
        a = normalize_axis(axis, ndim, "axes")
        if a >= like_ndim:
            raise RelationError(
                f"axes={list(axes)}: {axis} is out of range for shape_like of rank {like_ndim}"
            )
        out.append(a)
    return out


def _slice_like_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``SliceLike``: per axis (``axes`` None: the leading ``min(rank)`` axes) the extent of
    ``shape_like``, which may not exceed data's; ``axes`` non-empty, each below ``shape_like``'s
    rank. ``axes`` has no default in TVM and is written ``None`` for "every axis".

    Departures from TVM: a negative axis is counted from data's rank and must land in range (TVM
    indexed out of bounds); an extent larger than data's is an error whenever it is provable."""
    a = _attrs(attrs, SliceLikeAttrs)
    data, like = _two(arg_types, "data", "shape_like")
    oshape = list(data.shape)
    for axis in _slice_like_axes(len(data.shape), len(like.shape), a.axes):
        if _provably_greater(like.shape[axis], data.shape[axis]):
            raise RelationError(
                f"the extent {like.shape[axis]} of shape_like exceeds data's extent "
                f"{data.shape[axis]} on axis {axis}"
            )
        oshape[axis] = like.shape[axis]
    return TensorType(tuple(oshape), data.dtype)


def _slice_like_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``slice_like``: ``data[:s0, :s1, ..]`` with the sliced extents.

    Undefined: a slice longer than data at run time."""
    data, like = args
    t = _run_time(
        "slice_like", lambda: _slice_like_relation((_type_of(data), _type_of(like)), attrs)
    )
    return data[tuple(slice(0, n) for n in _out_shape(t))].copy()


_op(
    "slice_like",
    "Slice data from index 0 to the extents of shape_like on the given axes.",
    relation=_slice_like_relation,
    reference=tensor_reference(_slice_like_reference),
    check="onnxruntime:Slice",
    relation_name="SliceLike",
    inputs=("data", "shape_like"),
    attrs_type=SliceLikeAttrs,
)


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


_R = TypeVar("_R")


_REDUCTIONS = ("update", "add", "mul", "min", "max")


def _is_integer(dtype: str) -> bool:
    """A signed or unsigned integer dtype (not bool)."""
    return dtype.startswith(("int", "uint"))


def _integer(t: TensorType, what: str, *, signed_only: bool = False) -> None:
    ok = t.dtype.startswith("int") if signed_only else _is_integer(t.dtype)
    if not ok:
        kind = "a signed integer" if signed_only else "an integer"
        raise RelationError(f"expected {kind} dtype for {what}, found {t.dtype}")


def _run_time(name: str, check: Callable[[], _R]) -> _R:
    """Run a relation on run-time shapes; a failure is undefined (the static type allowed it)."""
    try:
        return check()
    except RelationError as e:
        raise UndefinedBehavior(
            f"{name}: at run time, {e} (the static type left this unchecked)"
        ) from None


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


def _gather_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Gather``: signed-integer indices of data's rank; ``axis`` in ``[-ndim, ndim)``; indices'
    extent on the axis >= 1 where known, the other extents equal data's; the result has indices'
    shape and data's dtype.

    Departure from TVM: ``axis`` None is rejected (the relation dereferences it)."""
    a = _attrs(attrs, GatherAttrs)
    data, indices = _tensor_list(arg_types, ("data", "indices"))
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
    """``gather``: ``out[i] = data[i with i[axis] replaced by indices[i]]``; negative indices are
    not wrapped (the frontends normalise them first).

    Undefined: an index outside ``[0, extent)`` (``topi::gather`` indexes without checks)."""
    data, indices = args
    a = _attrs(attrs, GatherAttrs)
    _run_time("gather", lambda: _gather_relation((_type_of(data), _type_of(indices)), attrs))
    assert a.axis is not None
    axis = a.axis % data.ndim
    idx = indices.astype(np.int64)
    _check_range("gather", _ints(idx), 0, data.shape[axis])
    return np.take_along_axis(data, idx, axis=axis)


def _gather_nd_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``GatherND``: indices ``(M, Y_0..Y_{K-1})`` of an integer dtype with M a known integer;
    ``0 <= batch_dims <= K``, ``M + batch_dims <= ndim(data)``, ``Y_i = X_i`` for
    ``i < batch_dims``; the result is ``(Y_0..Y_{K-1}, X_{M+batch_dims}..)`` of data's dtype.

    Departure from TVM: integer indices are required (TVM cast float indices)."""
    a = _attrs(attrs, GatherNDAttrs)
    data, indices = _tensor_list(arg_types, ("data", "indices"))
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
    """``gather_nd``: each index tuple ``indices[:, y]`` selects a slice of data (after the batch
    dimensions, which are matched one-to-one); no negative wrap.

    Undefined: an index outside ``[0, extent)`` (``topi::gather_nd`` indexes without checks)."""
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


def _scatter_elements_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``ScatterElements``: integer indices; data, indices and updates of one rank; updates of
    data's dtype and indices' shape; ``axis`` in range; ``reduction`` update, add, mul, min or max;
    indices' other extents at most data's where known; data's type.

    Departure from TVM: the ranks and the updates' shape and dtype are checked, and the "mean"
    reduction, whose TOPI meaning this spec does not define, is rejected."""
    a = _attrs(attrs, ScatterElementsAttrs)
    data, indices, updates = _tensor_list(arg_types, ("data", "indices", "updates"))
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
                f"expected updates of the shape of indices {_fmt_shape(indices.shape)}, found "
                f"{_fmt_shape(updates.shape)}"
            )
        if i != axis and isinstance(d, int) and isinstance(k, int) and k > d:
            raise RelationError(f"indices extent {k} exceeds data's {d} on axis {i}")
    return TensorType(data.shape, data.dtype)


def _scatter_elements_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``scatter_elements``: data copied, then for each position ``i`` of indices, in row-major
    order, ``updates[i]`` combined into ``out[i with i[axis] replaced by indices[i]]`` (a negative
    index counts from the end once): ``update`` replaces, ``add``/``mul`` accumulate,
    ``min``/``max`` keep the extreme. Integer ``add``/``mul`` follow ``elementwise``'s arithmetic
    (wrapping below 32 bits, undefined overflow at 32 and 64).

    Undefined: an index outside ``[-extent, extent)`` (``topi.scatter_elements`` indexes without
    checks); two writes to one position with reduction "update" (the GPU schedules write in
    parallel, so which one wins is unspecified)."""
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


def _scatter_nd_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``ScatterND``: integer indices ``(M, Y_0..Y_{K-1})`` with M a known integer ``<=
    ndim(data)``; updates ``(Y_0..Y_{K-1}, X_M..X_{N-1})`` of data's dtype; ``mode`` update, add,
    mul, min or max; data's type.

    Departure from TVM: the updates' dtype is checked."""
    a = _attrs(attrs, ScatterNDAttrs)
    data, indices, updates = _tensor_list(arg_types, ("data", "indices", "updates"))
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
        raise RelationError(
            f"expected updates of shape {_fmt_shape(want)}, found {_fmt_shape(updates.shape)}"
        )
    return TensorType(data.shape, data.dtype)


def _scatter_nd_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``scatter_nd``: as ``scatter_elements``, for each index tuple ``indices[:, y]``, which
    selects the slice of out that ``updates[y]`` covers (no negative wrap).

    Undefined: an index outside ``[0, extent)``; two writes to one position with mode "update"."""
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


def _one_hot_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``OneHot``: integer indices; rank-0 ``on_value`` and ``off_value``; ``depth >= 1``; ``axis``
    in ``[-1, ndim(indices)]`` (-1 is last); an axis of extent ``depth`` inserted at ``axis``; the
    ``dtype`` attribute (a null dtype in TVM, which every relation rejects, so it must be given).

    Departure from TVM: integer indices are required, and an axis below -1 or above the rank and
    non-scalar on/off values are rejected."""
    a = _attrs(attrs, OneHotAttrs)
    indices, on, off = _tensor_list(arg_types, ("indices", "on_value", "off_value"))
    _integer(indices, "indices")
    for t, what in ((on, "on_value"), (off, "off_value")):
        if t.shape:
            raise RelationError(f"expected a scalar {what} (rank 0), found {_fmt_shape(t.shape)}")
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
    """``one_hot``: ``out[..., j, ...] = on_value if indices[...] == j else off_value``, both cast
    to the dtype as ``cast`` does; an index outside ``[0, depth)`` (negative too) matches nothing.

    Undefined: an on/off value whose conversion is undefined (float to integer out of range or NaN,
    as ``cast``)."""
    indices, on, off = args
    a = _attrs(attrs, OneHotAttrs)
    t = _one_hot_relation((_type_of(indices), _type_of(on), _type_of(off)), attrs)
    assert isinstance(t, TensorType)
    on_v, off_v = _convert("one_hot", on, t.dtype), _convert("one_hot", off, t.dtype)
    at = indices.ndim if a.axis == -1 else a.axis
    positions = np.arange(a.depth).reshape((a.depth,) + (1,) * (indices.ndim - at))
    hit = np.expand_dims(indices, at).astype(object) == positions.astype(object)
    return np.where(hit, on_v, off_v).astype(t.dtype)


def _unravel_index_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``UnRavelIndexRel``: integer data of rank 0 or 1, an integer shape vector ``(S,)``; the
    result is ``(S,)`` or ``(S, n)`` of data's dtype.

    Departure from TVM: integer indices, a rank-1 shape and indices of rank <= 1 are required (TVM's
    relation ignores the rest of the indices' shape)."""
    data, shape = _tensor_list(arg_types, ("data", "shape"))
    _integer(data, "data")
    _integer(shape, "shape")
    if len(shape.shape) != 1:
        raise RelationError(f"expected a shape vector (rank 1), found rank {len(shape.shape)}")
    if len(data.shape) > 1:
        raise RelationError(f"expected data of rank 0 or 1, found rank {len(data.shape)}")
    return TensorType((shape.shape[0], *data.shape), data.dtype)


def _unravel_index_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``unravel_index``: the coordinates of each flat index in a row-major tensor of the given
    shape.

    Undefined: a negative flat index, one beyond the shape's size, or a shape with an entry <= 0
    (TOPI divides by the entries and trusts the bound)."""
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


def _sparse_to_dense_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``SparseToDense``: integer ``sparse_indices`` of rank 0, 1 or 2 (``(N, ndim(output))`` when
    rank 2; rank 0 and 1 need a rank-1 output), ``sparse_values`` of rank 0 or ``(N,)``, a rank-0
    ``default_value`` of the values' dtype; ``output_shape`` non-negative; the result is
    ``output_shape`` of the values' dtype.

    Departure from TVM: indices of rank <= 2 (TVM allowed 3), values of rank <= 1, and matching
    extents and dtypes are required."""
    a = _attrs(attrs, SparseToDenseAttrs)
    indices, values, default = _tensor_list(
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
        raise RelationError(f"expected a scalar default_value, found {_fmt_shape(default.shape)}")
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
    """``sparse_to_dense``: ``default_value`` everywhere, then ``sparse_values[n]`` (or the scalar)
    at each index tuple ``sparse_indices[n]``.

    Undefined: an index outside ``[0, extent)`` (``topi::sparse_to_dense`` indexes without
    checks); two writes to one position."""
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


def _sequence_mask_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``SequenceMask``: data of rank >= 2; ``axis`` 0 or 1; ``valid_length`` an integer vector of
    data's extent at ``1 - axis``; data's type.

    Departure from TVM: integer lengths are required."""
    a = _attrs(attrs, SequenceMaskAttrs)
    data, valid = _tensor_list(arg_types, ("data", "valid_length"))
    if a.axis not in (0, 1):
        raise RelationError(f"expected axis 0 or 1, found {a.axis}")
    if len(data.shape) < 2:
        raise RelationError(f"expected data of rank >= 2, found rank {len(data.shape)}")
    _integer(valid, "valid_length")
    batch = data.shape[1 - a.axis]
    if len(valid.shape) != 1 or dims_equal(valid.shape[0], batch) is False:
        raise RelationError(
            f"expected valid_length of shape ({batch}), found {_fmt_shape(valid.shape)}"
        )
    return TensorType(data.shape, data.dtype)


def _sequence_mask_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``sequence_mask``: elements whose position along the axis is at least ``valid_length[b]`` (b
    the position along the other of axes 0 and 1) become ``mask_value``, converted to data's dtype
    (truncated for integers, as ``make_const`` did); the rest are kept.

    Undefined: a ``mask_value`` whose conversion is undefined (as ``cast``)."""
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


def _invert_permutation_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Identity`` for ``invert_permutation``: an integer vector; its type.

    Departure from TVM: an integer dtype is required."""
    (data,) = _tensor_list(arg_types, ("data",))
    _integer(data, "data")
    if len(data.shape) != 1:
        raise RelationError(f"expected a vector (rank 1), found rank {len(data.shape)}")
    return data


def _invert_permutation_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``invert_permutation``: ``out[data[i]] = i``.

    Undefined: an index outside ``[0, extent)`` (``topi.invert_permutation`` indexes without
    checks); a vector that is not a permutation (a repeated value leaves part of the output
    unwritten)."""
    (data,) = args
    _invert_permutation_relation((_type_of(data),), attrs)
    values = _ints(data)
    if sorted(values) != list(range(len(values))):
        raise UndefinedBehavior(f"invert_permutation of {values}, not a permutation")
    out = np.zeros(data.shape, dtype=data.dtype)
    out[np.asarray(values, dtype=np.int64)] = np.arange(len(values))
    return out


_op(
    "gather",
    "Gather elements of data along axis at the positions in indices.",
    relation=_gather_relation,
    reference=tensor_reference(_gather_reference),
    check="onnxruntime:GatherElements",
    relation_name="Gather",
    attrs_type=GatherAttrs,
)


_op(
    "gather_nd",
    "Gather slices of data at the index tuples along the first axis of indices.",
    relation=_gather_nd_relation,
    reference=tensor_reference(_gather_nd_reference),
    check="onnxruntime:GatherND",
    relation_name="GatherND",
    attrs_type=GatherNDAttrs,
)


_op(
    "scatter_elements",
    "Combine updates into a copy of data along axis at the positions in indices.",
    relation=_scatter_elements_relation,
    reference=tensor_reference(_scatter_elements_reference),
    check="onnxruntime:ScatterElements",
    relation_name="ScatterElements",
    inputs=("data", "indices", "updates"),
    attrs_type=ScatterElementsAttrs,
    pattern=OpPattern.OPAQUE,
)


_op(
    "scatter_nd",
    "Combine slices of updates into a copy of data at the index tuples of indices.",
    relation=_scatter_nd_relation,
    reference=tensor_reference(_scatter_nd_reference),
    check="onnxruntime:ScatterND",
    relation_name="ScatterND",
    inputs=("data", "indices", "updates"),
    attrs_type=ScatterNDAttrs,
    pattern=OpPattern.OPAQUE,
)


_op(
    "one_hot",
    "A one-hot encoding of indices along a new axis of extent depth.",
    relation=_one_hot_relation,
    reference=tensor_reference(_one_hot_reference),
    check="onnxruntime:OneHot",
    relation_name="OneHot",
    inputs=("indices", "on_value", "off_value"),
    attrs_type=OneHotAttrs,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
)


_op(
    "unravel_index",
    "The coordinates of flat indices in a row-major tensor of the given shape.",
    relation=_unravel_index_relation,
    reference=tensor_reference(_unravel_index_reference),
    check="independent:numpy.unravel_index",
    relation_name="UnRavelIndexRel",
    inputs=("data", "shape"),
)


_op(
    "sparse_to_dense",
    "A dense tensor of output_shape from sparse index tuples and values.",
    relation=_sparse_to_dense_relation,
    reference=tensor_reference(_sparse_to_dense_reference),
    check="independent:dense mask built from the index tuples",
    relation_name="SparseToDense",
    inputs=("sparse_indices", "sparse_values", "default_value"),
    attrs_type=SparseToDenseAttrs,
    pattern=OpPattern.OPAQUE,
)


_op(
    "sequence_mask",
    "Replace elements past each sequence's valid length with mask_value.",
    relation=_sequence_mask_relation,
    reference=tensor_reference(_sequence_mask_reference),
    check="independent:element-by-element loop",
    relation_name="SequenceMask",
    inputs=("data", "valid_length"),
    attrs_type=SequenceMaskAttrs,
)


_op(
    "invert_permutation",
    "The inverse of the permutation data.",
    relation=_invert_permutation_relation,
    reference=tensor_reference(_invert_permutation_reference),
    check="independent:numpy.argsort of the permutation",
    relation_name="Identity",
    inputs=("data",),
)
