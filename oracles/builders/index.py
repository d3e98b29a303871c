"""Dataflow-generator builders of the operators of
``relay.semantics.ops.index`` (well-typed calls by construction).

From the former ``builders_indexing`` module:

Dataflow-generator builders of the ``indexing`` operator group.

Index tensors whose values must lie in range (gather, gather_nd, the scatters,
sparse_to_dense, unravel_index, invert_permutation) and searchsorted's sorted sequence are
constants built here from Hypothesis draws, in range by construction; writes with mode
"update" go to distinct positions. Inputs whose every value is defined (one_hot's indices,
sequence_mask's lengths, the data of the sorts) come from the pool or fresh parameters.

From the former ``builders_shaping`` module:

Dataflow-generator builders of the ``shaping`` operator group.

Each builder makes a well-typed call whose meaning is defined for the default generated
arguments (see ``gen_dataflow``): shapes are derived so that the relation holds, attributes
are drawn from what the inputs allow, and results keep rank 4 or less. The second inputs of
the ``*_like`` operators, ``matrix_set_diag``'s diagonal and ``einsum``'s later operands are
asked for by exact type (a pool value of that type, or a fresh leaf). ``reverse_sequence``'s
lengths are defined for every value (``topi`` clamps them), but a fresh vector of lengths is
usually a constant with entries in ``[0, extent]`` so that the reversal does something.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

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
from relay.semantics.ops.registry import Tensor
from relay.semantics.syntax import TensorType

from .core import (
    ALL,
    INTEGERS,
    MAX_RANK,
    NUMERIC,
    UNSIGNED,
    Builder,
    Built,
    _constant,
    _dims,
    _Graph,
    _index_array,
)

INDICES: tuple[str, ...] = (*INTEGERS, "bool")
"""The dtypes ``take`` accepts for indices, int32 first."""


def _take(g: _Graph) -> Built:
    """Data without empty axes (an empty axis makes any non-empty take undefined); indices of
    an integer or bool dtype whose leading ``batch_dims`` dimensions are the data's, of a rank
    that keeps the result at rank 4 or less. Mode "fast" (undefined for an index out of
    range) only where every index is surely in range: bool indices into an extent of at
    least 2; "clip" otherwise."""
    data = g.tensor(ALL, fits=lambda t: 0 not in _dims(t))
    shape = _dims(data[1])
    ndim = len(shape)
    axis: int | None = None
    batch = 0
    high = MAX_RANK
    if ndim and g.flag():
        axis = g.integer(0, ndim - 1)
        batch = g.integer(0, axis) if g.flag() else 0
        high = min(MAX_RANK, MAX_RANK + 1 - ndim + batch)
    prefix = shape[:batch]

    def fresh() -> TensorType:
        rest = g.shape(0, high - batch)
        return TensorType(prefix + rest, g.dtype(INDICES))

    indices = g.tensor(
        INDICES,
        min_rank=batch,
        max_rank=high,
        fits=lambda t: _dims(t)[:batch] == prefix,
        fresh=fresh,
    )
    extent = math.prod(shape) if axis is None else shape[axis]
    mode = g.pick(["clip", "wrap", "fast"])
    if mode == "fast" and (indices[1].dtype != "bool" or extent < 2):
        mode = "clip"
    attrs = TakeAttrs.from_kwargs(
        {
            "axis": None if axis is None else g.axis(axis, ndim),
            "batch_dims": batch,
            "mode": mode,
        }
    )
    return (data, indices), attrs


def _canonical(index: int, dim: int, stride: int) -> int:
    """A slice index made non-negative and clamped, as strided_slice reads it."""
    lo, hi = (-1, dim - 1) if stride < 0 else (0, dim)
    return min(max(index + dim if index < 0 else index, lo), hi)


def _strided_slice(g: _Graph) -> Built:
    """Leading axes or listed ones; per axis a begin, end (or size) and stride whose canonical
    bounds do not run backwards (shrinks towards the whole axis with stride 1)."""
    data = g.tensor(ALL, min_rank=1)
    shape = _dims(data[1])
    ndim = len(shape)
    size_mode = g.integer(0, 3) == 3
    axes: list[int] | None = None
    if g.flag():
        axes = g.subset(ndim, min_size=1)
        sliced = axes
    else:
        sliced = list(range(g.integer(0, ndim)))
    begin, end, strides = [], [], []
    for ax in sliced:
        dim = shape[ax]
        if size_mode:
            b = g.integer(0, dim)
            begin.append(b)
            end.append(g.integer(-1, dim - b))
            strides.append(1)
            continue
        s = g.pick([1, 2, -1, 3, -2])
        b, e = g.integer(-dim - 2, dim + 2), dim - g.integer(-2, 2 * dim + 2)
        if (_canonical(b, dim, s) > _canonical(e, dim, s)) == (s > 0):
            b, e = e, b
        begin.append(b)
        end.append(e)
        strides.append(s)
    attrs = StridedSliceAttrs.from_kwargs(
        {
            "begin": tuple(begin),
            "end": tuple(end),
            "strides": tuple(strides),
            "slice_mode": "size" if size_mode else "end",
            "axes": None if axes is None else tuple(axes),
        }
    )
    return (data,), attrs


_SIGNED_INDEX = ("int32", "int64", "int8", "int16")


_INDEX = (*_SIGNED_INDEX, "uint8", "uint32", "uint64", "uint16")


def _nonempty(t: TensorType) -> bool:
    return 0 not in _dims(t)


def _gather(g: _Graph) -> Built:
    """Data without empty axes; constant indices of data's shape but for the axis (1 to 4),
    each in range."""
    data = g.tensor(ALL, min_rank=1, fits=_nonempty)
    shape = _dims(data[1])
    axis = g.integer(0, len(shape) - 1)
    ishape = list(shape)
    ishape[axis] = g.integer(1, 4)
    indices = _index_array(g, tuple(ishape), 0, shape[axis], g.pick(_SIGNED_INDEX))
    attrs = GatherAttrs.from_kwargs({"axis": g.axis(axis, len(shape))})
    return (data, _constant(g, indices)), attrs


def _gather_nd(g: _Graph) -> Built:
    """Data without empty axes; constant index tuples (m, y...) in range, batch_dims 0 or 1,
    the result at rank 4 or less."""
    data = g.tensor(ALL, min_rank=1, fits=_nonempty)
    shape = _dims(data[1])
    batch = g.integer(0, 1) if len(shape) >= 2 else 0
    m = g.integer(1, len(shape) - batch)
    rest = len(shape) - m - batch
    ys = (*shape[:batch], *(g.dim() for _ in range(g.integer(0, MAX_RANK - rest - 2 * batch))))
    rows = [_index_array(g, ys, 0, shape[batch + j], "int64") for j in range(m)]
    indices = np.stack(rows).astype(g.pick(_INDEX))
    return (data, _constant(g, indices)), GatherNDAttrs.from_kwargs({"batch_dims": batch})


def _distinct_along(g: _Graph, shape: tuple[int, ...], axis: int, extent: int) -> Tensor:
    """Indices of ``shape`` whose entries along ``axis`` are distinct in each line (a shifted
    run ``(j + s) % extent``), some spelled negatively."""
    shift, negative = g.integer(0, extent - 1), g.flag()
    j = np.arange(shape[axis]).reshape([-1 if i == axis else 1 for i in range(len(shape))])
    out = np.broadcast_to((j + shift) % extent, shape)
    return out - extent if negative else out


def _scatter_elements(g: _Graph) -> Built:
    """Numeric data without empty axes; constant indices of data's shape with the axis extent
    at most data's, in [-extent, extent), distinct along the axis for "update"; updates of
    the indices' shape."""
    data = g.tensor(NUMERIC, min_rank=1, fits=_nonempty)
    shape = _dims(data[1])
    axis = g.integer(0, len(shape) - 1)
    extent = shape[axis]
    ishape = tuple(g.integer(1, extent) if i == axis else d for i, d in enumerate(shape))
    reduction = g.pick(["update", "add", "mul", "min", "max"])
    if reduction == "update":
        values = _distinct_along(g, ishape, axis, extent)
    else:
        values = _index_array(g, ishape, -extent, extent, "int64")
    indices = _constant(g, values.astype(g.pick(_SIGNED_INDEX)))
    updates = g.exactly(TensorType(ishape, data[1].dtype))
    attrs = ScatterElementsAttrs.from_kwargs(
        {"axis": g.axis(axis, len(shape)), "reduction": reduction}
    )
    return (data, indices, updates), attrs


