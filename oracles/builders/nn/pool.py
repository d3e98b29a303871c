"""Dataflow-generator builders of the operators of
``relay.semantics.ops.nn.pool`` (well-typed calls by construction).

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

from collections.abc import Sequence

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
from relay.semantics.syntax import Expr, TensorType

from ..core import (
    ALL,
    MAX_DIM,
    NUMERIC,
    Builder,
    Built,
    _dims,
    _Graph,
    _padding,
    _padding_nnconv,
    _window,
)

_POOL_LAYOUTS = ("NCHW", "NHWC", "CHW", "HWC", "HW")


def _spatial(
    g: _Graph, dtypes: Sequence[str], max_area: int | None = None
) -> tuple[tuple[Expr, TensorType], str]:
    """Data for a 2-D pooling: a layout, and data of its rank with non-empty H and W (and
    at most ``max_area`` elements per plane)."""
    layout = g.pick(_POOL_LAYOUTS)
    h, w = layout.index("H"), layout.index("W")

    def fits(t: TensorType) -> bool:
        d = _dims(t)
        return d[h] >= 1 and d[w] >= 1 and (max_area is None or d[h] * d[w] <= max_area)

    rank = len(layout)
    return g.tensor(dtypes, min_rank=rank, max_rank=rank, fits=fits), layout


def _pool2d(attrs_type: type[MaxPool2DAttrs] | type[AvgPool2DAttrs]) -> Builder:
    """A window that fits the padded input; max pooling takes every dtype, average pooling
    every dtype but bool (whose sums are undefined)."""
    average = attrs_type is AvgPool2DAttrs

    def build(g: _Graph) -> Built:
        data, layout = _spatial(g, NUMERIC if average else ALL)
        sizes = dict(zip(layout, _dims(data[1]), strict=True))
        strides = (g.integer(1, 2), g.integer(1, 2))
        dilation = (g.integer(1, 2), g.integer(1, 2))
        padding, pad_h, pad_w = _padding(g, 1)
        pool = (
            _window(g, sizes["H"], pad_h, dilation[0]),
            _window(g, sizes["W"], pad_w, dilation[1]),
        )
        kwargs: dict[str, object] = {
            "pool_size": pool,
            "strides": strides,
            "dilation": dilation,
            "padding": padding,
            "layout": layout,
            "ceil_mode": g.flag(),
        }
        if average:
            # With ceil_mode, a last window may lie wholly in the extension: counting the
            # padding there divides by 0, undefined for integers (NaN for floats).
            include_pad = g.flag()
            kwargs["count_include_pad"] = include_pad and (
                data[1].dtype.startswith("float") or not kwargs["ceil_mode"]
            )
        return (data,), attrs_type.from_kwargs(kwargs)

    return build


def _global_avg_pool2d(g: _Graph) -> Built:
    """Numeric data (bool sums are undefined) whose H * W fits every integer dtype: int8
    must represent the element count."""
    data, layout = _spatial(g, NUMERIC, max_area=127)
    return (data,), GlobalPool2DAttrs.from_kwargs({"layout": layout})


_POOL_LAYOUTS_nnconv = {1: ("NCW", "NWC", "CW", "W"), 3: ("CDHW", "DHW", "DHWC")}


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
        layout = g.pick(_POOL_LAYOUTS_nnconv[nd])
        at = [layout.index(a) for a in space]

        def fits(t: TensorType) -> bool:
            return all(_dims(t)[i] >= 1 for i in at)

        data = g.tensor(
            NUMERIC if average else ALL, min_rank=len(layout), max_rank=len(layout), fits=fits
        )
        sizes = dict(zip(layout, _dims(data[1]), strict=True))
        strides = tuple(g.integer(1, 2) for _ in range(nd))
        dilation = tuple(g.integer(1, 2) for _ in range(nd))
        padding, totals = _padding_nnconv(g, nd, 1)
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
    "nn.max_pool2d": _pool2d(MaxPool2DAttrs),
    "nn.avg_pool2d": _pool2d(AvgPool2DAttrs),
    "nn.global_avg_pool2d": _global_avg_pool2d,
    "nn.max_pool1d": _pool(MaxPool1DAttrs),
    "nn.avg_pool1d": _pool(AvgPool1DAttrs),
    "nn.max_pool3d": _pool(MaxPool3DAttrs),
    "nn.avg_pool3d": _pool(AvgPool3DAttrs),
    "nn.adaptive_avg_pool2d": _adaptive_pool2d(NUMERIC),
    "nn.adaptive_max_pool2d": _adaptive_pool2d(ALL),
    "nn.global_max_pool2d": _global_max_pool2d,
}
"""This module's entries, by op name."""
