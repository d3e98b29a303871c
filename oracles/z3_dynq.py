"""Z3 encodings of the type relations of the ``dynq`` group: dynamic and quantized operators.

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

from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.index import OneHotAttrs, StridedSliceAttrs
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
from relay.semantics.ops.shape import ReshapeAttrs, TileAttrs
from relay.semantics.ops.sort import TopKAttrs
from relay.semantics.syntax import DTYPES

from .z3_relations import (
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    TensorArg,
    Term,
    _attrs,
    _axis,
    _broadcast,
    _concatenate,
    _conv2d,
    _dense,
    _same_dtypes,
    _tensor,
    _tuple,
    const_value,
    well_typed,
)

_INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_counter = [0]


def _unknown() -> Term:
    """A fresh, unconstrained size: an ``?`` of the result."""
    _counter[0] += 1
    return z3.Int(f"dyn_out_{_counter[0]}")


def _length(t: TensorArg, what: str) -> int:
    """A shape tensor: rank 1, an integer dtype, a constant length (the result's rank)."""
    if len(t.shape) != 1 or t.dtype not in _INTEGERS:
        raise IllTyped(f"{what} must be a rank-1 integer tensor")
    n = const_value(t.shape[0])
    if n is None:
        raise IllTyped(f"{what} must have a static length")
    return n


def _dyn_reshape(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynamicReshape: rank len(newshape), every size unknown; data's dtype."""
    _attrs(attrs, ReshapeAttrs)
    data, newshape = _tensor(args, 0), _tensor(args, 1)
    return well_typed(
        [[_unknown() for _ in range(_length(newshape, "newshape"))]], [], [data.dtype]
    )


def _dyn_broadcast_to(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynamicBroadCastTo: rank len(shape) >= rank(data), sizes unknown; data's dtype."""
    _attrs(attrs, InitOpAttrs)
    data, shape = _tensor(args, 0), _tensor(args, 1)
    rank = _length(shape, "shape")
    if rank < len(data.shape):
        raise IllTyped("broadcast_to cannot lower the rank")
    return well_typed([[_unknown() for _ in range(rank)]], [], [data.dtype])


def _dyn_init(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynamicInitOp: rank len(shape), sizes unknown; the dtype attribute, required."""
    a = _attrs(attrs, InitOpAttrs)
    if not a.dtype:
        raise IllTyped("dyn.zeros and dyn.ones need a dtype")
    rank = _length(_tensor(args, 0), "shape")
    return well_typed([[_unknown() for _ in range(rank)]], [], [a.dtype])


def _dyn_full(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynamicFull: a rank-0 fill value; rank len(shape); dtype attribute or the fill's."""
    a = _attrs(attrs, InitOpAttrs)
    fill, shape = _tensor(args, 0), _tensor(args, 1)
    if fill.shape:
        raise IllTyped("fill_value must be a scalar")
    rank = _length(shape, "shape")
    return well_typed([[_unknown() for _ in range(rank)]], [], [a.dtype or fill.dtype])


def _dyn_strided_slice(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynStridedSlice: begin, end, strides of one length k <= rank(data); the first k sizes
    unknown, the rest data's; slice_mode end or size."""
    a = _attrs(attrs, StridedSliceAttrs)
    data = _tensor(args, 0)
    if a.slice_mode not in ("end", "size"):
        raise IllTyped(f"unknown slice_mode {a.slice_mode}")
    lengths = {
        _length(_tensor(args, i), name) for i, name in ((1, "begin"), (2, "end"), (3, "strides"))
    }
    if len(lengths) != 1:
        raise IllTyped("begin, end and strides differ in length")
    (k,) = lengths
    if k > len(data.shape):
        raise IllTyped(f"{k} sliced axes for a rank-{len(data.shape)} input")
    out = [_unknown() for _ in range(k)] + list(data.shape[k:])
    return well_typed([out], [], [data.dtype])


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


# ---------------------------------------------------------------------------------------------
# qnn.requantize, qnn.dense, qnn.conv2d, qnn.add, qnn.mul, qnn.concatenate


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


# ---------------------------------------------------------------------------------------------
# dyn.tile, dyn.topk, dyn.one_hot


def _dyn_tile(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynamicTile: rank max(rank(data), len(reps)), every size unknown; data's dtype."""
    _attrs(attrs, TileAttrs)
    data, reps = _tensor(args, 0), _tensor(args, 1)
    rank = max(len(data.shape), _length(reps, "reps"))
    return well_typed([[_unknown() for _ in range(rank)]], [], [data.dtype])


def _dyn_topk(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynTopK: k an integer scalar or (1,) tensor; axis in range; the axis size unknown;
    values of data's dtype, indices of the (integer) dtype attribute, as ret_type says."""
    a = _attrs(attrs, TopKAttrs)
    data, k = _tensor(args, 0), _tensor(args, 1)
    if k.dtype not in _INTEGERS or len(k.shape) > 1:
        raise IllTyped("k must be an integer scalar or a (1,) tensor")
    cons = [k.shape[0] == 1] if k.shape else []
    axis = _axis(a.axis, len(data.shape))
    if a.dtype not in _INTEGERS:
        raise IllTyped(f"index dtype {a.dtype!r}")
    shape = [_unknown() if i == axis else d for i, d in enumerate(data.shape)]
    if a.ret_type == "both":
        return well_typed([shape, list(shape)], cons, [data.dtype, a.dtype], tuple_output=True)
    if a.ret_type not in ("values", "indices"):
        raise IllTyped(f"ret_type {a.ret_type}")
    return well_typed([shape], cons, [data.dtype if a.ret_type == "values" else a.dtype])


def _dyn_one_hot(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynOneHot: integer indices, scalar on and off values, a scalar integer depth; axis in
    [-1, rank]; an unknown size inserted at axis (-1: last); the dtype attribute."""
    a = _attrs(attrs, OneHotAttrs)
    indices, on, off, depth = (_tensor(args, i) for i in range(4))
    if indices.dtype not in _INTEGERS:
        raise IllTyped("one_hot indices must be integers")
    if on.shape or off.shape or depth.shape or depth.dtype not in _INTEGERS:
        raise IllTyped("on_value, off_value and depth must be scalars (depth an integer)")
    rank = len(indices.shape)
    if not -1 <= a.axis <= rank:
        raise IllTyped(f"axis {a.axis} out of range")
    if a.dtype not in DTYPES:
        raise IllTyped(f"dtype {a.dtype!r}")
    at = rank if a.axis == -1 else a.axis
    shape = [*indices.shape[:at], _unknown(), *indices.shape[at:]]
    return well_typed([shape], [], [a.dtype])


_QUANTIZED = ("int8", "uint8", "int16", "uint16", "int32")

RULES: dict[str, Encoding] = {
    "dyn.reshape": _dyn_reshape,
    "dyn.broadcast_to": _dyn_broadcast_to,
    "dyn.zeros": _dyn_init,
    "dyn.ones": _dyn_init,
    "dyn.full": _dyn_full,
    "dyn.strided_slice": _dyn_strided_slice,
    "qnn.quantize": _quantize_like(("float32",), _QUANTIZED, dequant=False),
    "qnn.dequantize": _quantize_like(_QUANTIZED, ("float16", "float32"), dequant=True),
    "fixed_point_multiply": _fixed_point_multiply,
    "qnn.requantize": _requantize,
    "qnn.dense": _qnn_dense,
    "qnn.conv2d": _qnn_conv2d,
    "qnn.add": _qnn_broadcast,
    "qnn.mul": _qnn_broadcast,
    "qnn.concatenate": _qnn_concatenate,
    "dyn.tile": _dyn_tile,
    "dyn.topk": _dyn_topk,
    "dyn.one_hot": _dyn_one_hot,
}
"""The encodings of this group's operators, by name (merged into ``Z3_ENCODINGS``)."""