def _scatter_nd(g: _Graph) -> Built:
    """Numeric data without empty axes; constant index tuples (m, c) in range, distinct for
    "update"; updates (c, data.shape[m:])."""
    data = g.tensor(NUMERIC, min_rank=1, max_rank=MAX_RANK - 1, fits=_nonempty)
    shape = _dims(data[1])
    m = g.integer(1, len(shape))
    total = math.prod(shape[:m])
    mode = g.pick(["update", "add", "mul", "min", "max"])
    count = g.integer(1, min(total, 4) if mode == "update" else 4)
    flat: npt.NDArray[np.int64]
    if mode == "update":
        start = g.integer(0, total - 1)
        flat = (start + np.arange(count, dtype=np.int64)) % total
    else:
        flat = _index_array(g, (count,), 0, total, "int64").astype(np.int64)
    indices = np.stack(np.unravel_index(flat, shape[:m])).astype(g.pick(_INDEX))
    updates = g.exactly(TensorType((count, *shape[m:]), data[1].dtype))
    return (data, _constant(g, indices), updates), ScatterNDAttrs.from_kwargs({"mode": mode})


def _one_hot(g: _Graph) -> Built:
    """Any integer indices of rank <= 3 (every value is defined); on and off values of the
    result dtype."""
    indices = g.tensor(INTEGERS, max_rank=MAX_RANK - 1)
    dtype = g.dtype(ALL)
    on = g.tensor((dtype,), max_rank=0)
    off = g.tensor((dtype,), max_rank=0)
    ndim = len(indices[1].shape)
    attrs = OneHotAttrs.from_kwargs(
        {"depth": g.integer(1, 4), "axis": g.integer(-1, ndim), "dtype": dtype}
    )
    return (indices, on, off), attrs


