"""Dataflow-generator builders of the operators of
``relay.semantics.ops.nn.conv`` (well-typed calls by construction).

From the former ``builders_nnconv`` module:

Dataflow-generator builders of the ``nnconv`` operator group.

Each builds a well-typed call whose meaning is defined for the generator's default arguments
(``gen_args``: small non-zero values): convolutions take non-empty data, a weight derived from
its channels and groups, windows that fit the padded input and accumulators that hold the
data's values (``gen_dataflow._accumulators``); transposed convolutions crop no more than the
kernel adds, so every output extent is at least 1; average pools never divide by an empty
integer count and adaptive average pools keep cell counts representable in int8; results have
rank 4 or less.

``nn.conv3d``'s data, weight and result have rank 5, beyond the generator's ``MAX_RANK``: its
inputs are always fresh and its result is only a sink (``MAX_RESULT_RANK``).
"""

from __future__ import annotations

import math

from relay.semantics.ops.nn.conv import (
    Conv1DAttrs,
    Conv1DTransposeAttrs,
    Conv2DAttrs,
    Conv2DTransposeAttrs,
    Conv3DAttrs,
)
from relay.semantics.syntax import TensorType

from ..core import _CONV_LAYOUTS as _CONV_LAYOUTS_core
from ..core import (
    _CONV_OUT_LAYOUTS,
    MAX_DIM,
    NUMERIC,
    Builder,
    Built,
    _accumulators,
    _dims,
    _divisors,
    _Graph,
    _padding,
    _padding_nnconv,
    _window,
)


