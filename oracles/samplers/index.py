"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.index``.

From the former ``samplers_indexing`` module:

Samplers of the ``indexing`` operator group.

Each sampler draws a call that is valid four times in five, else broken in one way (a wrong
dtype, rank, extent or attribute). Symbolic ``n`` and ``?`` appear where relations must
handle them. All randomness comes from Hypothesis, shrinking to small valid calls.

From the former ``samplers_shaping`` module:

Samplers of the ``shaping`` operator group.

Each strategy draws one call: mostly well-typed (shapes derived from one another, attributes
chosen to fit), about one in five broken in one way (an axis out of range, a mismatched size,
a wrong dtype or attribute). Symbolic ``n`` and ``?`` sizes appear where the relation must
handle them. Everything shrinks towards small ranks, sizes 1, default attributes and the
valid variant (see ``samplers``).
"""

from __future__ import annotations

from hypothesis import strategies as st

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
from relay.semantics.syntax import ANY, DTYPES, Dim

from .core import (
    FLOATS,
    INTEGERS,
    NUMERIC,
    SIGNED,
    N,
    Sample,
    Sampler,
    _axis_form,
    _bad_axis,
    _bad_size,
    _dim,
    _shape,
    _size,
    _tensor,
    _valid,
)


@st.composite
def _take(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = list(_shape(draw, 0, 3, symbolic=True))
    indices = list(_shape(draw, 0, 2, symbolic=True))
    ndim = len(data)
    axis: int | None = None
    batch_dims = 0
    if ndim and draw(st.booleans()):
        axis = draw(st.integers(0, ndim - 1))
        if axis >= 1 and len(indices) > 0 and draw(st.booleans()):
            batch_dims = 1
            indices[0] = data[0]
        axis = _axis_form(draw, axis, ndim)
    index_dtype = draw(st.sampled_from(INTEGERS))
    mode = draw(st.sampled_from(["clip", "wrap", "fast"]))
    if not valid:
        fault = draw(st.sampled_from(["axis", "dtype", "batch", "mode"]))
        if fault == "axis":
            axis = draw(st.sampled_from([ndim, ndim + 1, -ndim - 1]))
        elif fault == "dtype":
            index_dtype = draw(st.sampled_from(FLOATS))
        elif fault == "batch":
            axis, batch_dims = 0, draw(st.sampled_from([1, -1]))
        else:
            mode = "raise"
    attrs = TakeAttrs.from_kwargs({"axis": axis, "batch_dims": batch_dims, "mode": mode})
    types = (_tensor(data, draw(st.sampled_from(NUMERIC))), _tensor(indices, index_dtype))
    return Sample(types, attrs, valid)


def _canonical(index: int, dim: int, stride: int) -> int:
    """A slice index made non-negative and clamped, as strided_slice reads it."""
    lo, hi = (-1, dim - 1) if stride < 0 else (0, dim)
    return min(max(index + dim if index < 0 else index, lo), hi)


@st.composite
def _strided_slice(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape: list[Dim] = [_size(draw) for _ in range(draw(st.integers(1, 4)))]
    ndim = len(shape)
    size_mode = draw(st.integers(0, 4)) == 0
    axes: list[int] | None = None
    if draw(st.booleans()):
        axes = draw(st.lists(st.integers(0, ndim - 1), min_size=1, unique=True))
        sliced = axes
        for i in range(ndim):
            if i not in axes and draw(st.integers(0, 3)) == 0:
                shape[i] = N
    else:
        sliced = list(range(draw(st.integers(0, ndim))))
    begin, end, strides = [], [], []
    for ax in sliced:
        dim = shape[ax]
        assert isinstance(dim, int)
        if size_mode:
            b = draw(st.integers(0, dim))
            begin.append(b)
            end.append(draw(st.integers(-1, dim - b)))
            strides.append(1)
            continue
        s = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
        b, e = draw(st.integers(-dim - 2, dim + 2)), draw(st.integers(-dim - 2, dim + 2))
        if (_canonical(b, dim, s) > _canonical(e, dim, s)) == (s > 0):
            b, e = e, b
        begin.append(b)
        end.append(e)
        strides.append(s)
    if not valid:
        fault = draw(st.sampled_from(["stride", "order", "lengths", "axis"]))
        if fault == "stride" and strides and not size_mode:
            strides[-1] = 0
        elif fault == "order" and begin and not size_mode:
            dim = shape[sliced[-1]]
            assert isinstance(dim, int)
            begin[-1], end[-1], strides[-1] = dim, 0, 1
        elif fault == "lengths":
            begin.append(0)
            if axes is None:
                begin += [0] * (ndim + 1 - len(begin))
        else:
            axes = [*(axes or [0]), ndim]
            begin, end, strides = [*begin, 0], [*end, 1], [*strides, 1]
    attrs = StridedSliceAttrs.from_kwargs(
        {
            "begin": tuple(begin),
            "end": tuple(end),
            "strides": tuple(strides),
            "slice_mode": "size" if size_mode else "end",
            "axes": None if axes is None else tuple(axes),
        }
    )
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


_INDEX = (*SIGNED, "uint8", "uint32")


@st.composite
def _gather(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = list(_shape(draw, 1, 4, symbolic=True, any_=True))
    ndim = len(data)
    axis = draw(st.integers(0, ndim - 1))
    indices = list(data)
    indices[axis] = draw(st.integers(1, 5))
    index_dtype = draw(st.sampled_from(SIGNED))
    attr_axis: int | None = _axis_form(draw, axis, ndim)
    if not valid:
        fault = draw(st.sampled_from(["dtype", "rank", "extent", "axis", "zero"]))
        if fault == "dtype":
            index_dtype = draw(st.sampled_from(("uint8", "float32")))
        elif fault == "rank":
            indices.append(1)
        elif fault == "extent" and ndim > 1:
            other = (axis + 1) % ndim
            indices[other] = _bad_size(draw, data[other])
        elif fault == "axis":
            attr_axis = draw(st.sampled_from([ndim, -ndim - 1, None]))
        else:
            indices[axis] = 0
    types = (_tensor(data, draw(st.sampled_from(NUMERIC))), _tensor(indices, index_dtype))
    return Sample(types, GatherAttrs.from_kwargs({"axis": attr_axis}), valid)


@st.composite
def _gather_nd(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = list(_shape(draw, 1, 4, symbolic=True, any_=True))
    batch = draw(st.integers(0, min(1, len(data) - 1)))
    m = draw(st.integers(1, len(data) - batch))
    ys = [*data[:batch], *_shape(draw, 0, 2, symbolic=True)]
    indices: list[Dim] = [m, *ys]
    if not valid:
        fault = draw(st.sampled_from(["m", "batch", "any", "rank0"]))
        if fault == "m":
            indices[0] = len(data) - batch + 1
        elif fault == "batch":
            batch = len(ys) + 1
        elif fault == "any":
            indices[0] = ANY
        else:
            indices = []
    types = (_tensor(data, draw(st.sampled_from(NUMERIC))), _tensor(indices, "int64"))
    return Sample(types, GatherNDAttrs.from_kwargs({"batch_dims": batch}), valid)


@st.composite
def _scatter_elements(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = list(_shape(draw, 1, 4, symbolic=True))
    ndim = len(data)
    axis = draw(st.integers(0, ndim - 1))
    indices = [d if draw(st.booleans()) else 1 for d in data]
    indices[axis] = draw(st.integers(0, 4))
    updates = list(indices)
    dtype = draw(st.sampled_from(NUMERIC))
    udtype, index_dtype = dtype, draw(st.sampled_from(_INDEX))
    reduction = draw(st.sampled_from(["update", "add", "mul", "min", "max"]))
    if not valid:
        fault = draw(st.sampled_from(["updates", "dtype", "reduction", "axis", "extent"]))
        if fault == "updates":
            updates[axis] = _bad_size(draw, updates[axis])
        elif fault == "dtype":
            udtype = "bool"
        elif fault == "reduction":
            reduction = "mean"
        elif fault == "axis":
            axis = ndim
        elif ndim > 1:
            other = (axis + 1) % ndim
            data[other] = 1
            indices[other] = updates[other] = 3
    attrs = ScatterElementsAttrs.from_kwargs({"axis": axis, "reduction": reduction})
    types = (_tensor(data, dtype), _tensor(indices, index_dtype), _tensor(updates, udtype))
    return Sample(types, attrs, valid)


@st.composite
def _scatter_nd(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = list(_shape(draw, 1, 4, symbolic=True))
    m = draw(st.integers(1, len(data)))
    ys = list(_shape(draw, 0, 2, symbolic=True))
    updates = [*ys, *data[m:]]
    indices: list[Dim] = [m, *ys]
    mode = draw(st.sampled_from(["update", "add", "mul", "min", "max"]))
    if not valid:
        fault = draw(st.sampled_from(["updates", "m", "mode"]))
        if fault == "updates":
            updates.append(2)
        elif fault == "m":
            indices[0] = len(data) + 1
        else:
            mode = "sub"
    dtype = draw(st.sampled_from(NUMERIC))
    types = (_tensor(data, dtype), _tensor(indices, "int32"), _tensor(updates, dtype))
    return Sample(types, ScatterNDAttrs.from_kwargs({"mode": mode}), valid)


@st.composite
def _one_hot(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    indices = _shape(draw, 0, 3, symbolic=True, any_=True)
    depth = draw(st.integers(1, 5))
    axis = draw(st.integers(-1, len(indices)))
    value = _tensor((), draw(st.sampled_from(NUMERIC)))
    on, off = value, value
    index_dtype = draw(st.sampled_from(_INDEX))
    if not valid:
        fault = draw(st.sampled_from(["depth", "axis", "on", "dtype"]))
        if fault == "depth":
            depth = 0
        elif fault == "axis":
            axis = draw(st.sampled_from([-2, len(indices) + 1]))
        elif fault == "on":
            on = _tensor((2,), value.dtype)
        else:
            index_dtype = "float32"
    attrs = OneHotAttrs.from_kwargs(
        {"depth": depth, "axis": axis, "dtype": draw(st.sampled_from(NUMERIC))}
    )
    return Sample((_tensor(indices, index_dtype), on, off), attrs, valid)


@st.composite
def _unravel_index(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = _shape(draw, 0, 1, symbolic=True, any_=True)
    shape: tuple[Dim, ...] = (_dim(draw, any_=True),)
    dtype = draw(st.sampled_from(INTEGERS))
    if not valid:
        fault = draw(st.sampled_from(["dtype", "shape", "data"]))
        if fault == "dtype":
            dtype = draw(st.sampled_from(FLOATS))
        elif fault == "shape":
            shape = ()
        else:
            data = (2, 2)
    return Sample((_tensor(data, dtype), _tensor(shape, "int64")), None, valid)


@st.composite
def _sparse_to_dense(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    rank = draw(st.integers(0, 2))
    n = _dim(draw, symbolic=True)
    output = tuple(_size(draw) for _ in range(1 if rank < 2 else draw(st.integers(1, 3))))
    indices: tuple[Dim, ...] = () if rank == 0 else (n,) if rank == 1 else (n, len(output))
    values: tuple[Dim, ...] = () if rank == 0 or draw(st.booleans()) else (n,)
    dtype = draw(st.sampled_from(NUMERIC))
    ddtype = dtype
    if not valid:
        fault = draw(st.sampled_from(["width", "default", "shape"]))
        if fault == "width":
            indices = (n, len(output) + 1)
        elif fault == "default":
            ddtype = "bool"
        else:
            output = (-1,)
    attrs = SparseToDenseAttrs.from_kwargs({"output_shape": output})
    types = (_tensor(indices, "int32"), _tensor(values, dtype), _tensor((), ddtype))
    return Sample(types, attrs, valid)


@st.composite
def _sequence_mask(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = _shape(draw, 2, 4, symbolic=True, any_=True)
    axis = draw(st.integers(0, 1))
    valid_length: tuple[Dim, ...] = (data[1 - axis],)
    if not valid:
        fault = draw(st.sampled_from(["axis", "length"]))
        if fault == "axis":
            axis = 2
        else:
            valid_length = (_bad_size(draw, data[1 - axis]),)
    attrs = SequenceMaskAttrs.from_kwargs(
        {"axis": axis, "mask_value": float(draw(st.integers(-2, 2)))}
    )
    types = (_tensor(data, draw(st.sampled_from(NUMERIC))), _tensor(valid_length, "int32"))
    return Sample(types, attrs, valid)


@st.composite
def _invert_permutation(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1, 1, symbolic=True, any_=True)
    dtype = draw(st.sampled_from(INTEGERS))
    if not valid:
        if draw(st.booleans()):
            shape = (2, 2)
        else:
            dtype = "float32"
    return Sample((_tensor(shape, dtype),), None, valid)


@st.composite
def _slice_like(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = list(_shape(draw, 1, symbolic=True, any_=True))
    like: list[Dim] = []
    for d in data[: draw(st.integers(0, len(data)))]:
        like.append(draw(st.integers(0, d)) if isinstance(d, int) else d)
    like += list(_shape(draw, 0, 1))
    ndim = len(data)
    axes: tuple[int, ...] | None = None
    shared = min(ndim, len(like))
    if shared and draw(st.booleans()):
        chosen = draw(
            st.lists(st.integers(0, shared - 1), min_size=1, max_size=shared, unique=True)
        )
        axes = tuple(_axis_form(draw, x, ndim) for x in chosen)
    if not valid:
        fault = draw(st.sampled_from(["empty", "axis", "size"]))
        if fault == "empty":
            axes = ()
        elif fault == "axis" or not like:
            axes = (_bad_axis(draw, ndim),)
        else:
            extent = draw(st.integers(0, 3))
            data[0] = extent
            like[0] = extent + 1 + draw(st.integers(0, 2))
            axes = (0,)
    dtype = draw(st.sampled_from(DTYPES))
    types = (_tensor(data, dtype), _tensor(like, draw(st.sampled_from(DTYPES))))
    return Sample(types, SliceLikeAttrs.from_kwargs({"axes": axes}), valid)


SAMPLERS: dict[str, Sampler] = {
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
