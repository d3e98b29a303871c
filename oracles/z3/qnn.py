"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.qnn``.

From the former ``z3_dynq`` module:

Z3 encodings of the type relations of the ``dynq`` group: dynamic and quantized operators.

Written from TVM 0.18's relations (``src/relay/op/dyn/tensor/transform.cc``,
``dyn/algorithm/topk.cc``, ``src/relay/qnn/op/quantize.cc``, ``dequantize.cc``,
``requantize.cc``, ``op_common.h`` (QnnBroadcast), ``concatenate.cc``, ``dense.cc``,
``convolution.cc``) and the departures that ``ops.dyn`` and ``ops.qnn`` document,
independently of those modules' relation functions. qnn.dense, qnn.conv2d and
qnn.concatenate add their quantization rules to this package's encodings of nn.dense,
nn.conv2d and concatenate (``z3_relations``).

A dynamic op's unknown result sizes are fresh Z3 integers that nothing constrains (the
relation says ``?``); its rank is the static length of a rank-1 integer *shape tensor*,
which must be a constant here.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import DenseAttrs
from relay.semantics.ops.qnn import (
    BroadcastAttrs,
    DequantizeAttrs,
    FixedPointMultiplyAttrs,
    QuantizeAttrs,
    RequantizeAttrs,
)
from relay.semantics.ops.registry import Attrs

from .core import (
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    TensorArg,
    Term,
    _attrs,
    _broadcast,
    _concatenate,
    _conv2d,
    _dense,
    _same_dtypes,
    _tensor,
    _tuple,
    well_typed,
)


def _qparam(
    data: TensorArg, t: TensorArg, dtype: str, axis: int, one_is_scalar: bool
) -> list[Cond]:
    """A scale (float32) or zero point (int32): rank 0, or a vector of one value per channel
    (for dequantize, a one-element vector is a scalar too)."""
    if t.dtype != dtype:
        raise IllTyped(f"expected {dtype}, found {t.dtype}")
    if not t.shape:
        return []
    if len(t.shape) != 1:
        raise IllTyped("a scale or zero point must be a scalar or a vector")
    rank = len(data.shape)
    channels: Term = data.shape[axis] if rank else z3.IntVal(1)
    if one_is_scalar:
        return [z3.Or(t.shape[0] == 1, t.shape[0] == channels)]
    return [t.shape[0] == channels]


def _quantize_like(
    data_dtypes: tuple[str, ...], out_dtypes: tuple[str, ...], dequant: bool
) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """Quantize / Dequantize: data of the allowed dtypes; axis in [-rank, rank) for rank
        >= 1; scale float32 and zero point int32, each scalar or per channel of axis; out
        dtype in the allowed list; data's shape."""
        a = attrs if isinstance(attrs, QuantizeAttrs | DequantizeAttrs) else None
        if a is None:
            raise IllTyped("expected quantize attributes")
        data, scale, zero_point = _tensor(args, 0), _tensor(args, 1), _tensor(args, 2)
        if data.dtype not in data_dtypes:
            raise IllTyped(f"data dtype {data.dtype}")
        rank = len(data.shape)
        if rank and not -rank <= a.axis < rank:
            raise IllTyped(f"axis {a.axis} out of range")
        axis = a.axis % rank if rank else 0
        cons = _qparam(data, scale, "float32", axis, dequant)
        cons += _qparam(data, zero_point, "int32", axis, dequant)
        if a.out_dtype not in out_dtypes:
            raise IllTyped(f"out_dtype {a.out_dtype}")
        return well_typed([list(data.shape)], cons, [a.out_dtype])

    return encode