def _conv2d(g: _Graph) -> Built:
    """Data in a layout with non-empty N, C, H, W; then plain, grouped (groups dividing C) or
    depthwise (groups = C, perhaps with a channel multiplier); strides, dilation, padding; a
    kernel that fits the padded input; the weight's type follows from all of these."""
    data_layout, kernel_layout = g.pick(_CONV_LAYOUTS_core)
    data = g.tensor(NUMERIC, min_rank=4, max_rank=4, fits=lambda t: all(d >= 1 for d in _dims(t)))
    sizes = dict(zip(data_layout, _dims(data[1]), strict=True))
    c = sizes["C"]
    kind = g.integer(0, 2) if c > 1 else 0 * g.integer(0, 2)  # drawn always: see ``integer``
    groups = 1 if kind == 0 else c if kind == 2 else g.pick([d for d in _divisors(c) if d > 1])
    strides = (g.integer(1, 2), g.integer(1, 2))
    dilation = (g.integer(1, 2), g.integer(1, 2))
    padding, pad_h, pad_w = _padding(g, 2)
    kh = _window(g, sizes["H"], pad_h, dilation[0])
    kw = _window(g, sizes["W"], pad_w, dilation[1])
    if kind == 2:
        # Depthwise: TVM's weight (C, multiplier, kh, kw), read so given channels and
        # kernel_size.
        multiplier = g.integer(1, 3)
        weight = {"O": c, "I": multiplier, "H": kh, "W": kw}
        channels: int | None = c * multiplier
        kernel_size: tuple[int, int] | None = (kh, kw)
    else:
        out = groups * g.integer(1, 2)
        weight = {"O": out, "I": c // groups, "H": kh, "W": kw}
        channels = out if g.flag() else None
        kernel_size = (kh, kw) if g.flag() else None
    w = g.exactly(TensorType(tuple(weight[a] for a in kernel_layout), data[1].dtype))
    attrs = Conv2DAttrs.from_kwargs(
        {
            "strides": strides,
            "padding": padding,
            "dilation": dilation,
            "groups": groups,
            "channels": channels,
            "kernel_size": kernel_size,
            "data_layout": data_layout,
            "kernel_layout": kernel_layout,
            "out_layout": g.pick(_CONV_OUT_LAYOUTS),
            "out_dtype": g.dtype(_accumulators(data[1].dtype)) if g.flag() else "",
        }
    )
    return (data, w), attrs


def _groups(g: _Graph, c: int) -> int:
    """1 (shrinks there) or a divisor of ``c`` above 1 (``c`` itself: depthwise)."""
    options = [1, *(d for d in _divisors(c) if d > 1)]
    return g.pick(options)


_CONV_LAYOUTS = {
    1: (("NCW", "OIW"), ("NWC", "WIO"), ("NCW", "WOI")),
    3: (("NCDHW", "OIDHW"), ("NDHWC", "DHWIO")),
}


def _conv(nd: int) -> Builder:
    """Non-empty data in a layout; groups dividing C; strides, dilation, padding; a kernel
    that fits the padded input; the weight's type follows."""
    space = "W" if nd == 1 else "DHW"
    attrs_type = Conv1DAttrs if nd == 1 else Conv3DAttrs

    def build(g: _Graph) -> Built:
        data_layout, kernel_layout = g.pick(_CONV_LAYOUTS[nd])
        rank = nd + 2

        def fresh() -> TensorType:
            dims = tuple(g.integer(1, 3 if nd == 3 else MAX_DIM) for _ in range(rank))
            return TensorType(dims, g.dtype(NUMERIC))

        data = g.tensor(
            NUMERIC,
            min_rank=rank,
            max_rank=rank,
            fits=lambda t: all(d >= 1 for d in _dims(t)),
            fresh=fresh,
        )
        sizes = dict(zip(data_layout, _dims(data[1]), strict=True))
        groups = _groups(g, sizes["C"])
        strides = tuple(g.integer(1, 2) for _ in range(nd))
        dilation = tuple(g.integer(1, 2) for _ in range(nd))
        padding, totals = _padding_nnconv(g, nd, 1)
        kernel = tuple(
            _window(g, sizes[axis], totals[i], dilation[i]) for i, axis in enumerate(space)
        )
        out = groups * g.integer(1, 2)
        weight = {"O": out, "I": sizes["C"] // groups, **dict(zip(space, kernel, strict=True))}
        w = g.exactly(TensorType(tuple(weight[a] for a in kernel_layout), data[1].dtype))
        kwargs: dict[str, object] = {
            "strides": strides,
            "padding": padding,
            "dilation": dilation,
            "groups": groups,
            "channels": out if g.flag() else None,
            "kernel_size": kernel if g.flag() else None,
            "data_layout": data_layout,
            "kernel_layout": kernel_layout,
            "out_dtype": g.dtype(_accumulators(data[1].dtype)) if g.flag() else "",
        }
        if nd == 3:
            kwargs["out_layout"] = g.pick(["", "NCDHW", "NDHWC"])
        return (data, w), attrs_type.from_kwargs(kwargs)

    return build


_TRANSPOSE_LAYOUTS = {
    1: (("NCW", "IOW"), ("NWC", "WOI"), ("NCW", "OIW")),
    2: (("NCHW", "IOHW"), ("NHWC", "HWOI"), ("NCHW", "OIHW")),
}


def _conv_transpose(nd: int) -> Builder:
    """Non-empty data; groups dividing C; a kernel of 1 to 3; strides, output_padding below
    them, dilation; padding at most what the dilated kernel adds, so extents are >= 1."""
    space = "W" if nd == 1 else "HW"
    attrs_type = Conv1DTransposeAttrs if nd == 1 else Conv2DTransposeAttrs

    def build(g: _Graph) -> Built:
        data_layout, kernel_layout = g.pick(_TRANSPOSE_LAYOUTS[nd])
        rank = nd + 2
        data = g.tensor(
            NUMERIC,
            min_rank=rank,
            max_rank=rank,
            fits=lambda t: all(d >= 1 for d in _dims(t)),
            fresh=lambda: TensorType(tuple(g.integer(1, 4) for _ in range(rank)), g.dtype(NUMERIC)),
        )
        sizes = dict(zip(data_layout, _dims(data[1]), strict=True))
        groups = _groups(g, sizes["C"])
        strides = tuple(g.integer(1, 2) for _ in range(nd))
        output_padding = tuple(g.integer(0, s - 1) for s in strides)
        dilation = tuple(g.integer(1, 2) for _ in range(nd))
        kernel = tuple(g.integer(1, 3) for _ in range(nd))
        # Padding of one value per axis (each end), at most half of what the kernel adds.
        padding = tuple(
            g.integer(0, (k - 1) * d // 2) for k, d in zip(kernel, dilation, strict=True)
        )
        per_group = g.integer(1, 2)
        weight = {"I": sizes["C"], "O": per_group, **dict(zip(space, kernel, strict=True))}
        w = g.exactly(TensorType(tuple(weight[a] for a in kernel_layout), data[1].dtype))
        attrs = attrs_type.from_kwargs(
            {
                "channels": groups * per_group if g.flag() else None,
                "kernel_size": kernel if g.flag() else None,
                "strides": strides,
                "output_padding": output_padding,
                "padding": padding,
                "dilation": dilation,
                "groups": groups,
                "data_layout": data_layout,
                "kernel_layout": kernel_layout,
                "out_layout": g.pick(["", data_layout]),
                "out_dtype": g.dtype(_accumulators(data[1].dtype)) if g.flag() else "",
            }
        )
        return (data, w), attrs

    return build


def _conv2d_nchwc(g: _Graph) -> Built:
    """Data plain NCHW (a pool value) or packed NCHW<ic>c (fresh, rank 5); a kernel in
    OIHW or OIHW<ki>i<oc>o (ki dividing C, fresh, rank 6) and out_layout "", NCHW or
    NCHW<oc>c, with O a multiple of both ic and oc so every layout divides it; channels and
    kernel_size set (the op needs them); strides, dilation, padding and a window that fits, as
    nn.conv2d."""
    packed, ic = g.flag(), g.pick([1, 2, 4])  # both drawn always: see ``integer``
    if packed:
        data_layout = f"NCHW{ic}c"

        def fresh() -> TensorType:
            dims = (g.integer(1, 2), g.integer(1, 2), g.integer(1, MAX_DIM), g.integer(1, MAX_DIM))
            return TensorType((*dims, ic), g.dtype(NUMERIC))

        data = g.tensor(
            NUMERIC,
            min_rank=5,
            max_rank=5,
            fits=lambda t: _dims(t)[4] == ic and all(d >= 1 for d in _dims(t)),
            fresh=fresh,
        )
        _, outer, h, w, _ = _dims(data[1])
        c = outer * ic
    else:
        data_layout = "NCHW"
        data = g.tensor(
            NUMERIC, min_rank=4, max_rank=4, fits=lambda t: all(d >= 1 for d in _dims(t))
        )
        _, c, h, w = _dims(data[1])
    oc = g.pick([1, 2, 4])
    o = math.lcm(ic if packed else 1, oc) * g.integer(1, 2)
    strides = (g.integer(1, 2), g.integer(1, 2))
    dilation = (g.integer(1, 2), g.integer(1, 2))
    padding, pad_h, pad_w = _padding(g, 2)
    kh = _window(g, h, pad_h, dilation[0])
    kw = _window(g, w, pad_w, dilation[1])
    ki = g.pick(_divisors(c))
    if g.flag():
        kernel_layout = f"OIHW{ki}i{oc}o"
        kernel: tuple[int, ...] = (o // oc, c // ki, kh, kw, ki, oc)
    else:
        kernel_layout = "OIHW"
        kernel = (o, c, kh, kw)
    weight = g.exactly(TensorType(kernel, data[1].dtype))
    attrs = Conv2DAttrs.from_kwargs(
        {
            "strides": strides,
            "padding": padding,
            "dilation": dilation,
            "channels": o,
            "kernel_size": (kh, kw),
            "data_layout": data_layout,
            "kernel_layout": kernel_layout,
            "out_layout": g.pick(["", "NCHW", f"NCHW{oc}c"]),
            "out_dtype": g.dtype(_accumulators(data[1].dtype)) if g.flag() else "",
        }
    )
    return (data, weight), attrs


BUILDERS: dict[str, Builder] = {
    "nn.conv2d": _conv2d,
    "nn.conv1d": _conv(1),
    "nn.conv1d_transpose": _conv_transpose(1),
    "nn.conv2d_transpose": _conv_transpose(2),
    # Rank 5: its data and weight are always fresh, its result only a sink (MAX_RESULT_RANK).
    "nn.conv3d": _conv(3),
    # Packed data (rank 5) and kernel (rank 6) are fresh; a packed result only a sink.
    "nn.contrib_conv2d_NCHWc": _conv2d_nchwc,
}
"""This module's entries, by op name."""
