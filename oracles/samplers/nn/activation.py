"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.nn.activation``.

From the former ``samplers_nnconv`` module:

Samplers of the ``nnconv`` operator group: calls of the 1-D, 3-D and transposed
convolutions, matmul, batch_matmul, prelu, the 1-D and 3-D pools, the adaptive 2-D pools and
global max pooling.

As in ``samplers``: most calls are built well-typed (the weight from the data's channels and
the groups, windows that fit the padded input), about one in five is broken in one way (a
channel count, a kernel_size, a list of the wrong length, a window too long, a layout, a
rank). Sizes shrink towards 1, attributes towards their defaults, samples towards valid.

From the former ``samplers_nnnorm`` module:

Samplers of the ``nnnorm`` operator group: normalisations, losses, resampling, resize.

Each draws a call that is well-typed four times in five (``_valid``) and otherwise breaks it
in one way (a wrong vector length or dtype, an axis out of range, a bad attribute value or
length). All randomness is drawn from Hypothesis; samples shrink towards small shapes, default
attributes and the valid variant.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.nn.activation import LeakyReluAttrs, PReluAttrs, SoftmaxAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.syntax import Dim

from ..core import (
    FLOATS,
    NUMERIC,
    SIGNED,
    Sample,
    Sampler,
    _axis_form,
    _bad_axis,
    _bad_size,
    _other,
    _shape,
    _tensor,
    _unary,
    _valid,
)


def _leaky_attrs(draw: st.DrawFn) -> Attrs:
    return LeakyReluAttrs.from_kwargs({"alpha": draw(st.sampled_from([0.0, 0.1, 0.25]))})


@st.composite
def _softmax(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1 if valid else 0, symbolic=True, any_=True)
    ndim = len(shape)
    axis = (
        _axis_form(draw, draw(st.integers(0, ndim - 1)), ndim) if valid else _bad_axis(draw, ndim)
    )
    attrs = SoftmaxAttrs.from_kwargs({"axis": axis})
    return Sample((_tensor(shape, draw(st.sampled_from(FLOATS))),), attrs, valid)


@st.composite
def _prelu(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1, 4, symbolic=True, any_=True)
    axis = draw(st.integers(0, len(shape) - 1))
    dtype = draw(st.sampled_from(NUMERIC))
    alpha: list[Dim] = [shape[axis]]
    alpha_dtype = dtype
    if not valid:
        fault = draw(st.sampled_from(["size", "dtype", "axis"]))
        if fault == "size":
            d = shape[axis]
            alpha = [_bad_size(draw, d)] if isinstance(d, int) else [2, 2]
        elif fault == "dtype":
            alpha_dtype = _other(draw, dtype, NUMERIC)
        else:
            axis = draw(st.sampled_from([len(shape), -1]))
    attrs = PReluAttrs.from_kwargs({"axis": axis})
    return Sample((_tensor(shape, dtype), _tensor(alpha, alpha_dtype)), attrs, valid)


@st.composite
def _fast_softmax(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1 if valid else 0, 4, symbolic=True, any_=True)
    ndim = len(shape)
    axis = (
        _axis_form(draw, draw(st.integers(0, ndim - 1)), ndim) if valid else _bad_axis(draw, ndim)
    )
    return Sample(
        (_tensor(shape, draw(st.sampled_from(FLOATS))),),
        SoftmaxAttrs.from_kwargs({"axis": axis}),
        valid,
    )


SAMPLERS: dict[str, Sampler] = {
    "nn.relu": _unary(SIGNED + FLOATS),
    "nn.leaky_relu": _unary(FLOATS, _leaky_attrs),
    "nn.softmax": _softmax,
    "nn.log_softmax": _softmax,
    "nn.prelu": _prelu,
    "nn.fast_softmax": _fast_softmax,
}
"""This module's entries, by op name."""
