"""Dataflow-generator builders of the ``indexing`` operator group.

Index tensors whose values must lie in range (gather, gather_nd, the scatters,
sparse_to_dense, unravel_index, invert_permutation) and searchsorted's sorted sequence are
constants built here from Hypothesis draws, in range by construction; writes with mode
"update" go to distinct positions. Inputs whose every value is defined (one_hot's indices,
sequence_mask's lengths, the data of the sorts) come from the pool or fresh parameters.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

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
from relay.semantics.ops.registry import Tensor
from relay.semantics.ops.shape import MeshgridAttrs
from relay.semantics.ops.sort import ArgsortAttrs, SearchSortedAttrs, TopKAttrs
from relay.semantics.syntax import Constant, TensorType

from .gen_dataflow import (
    ALL,
    INTEGERS,
    MAX_RANK,
    NUMERIC,
    UNSIGNED,
    Arg,
    Builder,
    Built,
    _dims,
    _Graph,
)

_SIGNED_INDEX = ("int32", "int64", "int8", "int16")
_INDEX = (*_SIGNED_INDEX, "uint8", "uint32", "uint64", "uint16")


def _constant(g: _Graph, value: Tensor) -> Arg:
    """A constant leaf holding ``value``; it joins the pool."""
    t = TensorType(tuple(int(d) for d in value.shape), value.dtype.name)
    return g.use(g.add(Constant(value), t, (False,)))


def _index_array(g: _Graph, shape: tuple[int, ...], low: int, high: int, dtype: str) -> Tensor:
    """An array of ``shape`` with each element drawn from ``[low, high)``."""
    values = [g.integer(low, high - 1) for _ in range(math.prod(shape))]
    return np.asarray(values, dtype=dtype).reshape(shape)


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


def _sort_family(op: str) -> Builder:
    """Data of rank >= 1; an axis; for topk a k (< 1 sometimes: the whole axis) and a
    ret_type."""

    def build(g: _Graph) -> Built:
        data = g.tensor(ALL, min_rank=1)
        ndim = len(data[1].shape)
        axis_index = g.integer(0, ndim - 1)
        extent = _dims(data[1])[axis_index]
        axis = g.axis(axis_index, ndim)
        ascend = g.flag()
        dtype = g.pick(["int32", "int64"])
        if op == "topk":
            attrs = TopKAttrs.from_kwargs(
                {
                    "k": g.integer(0, min(4, extent)),
                    "axis": axis,
                    "ret_type": g.pick(["both", "values", "indices"]),
                    "is_ascend": ascend,
                    "dtype": dtype,
                }
            )
        else:
            attrs = ArgsortAttrs.from_kwargs({"axis": axis, "is_ascend": ascend, "dtype": dtype})
        return (data,), attrs

    return build


def _searchsorted(g: _Graph) -> Built:
    """Any values of rank >= 1; a constant sorted vector of their dtype."""
    values = g.tensor(ALL, min_rank=1)
    dtype = values[1].dtype
    low = 0 if dtype in UNSIGNED or dtype == "bool" else -3
    high = 1 if dtype == "bool" else 3
    seq = np.sort(_index_array(g, (g.integer(1, 4),), low, high + 1, "int64")).astype(dtype)
    attrs = SearchSortedAttrs.from_kwargs({"right": g.flag(), "dtype": g.pick(["int32", "int64"])})
    return (_constant(g, seq), values), attrs


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


def _arange(g: _Graph) -> Built:
    """Constant start, step (non-zero) and stop giving 0 to 6 elements, all in range."""
    dtype = g.dtype(NUMERIC)
    unsigned = dtype in UNSIGNED
    start = g.integer(0 if unsigned else -3, 3)
    step = g.pick([1, 2, 3] if unsigned else [1, 2, -1, 3, -2])
    count = g.integer(0, 6)
    stop = (
        start
        + step * count
        - (g.integer(0, abs(step) - 1) if abs(step) > 1 else 0) * (1 if step > 0 else -1)
    )
    if unsigned:
        stop = max(stop, 0)
    values = [np.asarray(v, dtype=dtype) for v in (start, stop, step)]
    args = tuple(_constant(g, v) for v in values)
    return args, ArangeAttrs.from_kwargs({"dtype": dtype})


def _meshgrid(g: _Graph) -> Built:
    """One to four scalars or vectors of one dtype."""
    first = g.tensor(ALL, max_rank=1)
    dtype = first[1].dtype
    fields = [first] + [g.tensor((dtype,), max_rank=1) for _ in range(g.integer(0, MAX_RANK - 1))]
    tup = g.tuple_of(fields)
    return (tup,), MeshgridAttrs.from_kwargs({"indexing": g.pick(["ij", "xy"])})


BUILDERS: dict[str, Builder] = {
    "gather": _gather,
    "gather_nd": _gather_nd,
    "scatter_elements": _scatter_elements,
    "scatter_nd": _scatter_nd,
    "one_hot": _one_hot,
    "sort": _sort_family("sort"),
    "argsort": _sort_family("argsort"),
    "topk": _sort_family("topk"),
    "searchsorted": _searchsorted,
    "unravel_index": _unravel_index,
    "sparse_to_dense": _sparse_to_dense,
    "sequence_mask": _sequence_mask,
    "invert_permutation": _invert_permutation,
    "arange": _arange,
    "meshgrid": _meshgrid,
}
"""How to build a call of each of this group's operators (merged into ``gen_dataflow.BUILDERS``)."""
