"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.nn.pool``.

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

from relay.semantics.ops.nn.pool import (
    AdaptivePool2DAttrs,
    AvgPool1DAttrs,
    AvgPool2DAttrs,
    AvgPool3DAttrs,
    GlobalPool2DAttrs,
    MaxPool1DAttrs,
    MaxPool2DAttrs,
    MaxPool3DAttrs,
)
from relay.semantics.syntax import ANY, Dim

from ..core import (
    FLOATS,
    NUMERIC,
    N,
    Sample,
    Sampler,
    _dim,
    _in_layout,
    _ints,
    _padding,
    _pads,
    _shape,
    _size,
    _tensor,
    _valid,
)


def _pool2d(attrs_type: type[MaxPool2DAttrs] | type[AvgPool2DAttrs]) -> Sampler:
    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        layout = draw(st.sampled_from(["NCHW", "NHWC"]))
        pool = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        strides = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
        dilation = (draw(st.sampled_from([1, 1, 2])), draw(st.sampled_from([1, 1, 2])))
        padding, pad_h, pad_w = _padding(draw, 1)
        h = max(0, 1 + (pool[0] - 1) * dilation[0] - pad_h) + draw(st.integers(0, 3))
        w = max(0, 1 + (pool[1] - 1) * dilation[1] - pad_w) + draw(st.integers(0, 3))
        height: Dim = N if draw(st.integers(0, 4)) == 0 else h
        kwargs: dict[str, object] = {
            "pool_size": pool,
            "strides": strides,
            "dilation": dilation,
            "padding": padding,
            "layout": layout,
            "ceil_mode": draw(st.booleans()),
        }
        if attrs_type is AvgPool2DAttrs:
            kwargs["count_include_pad"] = draw(st.booleans())
        if not valid:
            fault = draw(st.sampled_from(["pad", "pool", "small", "layout"]))
            if fault == "pad":
                kwargs["padding"] = (0, 0, 0)
            elif fault == "pool":
                kwargs["pool_size"] = (pool[0],)
            elif fault == "small":
                kwargs.update(pool_size=(3, 3), strides=(1, 1), dilation=(1, 1), padding=(0,))
                height = 0
            else:
                kwargs["layout"] = "NCDW"
        sizes = {"N": draw(st.integers(1, 2)), "C": _dim(draw, symbolic=True), "H": height, "W": w}
        data = _tensor(_in_layout(sizes, layout), draw(st.sampled_from(FLOATS)))
        return Sample((data,), attrs_type.from_kwargs(kwargs), valid)

    return sample


