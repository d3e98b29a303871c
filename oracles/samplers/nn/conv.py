"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.nn.conv``.

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

import math
import re

from hypothesis import strategies as st

from relay.semantics.ops.nn.conv import (
    Conv1DAttrs,
    Conv1DTransposeAttrs,
    Conv2DAttrs,
    Conv2DTransposeAttrs,
    Conv3DAttrs,
)
from relay.semantics.syntax import ANY, Dim

from ..core import (
    FLOATS,
    N,
    Sample,
    Sampler,
    _conv2d,
    _in_layout,
    _ints,
    _padding,
    _pads,
    _tensor,
    _valid,
)

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


def _packed_shape(sizes: dict[str, Dim], layout: str) -> tuple[Dim, ...]:
    """The shape of a tensor of primal extents ``sizes`` in the packed ``layout``: a split
    axis has extent // factor, its sub-axis the factor (split axes here are integers)."""
    axes = re.findall(r"(\d*)([A-Za-z])", layout)
    factors = {c.upper(): int(f) for f, c in axes if f}
    out: list[Dim] = []
    for f, c in axes:
        if f:
            out.append(int(f))
        elif c in factors:
            extent = sizes[c]
            assert isinstance(extent, int)
            out.append(extent // factors[c])
        else:
            out.append(sizes[c])
    return tuple(out)


@st.composite
def _conv2d_nchwc(draw: st.DrawFn) -> Sample:
    """Packed data (NCHW<ic>c, plain NCHW or NHWC<ic>c), weight (OIHW<ic>i<oc>o, OIHW or
    HWIO<oc>o) and out layouts, channels a multiple of both blocks, windows that fit; one in
    five broken: no channels, groups 2, a weight of the wrong input channels, an out_layout
    factor that does not divide the channels, a window longer than the padded input."""
    valid = _valid(draw)
    ic, oc = draw(st.sampled_from([1, 2, 4])), draw(st.sampled_from([1, 2, 4]))
    c, o = ic * draw(st.integers(1, 2)), math.lcm(ic, oc) * draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    strides = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding, pad_h, pad_w = _padding(draw, 2)
    h = max(0, 1 + (kh - 1) * dilation[0] - pad_h) + draw(st.integers(0, 3))
    w = max(0, 1 + (kw - 1) * dilation[1] - pad_w) + draw(st.integers(0, 3))
    sizes: dict[str, Dim] = {
        "N": draw(st.sampled_from([1, 2, N])),
        "C": c,
        "H": N if draw(st.integers(0, 5)) == 0 else h,
        "W": w,
    }
    weight: dict[str, Dim] = {"O": o, "I": c, "H": kh, "W": kw}
    data_layout = draw(st.sampled_from([f"NCHW{ic}c", "NCHW", f"NHWC{ic}c"]))
    kernel_layout = draw(st.sampled_from([f"OIHW{ic}i{oc}o", "OIHW", f"HWIO{oc}o"]))
    kwargs: dict[str, object] = {
        "strides": strides,
        "padding": padding,
        "dilation": dilation,
        "channels": o,
        "kernel_size": (kh, kw),
        "data_layout": data_layout,
        "kernel_layout": kernel_layout,
        "out_layout": draw(st.sampled_from(["", f"NCHW{oc}c", "NCHW", f"NHWC{oc}c"])),
        "out_dtype": draw(st.sampled_from(["", "float32"])),
    }
    if not valid:
        fault = draw(st.sampled_from(["channels", "groups", "in", "split", "small"]))
        if fault == "channels":
            kwargs["channels"] = None
        elif fault == "groups":
            kwargs["groups"] = 2
        elif fault == "in":
            weight["I"] = c + ic
        elif fault == "split":
            kwargs["out_layout"] = f"NCHW{o + 1}c"
        else:
            kwargs.update(padding=(0,), dilation=(1, 1), strides=(1, 1), kernel_size=(3, kw))
            weight["H"] = 3
            sizes["H"] = draw(st.integers(0, 1))
    dtype = draw(st.sampled_from(FLOATS))
    data = _tensor(_packed_shape(sizes, data_layout), dtype)
    kernel = _tensor(_packed_shape(weight, kernel_layout), dtype)
    return Sample((data, kernel), Conv2DAttrs.from_kwargs(kwargs), valid)


@st.composite
def _conv2d_packed(draw: st.DrawFn) -> Sample:
    """nn.conv2d over VTA-style packed layouts: data NCHW<b>n<c>c (or NCHW<c>c), weight
    OIHW<o>o<i>i, out_layout "" or NCHW<o>c; channels and kernel_size each set or not; one in
    five broken: groups 2, a weight of the wrong input channels, an out_layout factor that does
    not divide the output channels, a window longer than the padded input."""
    valid = _valid(draw)
    ib, ob = draw(st.sampled_from([1, 2, 4])), draw(st.sampled_from([1, 2, 4]))
    c, o = ib * draw(st.integers(1, 2)), ob * draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    strides = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding, pad_h, pad_w = _padding(draw, 2)
    h = max(0, kh - pad_h) + draw(st.integers(0, 3))
    w = max(0, kw - pad_w) + draw(st.integers(0, 3))
    sizes: dict[str, Dim] = {"N": draw(st.sampled_from([1, 2])), "C": c, "H": h, "W": w}
    weight: dict[str, Dim] = {"O": o, "I": c, "H": kh, "W": kw}
    data_layout = draw(st.sampled_from([f"NCHW1n{ib}c", f"NCHW{ib}c"]))
    kwargs: dict[str, object] = {
        "strides": strides,
        "padding": padding,
        "data_layout": data_layout,
        "kernel_layout": f"OIHW{ob}o{ib}i",
        "out_layout": draw(st.sampled_from(["", f"NCHW{ob}c"])),
        "out_dtype": draw(st.sampled_from(["", "float32"])),
    }
    if kwargs["out_layout"] == "" and data_layout.endswith(f"{ib}c") and o % ib:
        kwargs["out_layout"] = f"NCHW{ob}c"
    if draw(st.booleans()):
        kwargs["channels"] = o
    if draw(st.booleans()):
        kwargs["kernel_size"] = (kh, kw)
    if not valid:
        fault = draw(st.sampled_from(["groups", "in", "split", "small"]))
        if fault == "groups":
            kwargs["groups"] = 2
        elif fault == "in":
            weight["I"] = c + ib
        elif fault == "split":
            kwargs["out_layout"] = f"NCHW{o + 1}c"
        else:
            kwargs.update(padding=(0,), strides=(1, 1), kernel_size=(3, kw))
            weight["H"] = 3
            sizes["H"] = draw(st.integers(0, 1))
    dtype = draw(st.sampled_from(FLOATS))
    data = _tensor(_packed_shape(sizes, data_layout), dtype)
    kernel = _tensor(_packed_shape(weight, str(kwargs["kernel_layout"])), dtype)
    return Sample((data, kernel), Conv2DAttrs.from_kwargs(kwargs), valid)


@st.composite
def _conv2d_plain_or_packed(draw: st.DrawFn) -> Sample:
    """nn.conv2d: plain layouts (``core._conv2d``), packed ones one time in five."""
    if draw(st.integers(0, 4)) == 0:
        return draw(_conv2d_packed())
    return draw(_conv2d())


SAMPLERS: dict[str, Sampler] = {
    "nn.conv2d": _conv2d_plain_or_packed,
    "nn.conv1d": _conv(1),
    "nn.conv3d": _conv(3),
    "nn.conv1d_transpose": _conv_transpose(1),
    "nn.conv2d_transpose": _conv_transpose(2),
    "nn.contrib_conv2d_NCHWc": _conv2d_nchwc,
}
"""This module's entries, by op name."""
