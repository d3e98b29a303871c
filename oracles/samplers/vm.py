"""Hypothesis samplers of calls of the operators of ``relay.semantics.ops.vm``.

As in ``samplers``: most samples are well-typed, about one in five is broken in one way
(shape_of without a dtype; reshape_tensor with an int32 or wrong-length shape vector, a
negative extent, or another element count). Shapes shrink towards small, samples towards
valid.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from relay.semantics.ops.shape import ShapeOfAttrs
from relay.semantics.ops.vm import ReshapeTensorAttrs
from relay.semantics.syntax import DTYPES

from .core import Sample, Sampler, _shape, _tensor, _valid


@st.composite
def _shape_of(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(DTYPES)))
    dtype = draw(st.sampled_from(["int64", "int32"])) if valid else ""
    return Sample((data,), ShapeOfAttrs(dtype=dtype), valid)


@st.composite
def _reshape_tensor(draw: st.DrawFn) -> Sample:
    """newshape: data's extents reversed, flattened, or with a 1 added."""
    valid = _valid(draw)
    shape = tuple(draw(st.integers(0, 4)) for _ in range(draw(st.integers(0, 4))))
    form = draw(st.sampled_from(["reverse", "flat", "unit"]))
    newshape: tuple[int, ...] = {
        "reverse": shape[::-1],
        "flat": (math.prod(shape),),
        "unit": (*shape, 1),
    }[form]
    length, dtype = len(newshape), "int64"
    if not valid:
        fault = draw(st.sampled_from(["dtype", "length", "negative", "count"]))
        if fault == "dtype":
            dtype = "int32"
        elif fault == "length":
            length += 1
        elif fault == "negative":
            newshape = (*newshape, -1)
            length += 1
        else:
            newshape, length = (math.prod(shape) + 1,), 1
    data = _tensor(shape, draw(st.sampled_from(DTYPES)))
    return Sample((data, _tensor((length,), dtype)), ReshapeTensorAttrs(newshape=newshape), valid)


SAMPLERS: dict[str, Sampler] = {
    "vm.shape_of": _shape_of,
    "vm.reshape_tensor": _reshape_tensor,
}
"""This module's entries, by op name."""
