"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.reduce``.

From the former ``samplers_arith`` module:

Samplers of the ``arith`` operator group: ``ops.arith``, ``ops.scan``, ``ops.annotation``.

As in ``samplers``: most samples are well-typed, about one in five is broken in one way (a
wrong dtype, a clashing size, an out-of-range axis, a width-changing ``reinterpret``, an
invalid or missing device); every choice is a Hypothesis draw, so samples shrink towards small
shapes, default attributes and the valid variant.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.reduce import ArgReduceAttrs, ReduceAttrs, ScanopAttrs, VarianceAttrs
from relay.semantics.syntax import DTYPES, Dim

from .core import (
    FLOATS,
    INTEGERS,
    NUMERIC,
    Sample,
    Sampler,
    _axis_form,
    _bad_axis,
    _bad_size,
    _other,
    _shape,
    _tensor,
    _valid,
)


def _reduction(attrs_type: type[ReduceAttrs] | type[ArgReduceAttrs], min_rank: int) -> Sampler:
    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        shape = _shape(draw, min_rank if valid else 0, symbolic=True, any_=True)
        ndim = len(shape)
        form = draw(st.sampled_from(["none", "empty", "some"] if ndim else ["none", "empty"]))
        axis: tuple[int, ...] | None = None if form == "none" else ()
        if form == "some":
            chosen = draw(st.lists(st.integers(0, ndim - 1), min_size=1, unique=True))
            axis = tuple(_axis_form(draw, a, ndim) for a in chosen)
        if not valid and draw(st.booleans()):
            axis = (*(axis or ()), _bad_axis(draw, ndim))
        kwargs: dict[str, object] = {
            "axis": axis,
            "keepdims": draw(st.booleans()),
            "exclude": draw(st.booleans()),
        }
        if attrs_type is ArgReduceAttrs:
            kwargs["select_last_index"] = draw(st.booleans())
        data = _tensor(shape, draw(st.sampled_from(NUMERIC)))
        return Sample((data,), attrs_type.from_kwargs(kwargs), valid)

    return sample


def _axes(draw: st.DrawFn, ndim: int) -> tuple[int, ...] | None:
    """``None``, ``()`` or some distinct axes (each perhaps negative)."""
    form = draw(st.sampled_from(["none", "empty", "some"] if ndim else ["none", "empty"]))
    if form == "none":
        return None
    if form == "empty":
        return ()
    chosen = draw(st.lists(st.integers(0, ndim - 1), min_size=1, unique=True))
    return tuple(_axis_form(draw, a, ndim) for a in chosen)


@st.composite
def _variance(draw: st.DrawFn) -> Sample:
    """Float data of rank >= 1 and a mean of its dtype, each size the data's or 1; broken: a
    clashing mean size, a mean of another dtype or rank, integer data, a bad axis."""
    valid = _valid(draw)
    shape = _shape(draw, 1, symbolic=True, any_=True)
    ndim = len(shape)
    mean: list[Dim] = [d if draw(st.booleans()) else 1 for d in shape]
    dtype = draw(st.sampled_from(FLOATS))
    mean_dtype = dtype
    axis = _axes(draw, ndim)
    if not valid:
        fault = draw(st.sampled_from(["size", "dtype", "rank", "integer", "axis"]))
        if fault == "size":
            i = draw(st.integers(0, ndim - 1))
            shape = (*shape[:i], draw(st.integers(2, 6)), *shape[i + 1 :])
            mean[i] = _bad_size(draw, shape[i])
        elif fault == "dtype":
            mean_dtype = _other(draw, dtype, NUMERIC)
        elif fault == "rank":
            mean = mean[1:]
        elif fault == "integer":
            dtype = mean_dtype = draw(st.sampled_from(INTEGERS))
        else:
            axis = (*(axis or ()), _bad_axis(draw, ndim))
    attrs = VarianceAttrs.from_kwargs(
        {
            "axis": axis,
            "keepdims": draw(st.booleans()),
            "exclude": draw(st.booleans()),
            "unbiased": draw(st.booleans()),
        }
    )
    return Sample((_tensor(shape, dtype), _tensor(mean, mean_dtype)), attrs, valid)


@st.composite
def _bool_reduction(draw: st.DrawFn) -> Sample:
    """Bool data of any rank; broken: numeric data or a bad axis."""
    valid = _valid(draw)
    shape = _shape(draw, symbolic=True, any_=True)
    ndim = len(shape)
    axis = _axes(draw, ndim)
    dtype = "bool"
    if not valid and draw(st.booleans()):
        axis = (*(axis or ()), _bad_axis(draw, ndim))
    elif not valid:
        dtype = draw(st.sampled_from(NUMERIC))
    attrs = ReduceAttrs.from_kwargs(
        {"axis": axis, "keepdims": draw(st.booleans()), "exclude": draw(st.booleans())}
    )
    return Sample((_tensor(shape, dtype),), attrs, valid)


@st.composite
def _scan(draw: st.DrawFn) -> Sample:
    """Data of rank >= 1, an axis in range or none, a dtype or none; broken: rank 0 or an
    out-of-range axis."""
    valid = _valid(draw)
    rank0 = not valid and draw(st.booleans())
    shape = _shape(draw, 0 if rank0 else 1, 0 if rank0 else 4, symbolic=True, any_=True)
    ndim = len(shape)
    axis: int | None = None
    if ndim and draw(st.booleans()):
        axis = _axis_form(draw, draw(st.integers(0, ndim - 1)), ndim)
    if not valid and not rank0:
        axis = _bad_axis(draw, ndim)
    attrs = ScanopAttrs.from_kwargs(
        {
            "axis": axis,
            "dtype": draw(st.sampled_from(["", *DTYPES])),
            "exclusive": draw(st.sampled_from([False, True, None])),
        }
    )
    return Sample((_tensor(shape, draw(st.sampled_from(DTYPES))),), attrs, valid)


SAMPLERS: dict[str, Sampler] = {
    **{name: _reduction(ReduceAttrs, 0) for name in ("sum", "mean", "max", "min", "prod")},
    "argmax": _reduction(ArgReduceAttrs, 1),
    "argmin": _reduction(ArgReduceAttrs, 1),
    "variance": _variance,
    "all": _bool_reduction,
    "any": _bool_reduction,
    "cumsum": _scan,
    "cumprod": _scan,
}
"""This module's entries, by op name."""
