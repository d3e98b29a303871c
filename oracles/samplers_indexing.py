"""Samplers of the ``indexing`` operator group.

Each sampler draws a call that is valid four times in five, else broken in one way (a wrong
dtype, rank, extent or attribute). Symbolic ``n`` and ``?`` appear where relations must
handle them. All randomness comes from Hypothesis, shrinking to small valid calls.
"""

from __future__ import annotations

from hypothesis import strategies as st

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
from relay.semantics.ops.shape import MeshgridAttrs
from relay.semantics.ops.sort import ArgsortAttrs, SearchSortedAttrs, TopKAttrs
from relay.semantics.syntax import ANY, Dim, TupleType

from .samplers import (
    FLOATS,
    INTEGERS,
    NUMERIC,
    SIGNED,
    Sample,
    Sampler,
    _axis_form,
    _bad_size,
    _dim,
    _shape,
    _size,
    _tensor,
    _valid,
)

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


def _sort_family(op: str) -> Sampler:
    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        data = _shape(draw, 1, 4, symbolic=True, any_=True)
        axis = _axis_form(draw, draw(st.integers(0, len(data) - 1)), len(data))
        dtype = draw(st.sampled_from(("int32", "int64")))
        k = draw(st.integers(-1, 4))
        ret_type = draw(st.sampled_from(["both", "values", "indices"]))
        if not valid:
            fault = draw(st.sampled_from(["axis", "dtype", "ret_type"]))
            if fault == "axis":
                axis = draw(st.sampled_from([len(data), -len(data) - 1]))
            elif fault == "dtype" and op != "sort":
                dtype = "float32"
            else:
                ret_type = "all"
        is_ascend = draw(st.booleans())
        types = (_tensor(data, draw(st.sampled_from(NUMERIC))),)
        if op == "topk":
            attrs = TopKAttrs.from_kwargs(
                {"k": k, "axis": axis, "ret_type": ret_type, "is_ascend": is_ascend, "dtype": dtype}
            )
        else:
            attrs = ArgsortAttrs.from_kwargs({"axis": axis, "is_ascend": is_ascend, "dtype": dtype})
        return Sample(types, attrs, valid)

    return sample


@st.composite
def _searchsorted(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    values = list(_shape(draw, 1, 3, symbolic=True, any_=True))
    seq = [_dim(draw)] if draw(st.booleans()) else [*values[:-1], _dim(draw, symbolic=True)]
    dtype, vdtype = draw(st.sampled_from(NUMERIC)), None
    if not valid:
        fault = draw(st.sampled_from(["dtype", "rank", "outer"]))
        if fault == "dtype":
            vdtype = "bool"
        elif fault == "rank":
            values = []
        elif len(seq) > 1:
            seq[0] = 7
            values[0] = 2
        else:
            seq = [2, *seq, 3]
    attrs = SearchSortedAttrs.from_kwargs(
        {"right": draw(st.booleans()), "dtype": draw(st.sampled_from(("int32", "int64")))}
    )
    return Sample((_tensor(seq, dtype), _tensor(values, vdtype or dtype)), attrs, valid)


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
def _arange(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    dtype = draw(st.sampled_from(NUMERIC))
    types = [_tensor((), dtype) for _ in range(3)]
    if not valid:
        i = draw(st.integers(0, 2))
        types[i] = _tensor((1,), dtype) if draw(st.booleans()) else _tensor((), "bool")
    return Sample(tuple(types), ArangeAttrs.from_kwargs({"dtype": dtype}), valid)


@st.composite
def _meshgrid(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    count = draw(st.integers(1, 4))
    dtype = draw(st.sampled_from(NUMERIC))
    fields = [_tensor(_shape(draw, 0, 1, symbolic=True, any_=True), dtype) for _ in range(count)]
    indexing = draw(st.sampled_from(["ij", "xy"]))
    if not valid:
        fault = draw(st.sampled_from(["dtype", "rank", "indexing"]))
        if fault == "dtype":
            fields.append(_tensor((2,), "bool"))
        elif fault == "rank":
            fields.append(_tensor((2, 2), dtype))
        else:
            indexing = "yx"
    attrs = MeshgridAttrs.from_kwargs({"indexing": indexing})
    return Sample((TupleType(tuple(fields)),), attrs, valid)


SAMPLERS: dict[str, Sampler] = {
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
"""The samplers of this group's operators, by name (merged into ``samplers.SAMPLERS``)."""