@st.composite
def _global_avg_pool2d(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    layout = draw(st.sampled_from(["NCHW", "NHWC"]))
    shape = _shape(draw, 4, 4, symbolic=True, any_=True)
    if not valid:
        if draw(st.booleans()):
            shape = shape[:3]
        else:
            layout = "NCDW"
    attrs = GlobalPool2DAttrs.from_kwargs({"layout": layout})
    return Sample((_tensor(shape, draw(st.sampled_from(FLOATS))),), attrs, valid)


_POOL_LAYOUTS = {1: ["NCW", "NWC", "W", "NCW4c"], 3: ["NCDHW", "NDHWC", "DHW"]}


def _pool(
    attrs_type: type[MaxPool1DAttrs]
    | type[AvgPool1DAttrs]
    | type[MaxPool3DAttrs]
    | type[AvgPool3DAttrs],
) -> Sampler:
    nd = 1 if attrs_type in (MaxPool1DAttrs, AvgPool1DAttrs) else 3
    space = "W" if nd == 1 else "DHW"

    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        layout = draw(st.sampled_from(_POOL_LAYOUTS[nd]))
        pool = _ints(draw, nd, 1, 3)
        strides = _ints(draw, nd, 1, 2)
        dilation = tuple(draw(st.sampled_from([1, 1, 2])) for _ in range(nd))
        padding, totals = _pads(draw, nd, 1)
        sizes: dict[str, Dim] = {
            "N": draw(st.integers(1, 2)),
            "C": _dim(draw, symbolic=True),
            "c": 4,
        }
        for i, axis in enumerate(space):
            span = (pool[i] - 1) * dilation[i] + 1
            sizes[axis] = max(0, span - totals[i]) + draw(st.integers(0, 3))
        if draw(st.integers(0, 4)) == 0:
            sizes[space[0]] = draw(st.sampled_from([N, ANY]))
        kwargs: dict[str, object] = {
            "pool_size": pool,
            "strides": strides,
            "dilation": dilation,
            "padding": padding,
            "layout": layout,
            "ceil_mode": draw(st.booleans()),
        }
        if attrs_type in (AvgPool1DAttrs, AvgPool3DAttrs):
            kwargs["count_include_pad"] = draw(st.booleans())
        if not valid:
            fault = draw(st.sampled_from(["pad", "pool", "small", "layout"]))
            if fault == "pad":
                kwargs["padding"] = (0,) * (3 if nd == 1 else 4)
            elif fault == "pool":
                kwargs["pool_size"] = (*pool, 1)
            elif fault == "small":
                kwargs.update(
                    pool_size=(3,) * nd, strides=(1,) * nd, dilation=(1,) * nd, padding=(0,)
                )
                sizes[space[0]] = draw(st.integers(0, 2))
            else:
                kwargs["layout"] = draw(st.sampled_from(["NCH", "NCW2w", "NCWW"]))
        shape = tuple(sizes[a] for a in layout.replace("4c", "c"))
        data = _tensor(shape, draw(st.sampled_from(NUMERIC)))
        return Sample((data,), attrs_type.from_kwargs(kwargs), valid)

    return sample


@st.composite
def _adaptive_pool2d(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    layout = draw(st.sampled_from(["NCHW", "NHWC", "HW", "NCHW4c"]))
    sizes: dict[str, Dim] = {"c": 4}
    for axis in "NCHW":
        sizes[axis] = _dim(draw, symbolic=True, any_=True)
    output_size = tuple(_size(draw) for _ in range(draw(st.integers(0, 2))))
    if not valid:
        fault = draw(st.sampled_from(["length", "negative", "layout", "rank"]))
        if fault == "length":
            output_size = (1, 2, 3)
        elif fault == "negative":
            output_size = (-1,)
        elif fault == "layout":
            layout = "NCH"
        else:
            sizes = {"c": 4, "N": 2, "C": 2, "H": 2, "W": 2}
            layout = "NCHW"
            data = _tensor((2, 2, 2), draw(st.sampled_from(NUMERIC)))
            attrs = AdaptivePool2DAttrs.from_kwargs({"output_size": output_size})
            return Sample((data,), attrs, valid)
    shape = tuple(sizes[a] for a in layout.replace("4c", "c"))
    attrs = AdaptivePool2DAttrs.from_kwargs(
        {
            "output_size": output_size,
            "layout": layout,
            "out_layout": draw(st.sampled_from(["", layout])),
        }
    )
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


@st.composite
def _global_max_pool2d(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    layout = draw(st.sampled_from(["NCHW", "NHWC"]))
    shape = _shape(draw, 4, 4, symbolic=True, any_=True)
    if not valid:
        if draw(st.booleans()):
            shape = shape[:3]
        else:
            layout = "NCDW"
    attrs = GlobalPool2DAttrs.from_kwargs({"layout": layout})
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


SAMPLERS: dict[str, Sampler] = {
    "nn.max_pool2d": _pool2d(MaxPool2DAttrs),
    "nn.avg_pool2d": _pool2d(AvgPool2DAttrs),
    "nn.global_avg_pool2d": _global_avg_pool2d,
    "nn.max_pool1d": _pool(MaxPool1DAttrs),
    "nn.avg_pool1d": _pool(AvgPool1DAttrs),
    "nn.max_pool3d": _pool(MaxPool3DAttrs),
    "nn.avg_pool3d": _pool(AvgPool3DAttrs),
    "nn.adaptive_avg_pool2d": _adaptive_pool2d,
    "nn.adaptive_max_pool2d": _adaptive_pool2d,
    "nn.global_max_pool2d": _global_max_pool2d,
}
"""This module's entries, by op name."""
