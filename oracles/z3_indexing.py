"""Z3 encodings of the type relations of the ``indexing`` operator group.

Written from TVM 0.18's relations (``src/relay/op/tensor/transform.cc``,
``src/relay/op/algorithm/*.cc``) and the departures ``ops.indexing`` documents, independently
of the relation functions there. Each encoding's docstring states its rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

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
from relay.semantics.ops.registry import Attrs
from relay.semantics.ops.shape import MeshgridAttrs
from relay.semantics.ops.sort import ArgsortAttrs, SearchSortedAttrs, TopKAttrs

from .z3_relations import (
    ONE,
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    Shape,
    TensorArg,
    _attrs,
    _axis,
    _tensor,
    _tuple,
    const_value,
    well_typed,
)

_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _ints(t: TensorArg, what: str, *, signed: bool = False) -> None:
    allowed = _INTS[:4] if signed else _INTS
    if t.dtype not in allowed:
        raise IllTyped(f"{what} must be {'signed ' if signed else ''}integers, found {t.dtype}")


def _known(d: z3.ArithRef) -> int | None:
    return const_value(d)


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


def _sort_family(kind: str) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """Sort / Argsort: axis in range; out = data's shape, data's dtype (sort) or the
        integer dtype attribute (argsort)."""
        data = _tensor(args, 0)
        a = _attrs(attrs, ArgsortAttrs)
        _axis(a.axis, len(data.shape))
        if kind == "sort":
            return well_typed([list(data.shape)], dtypes=[data.dtype])
        if a.dtype not in _INTS:
            raise IllTyped("argsort needs an integer dtype")
        return well_typed([list(data.shape)], dtypes=[a.dtype])

    return encode


def _topk(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """TopK: k given, axis in range, ret_type both/values/indices, integer dtype; the axis
    extent becomes k when k >= 1; values of data's dtype, indices of dtype."""
    data = _tensor(args, 0)
    a = _attrs(attrs, TopKAttrs)
    if a.k is None or a.dtype not in _INTS:
        raise IllTyped("k and an integer dtype are needed")
    axis = _axis(a.axis, len(data.shape))
    out: Shape = list(data.shape)
    if a.k >= 1:
        out[axis] = z3.IntVal(a.k)
    if a.ret_type == "both":
        return well_typed([out, out], dtypes=[data.dtype, a.dtype], tuple_output=True)
    if a.ret_type == "values":
        return well_typed([out], dtypes=[data.dtype])
    if a.ret_type == "indices":
        return well_typed([out], dtypes=[a.dtype])
    raise IllTyped(f"ret_type {a.ret_type}")


def _searchsorted(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SearchSorted: both of rank >= 1 and one dtype; a sequence of rank > 1 has values'
    rank and the same outer extents where both are constants; out = values' shape,
    integer dtype attribute."""
    seq, values = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, SearchSortedAttrs)
    if not seq.shape or not values.shape or seq.dtype != values.dtype:
        raise IllTyped("ranks or dtypes")
    if a.dtype not in _INTS:
        raise IllTyped("dtype")
    if len(seq.shape) > 1:
        if len(seq.shape) != len(values.shape):
            raise IllTyped("ranks differ")
        for s, v in zip(seq.shape[:-1], values.shape[:-1], strict=True):
            ks, kv = _known(s), _known(v)
            if ks is not None and kv is not None and ks != kv:
                raise IllTyped("outer extents differ")
    return well_typed([list(values.shape)], dtypes=[a.dtype])


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


def _arange(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Arange: start, stop, step are rank-0 tensors of the dtype attribute; out (n,) for
    some n >= 0 (the relation says ?)."""
    a = _attrs(attrs, ArangeAttrs)
    for i in range(3):
        t = _tensor(args, i)
        if t.shape or t.dtype != a.dtype:
            raise IllTyped("start, stop and step must be scalars of dtype")
    return well_typed([[z3.FreshInt("arange_n")]], dtypes=[a.dtype])


def _meshgrid(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Meshgrid: a tuple of scalars and vectors of one dtype; indexing ij or xy; one grid
    per field of extents (n_0, n_1, ...), a scalar counting 1, the first two swapped with
    xy."""
    fields = _tuple(args, 0)
    a = _attrs(attrs, MeshgridAttrs)
    if a.indexing not in ("ij", "xy"):
        raise IllTyped(f"indexing {a.indexing}")
    if len({f.dtype for f in fields}) != 1 or any(len(f.shape) > 1 for f in fields):
        raise IllTyped("dtypes or ranks")
    grid = [f.shape[0] if f.shape else ONE for f in fields]
    if a.indexing == "xy" and len(grid) >= 2:
        grid[0], grid[1] = grid[1], grid[0]
    return well_typed(
        [list(grid) for _ in fields], dtypes=[fields[0].dtype] * len(fields), tuple_output=True
    )


RULES: dict[str, Encoding] = {
    "gather": _gather,
    "gather_nd": _gather_nd,
    "scatter_elements": _scatter_elements,
    "scatter_nd": _scatter_nd,
    "one_hot": _one_hot,
    "sort": _sort_family("sort"),
    "argsort": _sort_family("argsort"),
    "topk": _topk,
    "searchsorted": _searchsorted,
    "unravel_index": _unravel_index,
    "sparse_to_dense": _sparse_to_dense,
    "sequence_mask": _sequence_mask,
    "invert_permutation": _invert_permutation,
    "arange": _arange,
    "meshgrid": _meshgrid,
}
"""The encodings of this group's operators, by name (merged into ``Z3_ENCODINGS``)."""
