"""Dataflow-generator builders of the ``nnconv`` operator group.

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

from collections.abc import Sequence

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
from relay.semantics.syntax import TensorType

from .gen_dataflow import (
    ALL,
    MAX_DIM,
    NUMERIC,
    Builder,
    Built,
    _accumulators,
    _dims,
    _divisors,
    _Graph,
    _spatial,
    _window,
)


def _padding(g: _Graph, nd: int, high: int) -> tuple[tuple[int, ...], list[int]]:
    """Padding of 1, ``nd`` or ``2 * nd`` values (shrinks to 1 value of 0), and the total per
    spatial axis."""
    count = g.pick(sorted({1, nd, 2 * nd}))
    p = tuple(g.integer(0, high) for _ in range(count))
    if count == 1:
        return p, [2 * p[0]] * nd
    if count == nd:
        return p, [2 * v for v in p]
    return p, [p[i] + p[nd + i] for i in range(nd)]


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
        padding, totals = _padding(g, nd, 1)
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


def _matmul(g: _Graph) -> Built:
    """a of rank >= 1 (>= 2 when transposed); b (k, n) or (n, k) of the same dtype; units
    given or not."""
    transpose_a, transpose_b = g.flag(), g.flag()
    a = g.tensor(NUMERIC, min_rank=2 if transpose_a else 1)
    dtype = a[1].dtype
    k = _dims(a[1])[-2 if transpose_a else -1]
    kpos = 1 if transpose_b else 0

    def fresh() -> TensorType:
        n = g.dim()
        return TensorType((n, k) if transpose_b else (k, n), dtype)

    b = g.tensor((dtype,), min_rank=2, max_rank=2, fits=lambda t: _dims(t)[kpos] == k, fresh=fresh)
    n = _dims(b[1])[1 - kpos]
    attrs = MatmulAttrs.from_kwargs(
        {
            "units": n if g.flag() else None,
            "out_dtype": g.dtype(_accumulators(dtype)) if g.flag() else "",
            "transpose_a": transpose_a,
            "transpose_b": transpose_b,
        }
    )
    return (a, b), attrs


def _batch_matmul(g: _Graph) -> Built:
    """Rank-3 a; b of a's dtype whose batch is a's or 1 (any when a's is 1) and whose
    reduction size is a's."""
    transpose_a, transpose_b = g.flag(), g.flag()
    a = g.tensor(NUMERIC, min_rank=3, max_rank=3)
    dtype = a[1].dtype
    shape = _dims(a[1])
    batch, k = shape[0], shape[1 if transpose_a else 2]
    kpos = 2 if transpose_b else 1

    def fits(t: TensorType) -> bool:
        d = _dims(t)
        return d[kpos] == k and (d[0] in (batch, 1) or batch == 1)

    def fresh() -> TensorType:
        b = g.pick([batch, 1])
        n = g.dim()
        return TensorType((b, n, k) if transpose_b else (b, k, n), dtype)

    b = g.tensor((dtype,), min_rank=3, max_rank=3, fits=fits, fresh=fresh)
    attrs = BatchMatmulAttrs.from_kwargs(
        {
            "out_dtype": g.dtype(_accumulators(dtype)) if g.flag() else "",
            "transpose_a": transpose_a,
            "transpose_b": transpose_b,
        }
    )
    return (a, b), attrs


def _prelu(g: _Graph) -> Built:
    """Data of rank >= 1 and any dtype; alpha (data[axis],) of its dtype."""
    data = g.tensor(ALL, min_rank=1)
    shape = _dims(data[1])
    axis = g.integer(0, len(shape) - 1)
    alpha = g.exactly(TensorType((shape[axis],), data[1].dtype))
    return (data, alpha), PReluAttrs.from_kwargs({"axis": axis})


_POOL_LAYOUTS = {1: ("NCW", "NWC", "CW", "W"), 3: ("CDHW", "DHW", "DHWC")}


def _pool(
    attrs_type: type[MaxPool1DAttrs]
    | type[AvgPool1DAttrs]
    | type[MaxPool3DAttrs]
    | type[AvgPool3DAttrs],
) -> Builder:
    """Data with non-empty pooled axes in a layout of rank <= 4; a window that fits the padded
    input; max pooling over every dtype, average pooling over every dtype but bool, never
    dividing an integer sum by the empty count of a window in the ceil_mode extension."""
    nd = 1 if attrs_type in (MaxPool1DAttrs, AvgPool1DAttrs) else 3
    space = "W" if nd == 1 else "DHW"
    average = attrs_type in (AvgPool1DAttrs, AvgPool3DAttrs)

    def build(g: _Graph) -> Built:
        layout = g.pick(_POOL_LAYOUTS[nd])
        at = [layout.index(a) for a in space]

        def fits(t: TensorType) -> bool:
            return all(_dims(t)[i] >= 1 for i in at)

        data = g.tensor(
            NUMERIC if average else ALL, min_rank=len(layout), max_rank=len(layout), fits=fits
        )
        sizes = dict(zip(layout, _dims(data[1]), strict=True))
        strides = tuple(g.integer(1, 2) for _ in range(nd))
        dilation = tuple(g.integer(1, 2) for _ in range(nd))
        padding, totals = _padding(g, nd, 1)
        pool = tuple(
            _window(g, sizes[axis], totals[i], dilation[i]) for i, axis in enumerate(space)
        )
        kwargs: dict[str, object] = {
            "pool_size": pool,
            "strides": strides,
            "dilation": dilation,
            "padding": padding,
            "layout": layout,
            "out_layout": g.pick(["", layout]),
            "ceil_mode": g.flag(),
        }
        if average:
            include_pad = g.flag()
            kwargs["count_include_pad"] = include_pad and (
                data[1].dtype.startswith("float") or not kwargs["ceil_mode"]
            )
        return (data,), attrs_type.from_kwargs(kwargs)

    return build


def _adaptive_pool2d(dtypes: Sequence[str]) -> Builder:
    """Data with non-empty H and W (at most 127 elements a plane, so that every cell count
    fits int8); output_size (), (s,) or (h, w), each 1 to 6."""

    def build(g: _Graph) -> Built:
        data, layout = _spatial(g, dtypes, max_area=127)
        form = g.integer(0, 2)
        size = tuple(g.integer(1, MAX_DIM) for _ in range(form))
        attrs = AdaptivePool2DAttrs.from_kwargs(
            {"output_size": size, "layout": layout, "out_layout": g.pick(["", layout])}
        )
        return (data,), attrs

    return build


def _global_max_pool2d(g: _Graph) -> Built:
    """Data of any dtype with non-empty H and W."""
    data, layout = _spatial(g, ALL)
    return (data,), GlobalPool2DAttrs.from_kwargs({"layout": layout})


BUILDERS: dict[str, Builder] = {
    "nn.conv1d": _conv(1),
    "nn.conv1d_transpose": _conv_transpose(1),
    "nn.conv2d_transpose": _conv_transpose(2),
    "nn.matmul": _matmul,
    "nn.batch_matmul": _batch_matmul,
    "nn.prelu": _prelu,
    "nn.max_pool1d": _pool(MaxPool1DAttrs),
    "nn.avg_pool1d": _pool(AvgPool1DAttrs),
    "nn.max_pool3d": _pool(MaxPool3DAttrs),
    "nn.avg_pool3d": _pool(AvgPool3DAttrs),
    "nn.adaptive_avg_pool2d": _adaptive_pool2d(NUMERIC),
    "nn.adaptive_max_pool2d": _adaptive_pool2d(ALL),
    "nn.global_max_pool2d": _global_max_pool2d,
    # Rank 5: its data and weight are always fresh, its result only a sink (MAX_RESULT_RANK).
    "nn.conv3d": _conv(3),
}
"""How to build a call of each of this group's operators (merged into ``gen_dataflow.BUILDERS``)."""
