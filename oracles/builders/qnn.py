"""Dataflow-generator builders of the operators of
``relay.semantics.ops.qnn`` (well-typed calls by construction).

From the former ``builders_dynq`` module:

Dataflow-generator builders of the ``dynq`` group: dynamic and quantized operators.

A dynamic operator's shape argument (``newshape``, ``shape``, ``begin``/``end``/``strides``)
is a constant built here from the other inputs' static shapes, so that the call is defined:
a reshape keeps the element count, a broadcast target fits the data, a slice stays inside
its axes. Its ``?`` result is only ever a sink of the program (the pool offers no value of
unknown shape as an input). Quantization parameters are parameters or pool values of the
right type (quantize and dequantize are defined for every scale); ``fixed_point_multiply``
uses a Q31 multiplier in ``[2**30, 2**31)`` and a shift in ``[-8, 0]``, whose int64
arithmetic cannot overflow for any int32 input. The requantizing ops (qnn.requantize,
qnn.add, qnn.mul, qnn.concatenate) get constant scales from a small set in ``[0.1, 2]`` and
zero points in ``[-3, 3]`` (TVM needs them constant) and 8- or 16-bit data, so that no int32
step overflows; qnn.dense and qnn.conv2d accumulate in int32 or int64, which small 8- and
16-bit operands cannot overflow. dyn.topk sorts integer data (NaN has no order).
"""

from __future__ import annotations

from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import DenseAttrs
from relay.semantics.ops.qnn import (
    BroadcastAttrs,
    DequantizeAttrs,
    FixedPointMultiplyAttrs,
    QuantizeAttrs,
    RequantizeAttrs,
)
from relay.semantics.ops.shape import ConcatenateAttrs
from relay.semantics.syntax import TensorType

from .core import (
    _CONV_LAYOUTS,
    _CONV_OUT_LAYOUTS,
    Arg,
    Builder,
    Built,
    Input,
    _constant_dynq,
    _dims,
    _divisors,
    _Graph,
    _padding,
    _window,
)

_QUANTIZED = ("int8", "uint8", "int16", "uint16", "int32")


def _qparams(g: _Graph, data: TensorType) -> tuple[tuple[Arg, Arg], int]:
    """A float32 scale and an int32 zero point, each scalar or per channel; the axis."""
    shape = _dims(data)
    axis = g.integer(0, len(shape) - 1) if shape else 0
    args = []
    for dtype in ("float32", "int32"):
        per_channel = bool(shape) and g.flag()
        param_shape = (shape[axis],) if per_channel else ()
        args.append(g.exactly(TensorType(param_shape, dtype)))
    return (args[0], args[1]), g.axis(axis, len(shape)) if shape else -1


def _quantize(g: _Graph) -> Built:
    data = g.tensor(("float32",))
    (scale, zero_point), axis = _qparams(g, data[1])
    attrs = QuantizeAttrs.from_kwargs({"out_dtype": g.pick(_QUANTIZED), "axis": axis})
    return (data, scale, zero_point), attrs


def _dequantize(g: _Graph) -> Built:
    data = g.tensor(_QUANTIZED)
    (scale, zero_point), axis = _qparams(g, data[1])
    attrs = DequantizeAttrs.from_kwargs({"out_dtype": g.pick(("float32", "float16")), "axis": axis})
    return (data, scale, zero_point), attrs


def _fixed_point_multiply(g: _Graph) -> Built:
    data = g.tensor(("int32",))
    multiplier = g.pick([1 << 30, 1518500250, (1 << 31) - 1, 1 << 30 | 12345])
    attrs = FixedPointMultiplyAttrs.from_kwargs(
        {"multiplier": multiplier, "shift": -g.integer(0, 8)}
    )
    return (data,), attrs


_SCALES = (0.5, 0.25, 0.75, 1.5, 2.0, 0.1, 1.0)


_NARROW = ("int8", "uint8", "int16")


def _scale(g: _Graph, channels: int | None = None) -> Input:
    if channels is None:
        return _constant_dynq(g, g.pick(_SCALES), "float32")
    return _constant_dynq(g, [g.pick(_SCALES) for _ in range(channels)], "float32")


def _zero_point(g: _Graph, channels: int | None = None) -> Input:
    if channels is None:
        return _constant_dynq(g, g.integer(-3, 3), "int32")
    return _constant_dynq(g, [g.integer(-3, 3) for _ in range(channels)], "int32")


def _requantize(g: _Graph) -> Built:
    """8- or 16-bit data; input parameters per tensor or per channel of an axis; every
    rounding, compute dtype and output dtype."""
    data = g.tensor(_NARROW)
    shape = _dims(data[1])
    axis = g.integer(0, len(shape) - 1) if shape else 0
    channels = shape[axis] if shape and g.flag() else None
    args = (data, _scale(g, channels), _zero_point(g, channels), _scale(g), _zero_point(g))
    attrs = RequantizeAttrs.from_kwargs(
        {
            "axis": g.axis(axis, len(shape)) if shape else -1,
            "rounding": g.pick(["None", "UPWARD", "TONEAREST"]),
            "compute_dtype": g.pick(["None", "int64", "float32", "float64"]),
            "out_dtype": g.pick(["int8", "uint8", "int16", "int32"]),
        }
    )
    return args, attrs


