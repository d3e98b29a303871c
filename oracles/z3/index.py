"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.index``.

From the former ``z3_indexing`` module:

Z3 encodings of the type relations of the ``indexing`` operator group.

Written from TVM 0.18's relations (``src/relay/op/tensor/transform.cc``,
``src/relay/op/algorithm/*.cc``) and the departures ``ops.indexing`` documents, independently
of the relation functions there. Each encoding's docstring states its rule.

From the former ``z3_shaping`` module:

Z3 encodings of the type relations of the ``shaping`` operator group.

Written from TVM 0.18's relations (``src/relay/op/tensor/transform.cc``, ``unary.cc``,
``math.cc``) and the departures ``relay.semantics.ops.shaping`` documents, independently of
the relation functions there; each encoding's docstring states its rule. Sizes are Z3 terms;
what ranks and attributes alone decide is checked in Python (``IllTyped``).
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

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
from relay.semantics.ops.registry import Attrs

from .core import (
    _INTS,
    ONE,
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    TensorArg,
    Term,
    _attrs,
    _axis,
    _int,
    _known,
    _tensor,
    well_typed,
)


def _is_integer_dtype(dtype: str) -> bool:
    """TVM's ``is_int() || is_uint()``; bool is ``uint1`` there, so it counts."""
    return dtype.startswith(("int", "uint")) or dtype == "bool"


def _take(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """TakeRel: integer indices, mode clip, wrap or fast; axis None gives indices' shape;
    else data[:axis] + indices[batch_dims:] + data[axis+1:], with 0 <= batch_dims <=
    min(axis, indices rank) and equal leading batch sizes. (TVM accepts axis == ndim,
    mishandles a negative batch_dims and does not compare the batch sizes; ``ops.transform``
    rejects all three.)"""
    data, indices = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, TakeAttrs)
    if not _is_integer_dtype(indices.dtype):
        raise IllTyped(f"indices must be integers, found {indices.dtype}")
    if a.mode not in ("clip", "wrap", "fast"):
        raise IllTyped(f"unknown mode {a.mode}")
    if a.axis is None:
        return well_typed([indices.shape], dtypes=[data.dtype])
    axis = _axis(a.axis, len(data.shape))
    if not 0 <= a.batch_dims <= min(axis, len(indices.shape)):
        raise IllTyped(f"batch_dims {a.batch_dims} out of range")
    cons = [data.shape[i] == indices.shape[i] for i in range(a.batch_dims)]
    out = [*data.shape[:axis], *indices.shape[a.batch_dims :], *data.shape[axis + 1 :]]
    return well_typed([out], cons, [data.dtype])


_MAX_RANGE = 2**63 - 1


def _canonical(index: int | Term, dim: Term, stride: int) -> Term:
    """A slice index made non-negative (+dim) and clamped to [0, dim] (stride > 0) or
    [-1, dim - 1] (stride < 0)."""
    index = _int(index)
    shifted = z3.If(index < 0, index + dim, index)
    lo, hi = (z3.IntVal(-1), dim - 1) if stride < 0 else (z3.IntVal(0), dim)
    return z3.If(shifted < lo, lo, z3.If(shifted > hi, hi, shifted))


def _strided_slice(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """StridedSliceRel: per sliced axis (axes, each in [0, ndim), or every axis with
    begin, end, strides padded to whole-axis slices) the clamped begin <= end (>= for a
    negative stride), nonzero stride, size ceil(|end - begin| / |stride|); slice_mode="size"
    reads end as a size (negative: to the end) and ignores strides. At least one axis is
    sliced (TVM reads begin[0])."""
    data = _tensor(args, 0)
    a = _attrs(attrs, StridedSliceAttrs)
    if a.begin is None or a.end is None or a.strides is None:
        raise IllTyped("strided_slice needs begin, end and strides")
    if a.slice_mode not in ("end", "size"):
        raise IllTyped(f"unknown slice_mode {a.slice_mode}")
    ndim = len(data.shape)
    begin, end, strides = list(a.begin), list(a.end), list(a.strides)
    if a.axes is not None:
        if not len(a.axes) == len(begin) == len(end) == len(strides):
            raise IllTyped("axes, begin, end and strides need equal lengths")
        if any(not 0 <= x < ndim for x in a.axes):
            raise IllTyped(f"axes {a.axes} out of range [0, {ndim})")
        axes = list(a.axes)
        if len(set(axes)) != len(axes):
            raise IllTyped(f"axes {a.axes} repeats an axis")
    else:
        if max(len(begin), len(end), len(strides)) > ndim:
            raise IllTyped(f"begin, end and strides longer than the rank {ndim}")
        axes = list(range(ndim))
        strides += [1] * (ndim - len(strides))
        begin += [0 if s > 0 else _MAX_RANGE for s in strides[len(begin) :]]
        end += [0 if s < 0 else _MAX_RANGE for s in strides[len(end) :]]
    if not axes:
        raise IllTyped("strided_slice of no axes")
    out = list(data.shape)
    cons: list[Cond] = []
    for ax, b, e, s in zip(axes, begin, end, strides, strict=True):
        if a.slice_mode == "size":
            s = 1
            e = _MAX_RANGE if e < 0 else b + e
        if s == 0:
            raise IllTyped("a stride of 0")
        dim = data.shape[ax]
        cb, ce = _canonical(b, dim, s), _canonical(e, dim, s)
        if s > 0:
            cons.append(cb <= ce)
            out[ax] = (ce - cb + s - 1) / s
        else:
            cons.append(ce <= cb)
            out[ax] = (cb - ce - s - 1) / (-s)
    return well_typed([out], cons, [data.dtype])


def _ints(t: TensorArg, what: str, *, signed: bool = False) -> None:
    allowed = _INTS[:4] if signed else _INTS
    if t.dtype not in allowed:
        raise IllTyped(f"{what} must be {'signed ' if signed else ''}integers, found {t.dtype}")


def _gather(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Gather: signed-integer indices of data's rank; axis given and in range; indices'
    axis extent >= 1, other extents equal data's; out = indices' shape, data's dtype."""
    data, indices = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, GatherAttrs)
    _ints(indices, "indices", signed=True)
    if a.axis is None:
        raise IllTyped("gather needs an axis")
    if len(data.shape) != len(indices.shape):
        raise IllTyped("indices and data ranks differ")
    axis = _axis(a.axis, len(data.shape))
    cons: list[Cond] = []
    for i, (d, k) in enumerate(zip(data.shape, indices.shape, strict=True)):
        cons.append(k >= 1 if i == axis else k == d)
    return well_typed([list(indices.shape)], cons, [data.dtype])


def _gather_nd(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """GatherND: integer indices (M, Y...) with M constant, 0 <= batch_dims <= len(Y),
    M + batch_dims <= rank(data), Y_i = X_i below batch_dims; out (Y..., X[M+B:])."""
    data, indices = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, GatherNDAttrs)
    _ints(indices, "indices")
    if not indices.shape:
        raise IllTyped("indices of rank 0")
    m = _known(indices.shape[0])
    if m is None:
        raise IllTyped("the first extent of indices must be known")
    ys = indices.shape[1:]
    b = a.batch_dims
    if not 0 <= b <= len(ys) or m + b > len(data.shape):
        raise IllTyped(f"batch_dims {b} or index size {m} out of range")
    cons = [data.shape[i] == ys[i] for i in range(b)]
    return well_typed([[*ys, *data.shape[m + b :]]], cons, [data.dtype])


def _scatter_elements(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ScatterElements: integer indices; equal ranks; updates of data's dtype and indices'
    shape; reduction update/add/mul/min/max; axis in range; indices' extents off the axis
    at most data's (checked only when both are constants, as a size mismatch would only be
    a run-time error); out = data."""
    data, indices, updates = _tensor(args, 0), _tensor(args, 1), _tensor(args, 2)
    a = _attrs(attrs, ScatterElementsAttrs)
    _ints(indices, "indices")
    if a.reduction not in ("update", "add", "mul", "min", "max"):
        raise IllTyped(f"reduction {a.reduction}")
    if not len(data.shape) == len(indices.shape) == len(updates.shape):
        raise IllTyped("ranks differ")
    if updates.dtype != data.dtype:
        raise IllTyped("updates dtype differs")
    axis = _axis(a.axis, len(data.shape))
    cons: list[Cond] = [k == u for k, u in zip(indices.shape, updates.shape, strict=True)]
    for i, (d, k) in enumerate(zip(data.shape, indices.shape, strict=True)):
        kd, dd = _known(k), _known(d)
        if i != axis and kd is not None and dd is not None and kd > dd:
            raise IllTyped("indices extent exceeds data's")
    return well_typed([list(data.shape)], cons, [data.dtype])


def _scatter_nd(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ScatterND: integer indices (M, Y...) with M constant <= rank(data); mode
    update/add/mul/min/max; updates (Y..., X[M:]) of data's dtype; out = data."""
    data, indices, updates = _tensor(args, 0), _tensor(args, 1), _tensor(args, 2)
    a = _attrs(attrs, ScatterNDAttrs)
    _ints(indices, "indices")
    if a.mode not in ("update", "add", "mul", "min", "max"):
        raise IllTyped(f"mode {a.mode}")
    if updates.dtype != data.dtype:
        raise IllTyped("updates dtype differs")
    if not indices.shape:
        raise IllTyped("indices of rank 0")
    m = _known(indices.shape[0])
    if m is None or m > len(data.shape):
        raise IllTyped("index size unknown or beyond the rank")
    want = [*indices.shape[1:], *data.shape[m:]]
    if len(updates.shape) != len(want):
        raise IllTyped("updates rank")
    cons = [u == w for u, w in zip(updates.shape, want, strict=True)]
    return well_typed([list(data.shape)], cons, [data.dtype])


def _one_hot(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """OneHot: integer indices, scalar on/off values, depth >= 1, axis in [-1, rank], a
    dtype; out = indices' shape with depth inserted at axis (-1: at the end)."""
    indices, on, off = _tensor(args, 0), _tensor(args, 1), _tensor(args, 2)
    a = _attrs(attrs, OneHotAttrs)
    _ints(indices, "indices")
    if on.shape or off.shape:
        raise IllTyped("on_value and off_value must be scalars")
    n = len(indices.shape)
    if a.depth < 1 or not -1 <= a.axis <= n or not a.dtype:
        raise IllTyped("depth, axis or dtype")
    at = n if a.axis == -1 else a.axis
    out = [*indices.shape[:at], z3.IntVal(a.depth), *indices.shape[at:]]
    return well_typed([out], dtypes=[a.dtype])


def _unravel_index(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """UnRavelIndexRel: integer data of rank <= 1, integer shape vector (S,); out (S,) +
    data's shape, data's dtype."""
    data, shape = _tensor(args, 0), _tensor(args, 1)
    _ints(data, "data")
    _ints(shape, "shape")
    if len(shape.shape) != 1 or len(data.shape) > 1:
        raise IllTyped("ranks")
    return well_typed([[shape.shape[0], *data.shape]], dtypes=[data.dtype])


def _sparse_to_dense(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SparseToDense: signed-integer indices of rank <= 2, values of rank <= 1, scalar
    default of values' dtype; output_shape >= 0; tuple width (1 below rank 2) = output
    rank; values' extent = the number of tuples (1 for rank-0 indices)."""
    indices, values, default = _tensor(args, 0), _tensor(args, 1), _tensor(args, 2)
    a = _attrs(attrs, SparseToDenseAttrs)
    _ints(indices, "sparse_indices", signed=True)
    if len(indices.shape) > 2 or len(values.shape) > 1 or default.shape:
        raise IllTyped("ranks")
    if default.dtype != values.dtype or any(d < 0 for d in a.output_shape):
        raise IllTyped("dtype or output_shape")
    width = indices.shape[1] if len(indices.shape) == 2 else ONE
    cons: list[Cond] = [width == len(a.output_shape)]
    if values.shape:
        cons.append(values.shape[0] == (indices.shape[0] if indices.shape else ONE))
    return well_typed([[z3.IntVal(d) for d in a.output_shape]], cons, [values.dtype])


def _sequence_mask(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SequenceMask: axis 0 or 1, data of rank >= 2, integer valid_length of shape
    (data[1 - axis],); out = data."""
    data, valid = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, SequenceMaskAttrs)
    _ints(valid, "valid_length")
    if a.axis not in (0, 1) or len(data.shape) < 2 or len(valid.shape) != 1:
        raise IllTyped("axis or ranks")
    return well_typed([list(data.shape)], [valid.shape[0] == data.shape[1 - a.axis]], [data.dtype])


def _invert_permutation(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Identity on an integer vector."""
    data = _tensor(args, 0)
    _ints(data, "data")
    if len(data.shape) != 1:
        raise IllTyped("a vector is needed")
    return well_typed([list(data.shape)], dtypes=[data.dtype])


def _slice_like(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SliceLike: the axes (None: 0 .. min(ranks) - 1; else non-empty, each in [-ndim, ndim)
    and below like's rank) take like's size, which is at most data's."""
    data, like = _tensor(args, 0), _tensor(args, 1)
    axes = _attrs(attrs, SliceLikeAttrs).axes
    ndim = len(data.shape)
    if axes is None:
        chosen = list(range(min(ndim, len(like.shape))))
    elif not axes:
        raise IllTyped("axes is empty")
    else:
        chosen = [_axis(x, ndim) for x in axes]
        if any(x >= len(like.shape) for x in chosen):
            raise IllTyped("an axis beyond shape_like's rank")
    out = list(data.shape)
    cons: list[Cond] = []
    for x in chosen:
        out[x] = like.shape[x]
        cons.append(like.shape[x] <= data.shape[x])
    return well_typed([out], cons, [data.dtype])


RULES: dict[str, Encoding] = {
    "take": _take,
    "strided_slice": _strided_slice,
    "gather": _gather,
    "gather_nd": _gather_nd,
    "scatter_elements": _scatter_elements,
    "scatter_nd": _scatter_nd,
    "one_hot": _one_hot,
    "unravel_index": _unravel_index,
    "sparse_to_dense": _sparse_to_dense,
    "sequence_mask": _sequence_mask,
    "invert_permutation": _invert_permutation,
    "slice_like": _slice_like,
}
"""This module's entries, by op name."""
