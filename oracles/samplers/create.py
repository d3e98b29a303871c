"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.create``.

From the former ``samplers_indexing`` module:

Samplers of the ``indexing`` operator group.

Each sampler draws a call that is valid four times in five, else broken in one way (a wrong
dtype, rank, extent or attribute). Symbolic ``n`` and ``?`` appear where relations must
handle them. All randomness comes from Hypothesis, shrinking to small valid calls.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.create import ArangeAttrs, InitOpAttrs
from relay.semantics.syntax import DTYPES

from .core import NUMERIC, Sample, Sampler, _shape, _size, _tensor, _unary, _valid


@st.composite
def _full_like(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(NUMERIC)))
    fill = _tensor(() if valid else (draw(st.integers(1, 3)),), draw(st.sampled_from(NUMERIC)))
    return Sample((data, fill), None, valid)


def _init_shape(draw: st.DrawFn, valid: bool) -> tuple[int, ...] | None:
    shape = tuple(_size(draw) for _ in range(draw(st.integers(0, 4))))
    if valid:
        return shape
    return None if draw(st.booleans()) else (*shape, -1)


@st.composite
def _zeros_or_ones(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    no_dtype = not valid and draw(st.booleans())
    shape = _init_shape(draw, valid or no_dtype)
    dtype = "" if no_dtype else draw(st.sampled_from(DTYPES))
    return Sample((), InitOpAttrs.from_kwargs({"shape": shape, "dtype": dtype}), valid)


@st.composite
def _full(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    fault = "" if valid else draw(st.sampled_from(["shape", "fill"]))
    shape = _init_shape(draw, fault != "shape")
    fill = _tensor(
        (draw(st.integers(1, 3)),) if fault == "fill" else (), draw(st.sampled_from(DTYPES))
    )
    attrs = InitOpAttrs.from_kwargs({"shape": shape, "dtype": draw(st.sampled_from(["", *DTYPES]))})
    return Sample((fill,), attrs, valid)


@st.composite
def _arange(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    dtype = draw(st.sampled_from(NUMERIC))
    types = [_tensor((), dtype) for _ in range(3)]
    if not valid:
        i = draw(st.integers(0, 2))
        types[i] = _tensor((1,), dtype) if draw(st.booleans()) else _tensor((), "bool")
    return Sample(tuple(types), ArangeAttrs.from_kwargs({"dtype": dtype}), valid)


SAMPLERS: dict[str, Sampler] = {
    "zeros_like": _unary(DTYPES),
    "ones_like": _unary(DTYPES),
    "full_like": _full_like,
    "zeros": _zeros_or_ones,
    "ones": _zeros_or_ones,
    "full": _full,
    "arange": _arange,
}
"""This module's entries, by op name."""
