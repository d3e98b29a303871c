"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.nn.dense``.

From the former ``samplers_nnconv`` module:

Samplers of the ``nnconv`` operator group: calls of the 1-D, 3-D and transposed
convolutions, matmul, batch_matmul, prelu, the 1-D and 3-D pools, the adaptive 2-D pools and
global max pooling.

As in ``samplers``: most calls are built well-typed (the weight from the data's channels and
the groups, windows that fit the padded input), about one in five is broken in one way (a
channel count, a kernel_size, a list of the wrong length, a window too long, a layout, a
rank). Sizes shrink towards 1, attributes towards their defaults, samples towards valid.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.nn.dense import BatchMatmulAttrs, BiasAddAttrs, MatmulAttrs
from relay.semantics.syntax import Dim

from ..core import (
    NUMERIC,
    Sample,
    Sampler,
    _axis_form,
    _bad_axis,
    _bad_size,
    _dense,
    _dim,
    _other,
    _shape,
    _size,
    _tensor,
    _valid,
)


@st.composite
def _bias_add(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1, symbolic=True, any_=True)
    ndim = len(shape)
    axis = draw(st.integers(0, ndim - 1))
    dtype = draw(st.sampled_from(NUMERIC))
    bias, bias_dtype, attr_axis = [shape[axis]], dtype, _axis_form(draw, axis, ndim)
    if not valid:
        fault = draw(st.sampled_from(["size", "dtype", "axis"]))
        if fault == "size":
            bias = [_bad_size(draw, shape[axis])] if isinstance(shape[axis], int) else [1, 1]
        elif fault == "dtype":
            bias_dtype = _other(draw, dtype, NUMERIC)
        else:
            attr_axis = _bad_axis(draw, ndim)
    types = (_tensor(shape, dtype), _tensor(bias, bias_dtype))
    return Sample(types, BiasAddAttrs.from_kwargs({"axis": attr_axis}), valid)


@st.composite
def _matmul(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    transpose_a, transpose_b = draw(st.booleans()), draw(st.booleans())
    lead = list(_shape(draw, 1 if transpose_a else 0, 2, symbolic=True, any_=True))
    k = _dim(draw, symbolic=True)
    n = _size(draw)
    a = [*lead[:-1], k, lead[-1]] if transpose_a else [*lead, k]
    b: list[Dim] = [n, k] if transpose_b else [k, n]
    units: int | None = n if draw(st.booleans()) else None
    if not valid:
        fault = draw(st.sampled_from(["k", "units", "rank"]))
        if fault == "k":
            kk = draw(st.integers(2, 5))
            a[-2 if transpose_a else -1] = kk
            b[1 if transpose_b else 0] = _bad_size(draw, kk)
        elif fault == "units":
            units = n + 1
        else:
            b = [n]
    dtype = draw(st.sampled_from(NUMERIC))
    attrs = MatmulAttrs.from_kwargs(
        {
            "units": units,
            "out_dtype": draw(st.sampled_from(["", "float32", "int32"])),
            "transpose_a": transpose_a,
            "transpose_b": transpose_b,
        }
    )
    return Sample((_tensor(a, dtype), _tensor(b, dtype)), attrs, valid)


@st.composite
def _batch_matmul(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    transpose_a, transpose_b = draw(st.booleans()), draw(st.booleans())
    batch = _dim(draw, symbolic=True, any_=True)
    xb, yb = draw(st.sampled_from([(batch, batch), (1, batch), (batch, 1)]))
    m, k, n = _dim(draw, symbolic=True), _dim(draw, symbolic=True, any_=True), _size(draw)
    if not valid:
        fault = draw(st.sampled_from(["k", "batch", "rank"]))
        if fault == "k":
            k = draw(st.integers(2, 5))
            x = [xb, k, m] if transpose_a else [xb, m, k]
            ky = _bad_size(draw, k)
            y = [yb, n, ky] if transpose_b else [yb, ky, n]
        elif fault == "batch":
            x = [2, k, m] if transpose_a else [2, m, k]
            y = [3, n, k] if transpose_b else [3, k, n]
        else:
            x, y = [m, k], [k, n]
    if valid:
        x = [xb, k, m] if transpose_a else [xb, m, k]
        y = [yb, n, k] if transpose_b else [yb, k, n]
    dtype = draw(st.sampled_from(NUMERIC))
    attrs = BatchMatmulAttrs.from_kwargs(
        {
            "out_dtype": draw(st.sampled_from(["", "float32"])),
            "transpose_a": transpose_a,
            "transpose_b": transpose_b,
        }
    )
    return Sample((_tensor(x, dtype), _tensor(y, dtype)), attrs, valid)


SAMPLERS: dict[str, Sampler] = {
    "nn.dense": _dense,
    "nn.bias_add": _bias_add,
    "nn.matmul": _matmul,
    "nn.batch_matmul": _batch_matmul,
}
"""This module's entries, by op name."""