def _unravel_index(g: _Graph) -> Built:
    """A constant positive shape vector and constant flat indices within its size."""
    dtype = g.pick(_INDEX)
    dims = _index_array(g, (g.integer(1, 3),), 1, 5, dtype)
    total = math.prod(int(d) for d in dims)
    data_shape = (g.integer(1, 4),) if g.flag() else ()
    data = _index_array(g, data_shape, 0, total, dtype)
    return (_constant(g, data), _constant(g, dims)), None


def _sparse_to_dense(g: _Graph) -> Built:
    """A fresh output shape; constant distinct index tuples within it; values (a vector or a
    scalar) and a default value of one dtype."""
    out = g.shape(1, MAX_RANK)
    total = math.prod(out)
    count = g.integer(1, min(total, 4))
    start = g.integer(0, total - 1)
    flat = (start + np.arange(count)) % total
    rows = np.stack(np.unravel_index(flat, out), axis=1)
    dtype = g.pick(_SIGNED_INDEX)
    indices = rows.astype(dtype)
    if len(out) == 1 and g.flag():
        indices = rows[:, 0].astype(dtype)
    vdtype = g.dtype(ALL)
    values = g.exactly(TensorType((count,) if g.flag() or count > 1 else (), vdtype))
    default = g.exactly(TensorType((), vdtype))
    attrs = SparseToDenseAttrs.from_kwargs({"output_shape": out})
    return (_constant(g, indices), values, default), attrs


def _sequence_mask(g: _Graph) -> Built:
    """Data of rank >= 2; any integer lengths of the batch extent (every value is defined);
    a mask value the data dtype holds."""
    data = g.tensor(ALL, min_rank=2)
    shape = _dims(data[1])
    axis = g.integer(0, 1)
    valid = g.tensor(
        INTEGERS,
        min_rank=1,
        max_rank=1,
        fits=lambda t: _dims(t) == (shape[1 - axis],),
        fresh=lambda: TensorType((shape[1 - axis],), g.dtype(INTEGERS)),
    )
    dtype = data[1].dtype
    low = 0 if dtype in UNSIGNED or dtype == "bool" else -2
    high = 1 if dtype == "bool" else 2
    attrs = SequenceMaskAttrs.from_kwargs({"axis": axis, "mask_value": float(g.integer(low, high))})
    return (data, valid), attrs


def _invert_permutation(g: _Graph) -> Built:
    """A constant permutation of 1 to 6 elements."""
    n = g.integer(1, 6)
    remaining = list(range(n))
    perm = [remaining.pop(g.integer(0, len(remaining) - 1)) for _ in range(n)]
    return (_constant(g, np.asarray(perm, dtype=g.pick(_INDEX))),), None


def _slice_like(g: _Graph) -> Built:
    """shape_like no larger than data on the sliced axes (all shared axes, or some)."""
    data = g.tensor(ALL, min_rank=1)
    shape = _dims(data[1])
    ndim = len(shape)
    like_rank = g.integer(1, MAX_RANK)
    shared = min(ndim, like_rank)
    axes: list[int] | None = None
    if g.flag():
        axes = g.subset(shared, min_size=1)
    sliced = list(range(shared)) if axes is None else axes
    like = []
    for i in range(like_rank):
        if i in sliced:
            like.append(g.integer(min(1, shape[i]), shape[i]))
        else:
            like.append(g.dim())
    shape_like = g.exactly(TensorType(tuple(like), g.dtype(ALL)))
    written = None if axes is None else tuple(g.axis(x, ndim) for x in axes)
    return (data, shape_like), SliceLikeAttrs.from_kwargs({"axes": written})


BUILDERS: dict[str, Builder] = {
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