def _fixed_point_multiply(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Identity over int32 data."""
    _attrs(attrs, FixedPointMultiplyAttrs)
    data = _tensor(args, 0)
    if data.dtype != "int32":
        raise IllTyped("fixed_point_multiply needs int32 data")
    return well_typed([list(data.shape)], [], ["int32"])


def _scalar(t: TensorArg, dtype: str, what: str) -> None:
    """IsScalarType: a rank-0 tensor of ``dtype``."""
    if t.dtype != dtype or t.shape:
        raise IllTyped(f"{what} must be a {dtype} scalar")


def _per_channel(t: TensorArg, dtype: str, channels: Term, what: str) -> list[Cond]:
    """AssignType: ``dtype``, and either rank 0 or the shape ``(channels,)``."""
    if t.dtype != dtype:
        raise IllTyped(f"{what} must be {dtype}")
    if not t.shape:
        return []
    if len(t.shape) != 1:
        raise IllTyped(f"{what} must be a scalar or a vector")
    return [t.shape[0] == channels]


def _requantize(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Requantize: data int8/uint8/int16/int32/int64; axis (negative: from the end, 0 for a
    scalar) in [0, max(rank, 1)); input scale (float32) and zero point (int32) scalar or one
    per channel of axis (one for a scalar); output scale and zero point scalars; rounding and
    compute_dtype among the known names; out_dtype int8/uint8/int16/int32; data's shape."""
    a = _attrs(attrs, RequantizeAttrs)
    data = _tensor(args, 0)
    if data.dtype not in ("int8", "uint8", "int16", "int32", "int64"):
        raise IllTyped(f"requantize data {data.dtype}")
    rank = len(data.shape)
    axis = a.axis if a.axis >= 0 else (rank + a.axis if rank else 0)
    if not 0 <= axis < max(rank, 1):
        raise IllTyped(f"axis {a.axis} out of range")
    channels: Term = data.shape[axis] if rank else z3.IntVal(1)
    cons = _per_channel(_tensor(args, 1), "float32", channels, "input_scale")
    cons += _per_channel(_tensor(args, 2), "int32", channels, "input_zero_point")
    _scalar(_tensor(args, 3), "float32", "output_scale")
    _scalar(_tensor(args, 4), "int32", "output_zero_point")
    if a.rounding not in ("None", "UPWARD", "TONEAREST"):
        raise IllTyped(f"rounding {a.rounding}")
    if a.compute_dtype not in ("None", "int64", "float32", "float64"):
        raise IllTyped(f"compute_dtype {a.compute_dtype}")
    if a.out_dtype not in ("int8", "uint8", "int16", "int32"):
        raise IllTyped(f"out_dtype {a.out_dtype}")
    return well_typed([list(data.shape)], cons, [a.out_dtype])


def _matmul_params(args: Sequence[Arg], channels: Term) -> list[Cond]:
    """Input zero point (int32) and scale (float32) scalars; kernel zero point (int32) and
    scale (float32) scalar or one per output channel."""
    _scalar(_tensor(args, 2), "int32", "input_zero_point")
    _scalar(_tensor(args, 4), "float32", "input_scale")
    cons = _per_channel(_tensor(args, 3), "int32", channels, "kernel_zero_point")
    return cons + _per_channel(_tensor(args, 5), "float32", channels, "kernel_scale")


def _qnn_dense(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """QDense: data int8/uint8/int16/uint16, weight int8/uint8, out_dtype int32/int64; the
    dense rule for the shapes; the parameters per output unit."""
    a = _attrs(attrs, DenseAttrs)
    data, weight = _tensor(args, 0), _tensor(args, 1)
    if data.dtype not in ("int8", "uint8", "int16", "uint16"):
        raise IllTyped(f"qnn.dense data {data.dtype}")
    if weight.dtype not in ("int8", "uint8"):
        raise IllTyped(f"qnn.dense weight {weight.dtype}")
    if a.out_dtype not in ("int32", "int64"):
        raise IllTyped(f"qnn.dense out_dtype {a.out_dtype}")
    dense = _dense(args[:2], attrs)
    out = dense.outputs[0]
    cons = [*dense.constraints, *_matmul_params(args, out[-1])]
    return well_typed(dense.outputs, cons, dense.dtypes)


def _qnn_conv2d(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """QnnConv2D: data and weight int8/uint8/int16, out_dtype int16/int32/int64, data layout
    NCHW or NHWC, kernel layout OIHW/HWIO/HWOI/OHWI; the conv2d rule for the shapes; the
    parameters per output channel."""
    a = _attrs(attrs, Conv2DAttrs)
    data, weight = _tensor(args, 0), _tensor(args, 1)
    for t, what in ((data, "data"), (weight, "weight")):
        if t.dtype not in ("int8", "uint8", "int16"):
            raise IllTyped(f"qnn.conv2d {what} {t.dtype}")
    if a.out_dtype not in ("int16", "int32", "int64"):
        raise IllTyped(f"qnn.conv2d out_dtype {a.out_dtype}")
    if a.data_layout not in ("NCHW", "NHWC"):
        raise IllTyped(f"qnn.conv2d data_layout {a.data_layout}")
    if a.kernel_layout not in ("OIHW", "HWIO", "HWOI", "OHWI"):
        raise IllTyped(f"qnn.conv2d kernel_layout {a.kernel_layout}")
    conv = _conv2d(args[:2], attrs)
    out = conv.outputs[0]
    channels = out[(a.out_layout or a.data_layout).index("C")]
    cons = [*conv.constraints, *_matmul_params(args, channels)]
    return well_typed(conv.outputs, cons, conv.dtypes)


def _qnn_broadcast(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """QnnBroadcast: lhs and rhs of one dtype among int8/uint8/int16/int32; each side's scale
    (float32) and zero point (int32) scalars, or (either one not scalar) the side's channel
    axis (0 for rank <= 1, negative from the end) in range and each one per channel;
    output parameters scalars; shapes broadcast; lhs's dtype."""
    a = _attrs(attrs, BroadcastAttrs)
    lhs, rhs = _tensor(args, 0), _tensor(args, 1)
    dtype = _same_dtypes([lhs.dtype, rhs.dtype], "lhs and rhs")
    if dtype not in ("int8", "uint8", "int16", "int32"):
        raise IllTyped(f"qnn binary op on {dtype}")
    cons: list[Cond] = []
    for t, axis, first in ((lhs, a.lhs_axis, 2), (rhs, a.rhs_axis, 4)):
        scale, zero_point = _tensor(args, first), _tensor(args, first + 1)
        if not scale.shape and not zero_point.shape:
            _scalar(scale, "float32", "scale")
            _scalar(zero_point, "int32", "zero point")
            continue
        rank = len(t.shape)
        channel = 0 if rank <= 1 else (axis + rank if axis < 0 else axis)
        if not 0 <= channel < max(rank, 1):
            raise IllTyped(f"channel axis {axis} out of range")
        channels: Term = t.shape[channel] if rank else z3.IntVal(1)
        cons += _per_channel(scale, "float32", channels, "scale")
        cons += _per_channel(zero_point, "int32", channels, "zero point")
    _scalar(_tensor(args, 6), "float32", "output_scale")
    _scalar(_tensor(args, 7), "int32", "output_zero_point")
    out, broadcast = _broadcast(lhs.shape, rhs.shape)
    return well_typed([out], [*cons, *broadcast], [dtype])


def _qnn_concatenate(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """QnnConcatenate: one float32 scale and one int32 zero point scalar per input, scalar
    output parameters, inputs int8/uint8/int16/int32; then the concatenate rule."""
    fields = _tuple(args, 0)
    scales, zero_points = _tuple(args, 1), _tuple(args, 2)
    if not len(fields) == len(scales) == len(zero_points):
        raise IllTyped("one scale and zero point per input")
    for s, z in zip(scales, zero_points, strict=True):
        _scalar(s, "float32", "input scale")
        _scalar(z, "int32", "input zero point")
    _scalar(_tensor(args, 3), "float32", "output_scale")
    _scalar(_tensor(args, 4), "int32", "output_zero_point")
    if any(f.dtype not in ("int8", "uint8", "int16", "int32") for f in fields):
        raise IllTyped("qnn.concatenate of a non-quantized dtype")
    return _concatenate(args[:1], attrs)


_QUANTIZED = ("int8", "uint8", "int16", "uint16", "int32")


RULES: dict[str, Encoding] = {
    "qnn.quantize": _quantize_like(("float32",), _QUANTIZED, dequant=False),
    "qnn.dequantize": _quantize_like(_QUANTIZED, ("float16", "float32"), dequant=True),
    "fixed_point_multiply": _fixed_point_multiply,
    "qnn.requantize": _requantize,
    "qnn.dense": _qnn_dense,
    "qnn.conv2d": _qnn_conv2d,
    "qnn.add": _qnn_broadcast,
    "qnn.mul": _qnn_broadcast,
    "qnn.concatenate": _qnn_concatenate,
}
"""This module's entries, by op name."""
