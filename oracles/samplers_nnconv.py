"""Samplers of the ``nnconv`` operator group: calls of the 1-D, 3-D and transposed
convolutions, matmul, batch_matmul, prelu, the 1-D and 3-D pools, the adaptive 2-D pools and
global max pooling.

As in ``samplers``: most calls are built well-typed (the weight from the data's channels and
the groups, windows that fit the padded input), about one in five is broken in one way (a
channel count, a kernel_size, a list of the wrong length, a window too long, a layout, a
rank). Sizes shrink towards 1, attributes towards their defaults, samples towards valid.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.nn.activation import PReluAttrs
from relay.semantics.ops.nn.conv import (
    Conv1DAttrs,
    Conv1DTransposeAttrs,
    Conv2DTransposeAttrs,
    Conv3DAttrs,
)
from relay.semantics.ops.nn.dense import BatchMatmulAttrs, MatmulAttrs
from relay.semantics.ops.nn.pool import (
    AdaptivePool2DAttrs,
    AvgPool1DAttrs,
    AvgPool3DAttrs,
    GlobalPool2DAttrs,
    MaxPool1DAttrs,
    MaxPool3DAttrs,
)
from relay.semantics.syntax import ANY, Dim

from .samplers import (
    FLOATS,
    NUMERIC,
    N,
    Sample,
    Sampler,
    _bad_size,
    _dim,
    _in_layout,
    _other,
    _shape,
    _size,
    _tensor,
    _valid,
)


def _pads(draw: st.DrawFn, nd: int, high: int) -> tuple[tuple[int, ...], list[int]]:
    """Padding of 1, ``nd`` or ``2 * nd`` values, and the total per spatial axis."""
    count = draw(st.sampled_from(sorted({1, nd, 2 * nd})))
    p = tuple(draw(st.integers(0, high)) for _ in range(count))
    if count == 1:
        return p, [2 * p[0]] * nd
    if count == nd:
        return p, [2 * v for v in p]
    return p, [p[i] + p[nd + i] for i in range(nd)]


def _ints(draw: st.DrawFn, nd: int, low: int, high: int) -> tuple[int, ...]:
    return tuple(draw(st.integers(low, high)) for _ in range(nd))


_CONV_LAYOUTS = {
    1: [("NCW", "OIW"), ("NWC", "WIO"), ("NCW", "WOI")],
    3: [("NCDHW", "OIDHW"), ("NDHWC", "DHWIO")],
}


def _conv(nd: int) -> Sampler:
    space = "W" if nd == 1 else "DHW"

    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        data_layout, kernel_layout = draw(st.sampled_from(_CONV_LAYOUTS[nd]))
        groups = draw(st.sampled_from([1, 1, 2, 3]))
        per_group, out_per_group = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        kernel = _ints(draw, nd, 1, 3)
        strides, dilation = _ints(draw, nd, 1, 2), _ints(draw, nd, 1, 2)
        padding, totals = _pads(draw, nd, 1)
        sizes: dict[str, Dim] = {"N": draw(st.sampled_from([1, 2, N])), "C": groups * per_group}
        for i, axis in enumerate(space):
            span = (kernel[i] - 1) * dilation[i] + 1
            sizes[axis] = max(0, span - totals[i]) + draw(st.integers(0, 2))
        if draw(st.integers(0, 5)) == 0:
            sizes[space[-1]] = N
        o = groups * out_per_group
        weight: dict[str, Dim] = {"O": o, "I": per_group, **dict(zip(space, kernel, strict=True))}
        kwargs: dict[str, object] = {
            "strides": strides,
            "padding": padding,
            "dilation": dilation,
            "groups": groups,
            "channels": o if draw(st.booleans()) else None,
            "kernel_size": kernel if draw(st.booleans()) else None,
            "data_layout": data_layout,
            "kernel_layout": kernel_layout,
            "out_dtype": draw(st.sampled_from(["", "float32"])),
        }
        if nd == 3:
            kwargs["out_layout"] = draw(st.sampled_from(["", "NCDHW", "NDHWC"]))
        rank = nd + 2
        if not valid:
            fault = draw(st.sampled_from(["in", "kernel", "channels", "pad", "small", "rank"]))
            if fault == "in":
                weight["I"] = per_group + 1
            elif fault == "kernel":
                kwargs["kernel_size"] = (kernel[0] + 1, *kernel[1:])
            elif fault == "channels":
                kwargs["channels"] = o + groups
            elif fault == "pad":
                kwargs["padding"] = (0,) * (nd + 1 if nd > 1 else 3)
            elif fault == "small":
                kwargs.update(padding=(0,), dilation=(1,) * nd, strides=(1,) * nd)
                weight[space[0]] = 3
                sizes[space[0]] = draw(st.integers(0, 1))
            else:
                rank -= 1
        dtype = draw(st.sampled_from(FLOATS))
        data = _tensor(_in_layout(sizes, data_layout)[:rank], dtype)
        attrs_type = Conv1DAttrs if nd == 1 else Conv3DAttrs
        w = _tensor(_in_layout(weight, kernel_layout), dtype)
        return Sample((data, w), attrs_type.from_kwargs(kwargs), valid)

    return sample


_TRANSPOSE_LAYOUTS = {
    1: [("NCW", "IOW"), ("NWC", "WOI"), ("NCW", "OIW")],
    2: [("NCHW", "IOHW"), ("NHWC", "HWOI"), ("NCHW", "OIHW")],
}


def _conv_transpose(nd: int) -> Sampler:
    space = "W" if nd == 1 else "HW"

    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        data_layout, kernel_layout = draw(st.sampled_from(_TRANSPOSE_LAYOUTS[nd]))
        groups = draw(st.sampled_from([1, 1, 2]))
        c = groups * draw(st.integers(1, 2))
        o = draw(st.integers(1, 2))  # per group
        kernel = _ints(draw, nd, 1, 3)
        strides, dilation = _ints(draw, nd, 1, 3), _ints(draw, nd, 1, 2)
        opad = tuple(draw(st.integers(0, s - 1)) for s in strides)
        padding, _ = _pads(draw, nd, 1)
        sizes: dict[str, Dim] = {"N": draw(st.sampled_from([1, N])), "C": c}
        for axis in space:
            sizes[axis] = draw(st.sampled_from([1, 2, 3, 4, N, ANY]))
        weight: dict[str, Dim] = {"I": c, "O": o, **dict(zip(space, kernel, strict=True))}
        kwargs: dict[str, object] = {
            "channels": groups * o if draw(st.booleans()) else None,
            "kernel_size": kernel if draw(st.booleans()) else None,
            "strides": strides,
            "output_padding": opad,
            "padding": padding,
            "dilation": dilation,
            "groups": groups,
            "data_layout": data_layout,
            "kernel_layout": kernel_layout,
            "out_layout": draw(st.sampled_from(["", data_layout])),
            "out_dtype": draw(st.sampled_from(["", "float32"])),
        }
        if not valid:
            fault = draw(st.sampled_from(["in", "channels", "opad", "crop", "strides"]))
            if fault == "in":
                weight["I"] = c + 1
            elif fault == "channels":
                kwargs["channels"] = groups * o + groups
            elif fault == "opad":
                kwargs["output_padding"] = tuple(strides)
            elif fault == "crop":
                kwargs.update(padding=(9,), strides=(1,) * nd, output_padding=(0,) * nd)
                sizes[space[0]] = 1
            else:
                kwargs["strides"] = (1,) * (nd + 1)
        dtype = draw(st.sampled_from(FLOATS))
        attrs_type = Conv1DTransposeAttrs if nd == 1 else Conv2DTransposeAttrs
        data = _tensor(_in_layout(sizes, data_layout), dtype)
        w = _tensor(_in_layout(weight, kernel_layout), dtype)
        return Sample((data, w), attrs_type.from_kwargs(kwargs), valid)

    return sample


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
    "nn.conv1d": _conv(1),
    "nn.conv3d": _conv(3),
    "nn.conv1d_transpose": _conv_transpose(1),
    "nn.conv2d_transpose": _conv_transpose(2),
    "nn.matmul": _matmul,
    "nn.batch_matmul": _batch_matmul,
    "nn.prelu": _prelu,
    "nn.max_pool1d": _pool(MaxPool1DAttrs),
    "nn.avg_pool1d": _pool(AvgPool1DAttrs),
    "nn.max_pool3d": _pool(MaxPool3DAttrs),
    "nn.avg_pool3d": _pool(AvgPool3DAttrs),
    "nn.adaptive_avg_pool2d": _adaptive_pool2d,
    "nn.adaptive_max_pool2d": _adaptive_pool2d,
    "nn.global_max_pool2d": _global_max_pool2d,
}
"""The samplers of this group's operators, by name (merged into ``samplers.SAMPLERS``)."""