def _quantized_params(g: _Graph, channels: int) -> tuple[Arg, Arg, Arg, Arg]:
    """input zero point, kernel zero point, input scale, kernel scale (kernel ones per output
    channel sometimes)."""
    per_channel = channels if g.flag() else None
    return (_zero_point(g), _zero_point(g, per_channel), _scale(g), _scale(g, per_channel))


def _qnn_dense(g: _Graph) -> Built:
    """8- or 16-bit data (.., k); an 8-bit weight (units, k); int32 or int64 output."""
    data = g.tensor(("int8", "uint8", "int16", "uint16"), min_rank=1)
    k = _dims(data[1])[-1]
    weight = g.tensor(
        ("int8", "uint8"),
        min_rank=2,
        max_rank=2,
        fits=lambda t: _dims(t)[1] == k,
        fresh=lambda: TensorType((g.dim(), k), g.pick(("int8", "uint8"))),
    )
    units = _dims(weight[1])[0]
    attrs = DenseAttrs.from_kwargs(
        {"units": units if g.flag() else None, "out_dtype": g.pick(["int32", "int64"])}
    )
    return (data, weight, *_quantized_params(g, units)), attrs


def _qnn_conv2d(g: _Graph) -> Built:
    """As ``nn.conv2d``'s builder, on 8-bit (or int16) data and weight in the layouts
    qnn.conv2d lowers: plain, grouped or depthwise (perhaps with a multiplier); int32 or
    int64 output; kernel parameters per output channel sometimes."""
    data_layout, kernel_layout = g.pick(_CONV_LAYOUTS)
    data = g.tensor(_NARROW, min_rank=4, max_rank=4, fits=lambda t: all(d >= 1 for d in _dims(t)))
    sizes = dict(zip(data_layout, _dims(data[1]), strict=True))
    c = sizes["C"]
    kind = g.integer(0, 2) if c > 1 else 0 * g.integer(0, 2)  # drawn always, as nn.conv2d's
    groups = 1 if kind == 0 else c if kind == 2 else g.pick([d for d in _divisors(c) if d > 1])
    strides = (g.integer(1, 2), g.integer(1, 2))
    dilation = (g.integer(1, 2), g.integer(1, 2))
    padding, pad_h, pad_w = _padding(g, 2)
    kh = _window(g, sizes["H"], pad_h, dilation[0])
    kw = _window(g, sizes["W"], pad_w, dilation[1])
    if kind == 2:
        multiplier = g.integer(1, 3)
        weight = {"O": c, "I": multiplier, "H": kh, "W": kw}
        channels: int | None = c * multiplier
        kernel_size: tuple[int, int] | None = (kh, kw)
        out_channels = c * multiplier
    else:
        out_channels = groups * g.integer(1, 2)
        weight = {"O": out_channels, "I": c // groups, "H": kh, "W": kw}
        channels = out_channels if g.flag() else None
        kernel_size = (kh, kw) if g.flag() else None
    weight_type = TensorType(tuple(weight[a] for a in kernel_layout), g.pick(_NARROW))
    w = g.exactly(weight_type)
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
            "out_dtype": g.pick(["int32", "int64"]),
        }
    )
    return (data, w, *_quantized_params(g, out_channels)), attrs


def _qnn_binary(g: _Graph) -> Built:
    """8- or 16-bit operands that broadcast; per-tensor parameters."""
    lhs = g.tensor(_NARROW)
    rhs = g.partner(_dims(lhs[1]), (lhs[1].dtype,))
    params = (_scale(g), _zero_point(g), _scale(g), _zero_point(g), _scale(g), _zero_point(g))
    return (lhs, rhs, *params), BroadcastAttrs.from_kwargs({})


def _qnn_concatenate(g: _Graph) -> Built:
    """8- or 16-bit tensors of one dtype and rank, equal off the axis (pool values or fresh
    leaves), tupled here; one constant scale and zero point per input."""
    head = g.tensor(_NARROW, min_rank=1)
    shape = _dims(head[1])
    axis = g.integer(0, len(shape) - 1)

    def fits(t: TensorType) -> bool:
        d = _dims(t)
        return len(d) == len(shape) and d[:axis] + d[axis + 1 :] == shape[:axis] + shape[axis + 1 :]

    def fresh() -> TensorType:
        return TensorType((*shape[:axis], g.dim(), *shape[axis + 1 :]), head[1].dtype)

    fields = [head] + [
        g.tensor((head[1].dtype,), fits=fits, fresh=fresh) for _ in range(g.integer(0, 2))
    ]
    data = g.tuple_of(fields)
    scales = g.tuple_of([_scale(g) for _ in fields])
    zero_points = g.tuple_of([_zero_point(g) for _ in fields])
    attrs = ConcatenateAttrs.from_kwargs({"axis": g.axis(axis, len(shape))})
    return (data, scales, zero_points, _scale(g), _zero_point(g)), attrs


BUILDERS: dict[str, Builder] = {
    "qnn.quantize": _quantize,
    "qnn.dequantize": _dequantize,
    "fixed_point_multiply": _fixed_point_multiply,
    "qnn.requantize": _requantize,
    "qnn.dense": _qnn_dense,
    "qnn.conv2d": _qnn_conv2d,
    "qnn.add": _qnn_binary,
    "qnn.mul": _qnn_binary,
    "qnn.concatenate": _qnn_concatenate,
}
"""This module's entries, by op name."""
