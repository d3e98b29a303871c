"""Quantized operators (qnn.*) and fixed_point_multiply.

Conversions between real and quantized tensors, requantization, and the integer arithmetic of
quantized networks.

::

    qnn.quantize(data, output_scale, output_zero_point, out_dtype=, axis=-1)
                                                      QuantizeAttrs       Quantize    opaque
    qnn.dequantize(data, input_scale, input_zero_point, out_dtype="float32", axis=-1)
                                                      DequantizeAttrs     Dequantize  opaque
    qnn.requantize(data, input_scale, input_zero_point, output_scale, output_zero_point,
                   axis=-1, rounding="None", compute_dtype="None", out_dtype=)
                                                      RequantizeAttrs     Requantize  opaque
    qnn.add | qnn.mul(lhs, rhs, lhs_scale, lhs_zero_point, rhs_scale, rhs_zero_point,
                      output_scale, output_zero_point, lhs_axis=-1, rhs_axis=-1)
                                                      BroadcastAttrs      QnnBroadcast
                                                                  opaque (qnn.mul: broadcast)
    qnn.concatenate(data, input_scales, input_zero_points, output_scale, output_zero_point,
                    axis=0)                           ConcatenateAttrs    QnnConcatenate opaque
    qnn.dense(data, weight, input_zero_point, kernel_zero_point, input_scale, kernel_scale,
              units=None, out_dtype=)                 DenseAttrs          QDense      opaque
    qnn.conv2d(data, weight, input_zero_point, kernel_zero_point, input_scale, kernel_scale,
               strides=.., padding=.., ..., out_dtype=)
                                                      Conv2DAttrs         QnnConv2D   opaque
    fixed_point_multiply(data, multiplier=, shift=)   FixedPointMultiplyAttrs
                                                                          Identity    elemwise

``out_dtype`` of qnn.requantize, qnn.dense and qnn.conv2d defaults to no dtype, which the
relations reject, as TVM's did. Fields follow TVM 0.18's ``include/tvm/relay/qnn/attrs.h``
(``BroadcastAttrs``: ``relay.attrs.BroadcastAttrs``) and the nn/transform attrs they reuse;
relations and canonicalisations are in ``src/relay/qnn/op/*.cc``. Except ``qnn.mul``
(broadcast), the QNN ops register no pattern (TVM's default, opaque): QNN canonicalisation
rewrites them before fusion, and it (``QuantizeLower``, ``DequantizeLower``,
``RequantizeLower``, ``QnnAddCanonicalize``, ...) with TOPI gives their meaning.

Typing conventions: a *scale* is float32 and a *zero point* int32; "scalar" means rank 0; a
per-channel parameter holds one value per channel of its axis. Departures from TVM shared by
the relations: rounding, compute_dtype and unsupported layouts are checked by the relations
(TVM checked them during canonicalisation), and a per-channel axis is normalised for every
negative value (TVM's requantize lowering special-cased only -1).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from ..errors import RelayRuntimeError, UndefinedBehavior
from ..syntax import Dim, TensorType, Type
from .nn.conv import Conv2DAttrs, _conv2d_reference, _conv2d_relation
from .nn.dense import DenseAttrs, _dense_reference, _dense_relation
from .registry import (
    AttrKind,
    Attrs,
    OpInput,
    OpPattern,
    OpRegistrar,
    RelationError,
    Tensor,
    TensorReference,
    array_input,
    attr_field,
    tensor_reference,
    tuple_input,
)
from .shape import ConcatenateAttrs, _concatenate_relation
from .shapes import broadcast_shapes, dims_equal, tensor_arg, tuple_arg


@dataclass(frozen=True, slots=True)
class QuantizeAttrs(Attrs):
    """Attributes of ``qnn.quantize``: the quantized dtype and the channel axis."""

    type_key: ClassVar[str] = "relay.attrs.QuantizeAttrs"
    out_dtype: str = attr_field(AttrKind.DTYPE, doc="Output data type: int8, uint8, ...")
    axis: int = attr_field(AttrKind.INT, -1, doc="The channel axis of per-channel quantization.")


@dataclass(frozen=True, slots=True)
class DequantizeAttrs(Attrs):
    """Attributes of ``qnn.dequantize``: the real dtype and the channel axis."""

    type_key: ClassVar[str] = "relay.attrs.DequantizeAttrs"
    out_dtype: str = attr_field(AttrKind.DTYPE, "float32", doc="Output data type: float16/32.")
    axis: int = attr_field(AttrKind.INT, -1, doc="The channel axis of per-channel quantization.")


@dataclass(frozen=True, slots=True)
class FixedPointMultiplyAttrs(Attrs):
    """Attributes of ``fixed_point_multiply``: a Q31 multiplier and a power-of-two shift."""

    type_key: ClassVar[str] = "relay.attrs.FixedPointMultiplyAttrs"
    multiplier: int = attr_field(AttrKind.INT, doc="The integer multiplier (Q31 fixed point).")
    shift: int = attr_field(AttrKind.INT, doc="The power-of-two shift (positive: left).")


@dataclass(frozen=True, slots=True)
class RequantizeAttrs(Attrs):
    """Attributes of ``qnn.requantize``: channel axis, rounding, compute dtype, output dtype."""

    type_key: ClassVar[str] = "relay.attrs.RequantizeAttrs"
    axis: int = attr_field(AttrKind.INT, -1, doc="The channel axis of per-channel input scales.")
    rounding: str = attr_field(
        AttrKind.STR, "None", doc='"UPWARD", "TONEAREST" or "None" (the default, UPWARD).'
    )
    compute_dtype: str = attr_field(
        AttrKind.STR, "None", doc='"int64", "float32", "float64" or "None" (int64).'
    )
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc="Output data type: int8, uint8, ...")


@dataclass(frozen=True, slots=True)
class BroadcastAttrs(Attrs):
    """Attributes of ``qnn.add`` and ``qnn.mul``: the channel axes of per-channel parameters."""

    type_key: ClassVar[str] = "relay.attrs.BroadcastAttrs"
    lhs_axis: int = attr_field(AttrKind.INT, -1, doc="The channel axis of lhs's parameters.")
    rhs_axis: int = attr_field(AttrKind.INT, -1, doc="The channel axis of rhs's parameters.")


_A = TypeVar("_A", bound=Attrs)


Array = npt.NDArray[Any]


_QUANTIZED = ("int8", "uint8", "int16", "uint16", "int32")


def _attrs(attrs: Attrs | None, cls: type[_A]) -> _A:
    if not isinstance(attrs, cls):
        found = "no attributes" if attrs is None else type(attrs).__name__
        raise RelationError(f"expected {cls.__name__}, found {found}")
    return attrs


def _arity(arg_types: tuple[Type, ...], names: tuple[str, ...]) -> tuple[TensorType, ...]:
    if len(arg_types) != len(names):
        raise RelationError(f"expected {len(names)} argument(s), found {len(arg_types)}")
    return tuple(tensor_arg(t, n) for t, n in zip(arg_types, names, strict=True))


def _qparams(
    data: TensorType,
    params: tuple[tuple[TensorType, str, str], ...],
    axis: int,
    *,
    one_element_is_scalar: bool,
) -> None:
    """Scale and zero point: their dtypes, and scalar or one value per channel of ``axis``."""
    rank = len(data.shape)
    if rank and not -rank <= axis < rank:
        raise RelationError(f"axis={axis} is out of range for data of rank {rank}")
    channels = data.shape[axis] if rank else 1
    for t, what, dtype in params:
        if t.dtype != dtype:
            raise RelationError(f"expected {dtype} for {what}, found {t.dtype}")
        if not t.shape:
            continue
        if len(t.shape) != 1:
            raise RelationError(
                f"expected a scalar or a vector for {what}, found rank {len(t.shape)}"
            )
        if one_element_is_scalar and t.shape[0] == 1:
            continue
        if dims_equal(t.shape[0], channels) is False:
            raise RelationError(
                f"expected {channels} values for {what} (one per channel of axis {axis}), "
                f"found {t.shape[0]}"
            )


def _per_channel(value: Tensor, data: Tensor, axis: int) -> Array:
    """A scalar or per-channel parameter, shaped to broadcast along ``axis`` of data."""
    v = np.asarray(value).reshape(-1) if value.ndim else np.asarray(value)
    if v.ndim == 0 or v.size == 1 or data.ndim == 0:
        return v.reshape(()) if v.size == 1 else v
    shape = [1] * data.ndim
    shape[axis % data.ndim] = v.size
    return v.reshape(shape)


def _quantize_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Quantize``: data float32; ``out_dtype`` int8, uint8, int16, uint16 or int32; the scale
    and zero point are scalars or vectors of ``data.shape[axis]`` values (per-channel
    quantisation along ``axis``); the result has data's shape.

    Departure from TVM: the axis must be in range for data of rank >= 1 even with scalar
    parameters (TVM read ``shape[axis]`` unchecked)."""
    a = _attrs(attrs, QuantizeAttrs)
    data, scale, zero_point = _arity(arg_types, ("data", "output_scale", "output_zero_point"))
    if data.dtype != "float32":
        raise RelationError(f"expected float32 data, found {data.dtype}")
    params = ((scale, "output_scale", "float32"), (zero_point, "output_zero_point", "int32"))
    _qparams(data, params, a.axis, one_element_is_scalar=False)
    if a.out_dtype not in _QUANTIZED:
        raise RelationError(
            f'expected out_dtype one of {", ".join(_QUANTIZED)}, found "{a.out_dtype}"'
        )
    return TensorType(data.shape, a.out_dtype)


def _round_half_away(x: Array) -> Array:
    """``llvm.round``: to the nearest integer, halves away from zero (exact in x's dtype)."""
    t = np.trunc(x)
    with np.errstate(invalid="ignore"):
        frac = x - t
        return np.where(np.abs(frac) >= 0.5, t + np.sign(x), t).astype(x.dtype)


def _clip(x: Array, low: float, high: float) -> Array:
    """TVM's clip: ``max(min(x, high), low)`` with ordered comparisons (NaN becomes high)."""
    lowest = np.where(x < high, x, np.asarray(high, dtype=x.dtype))
    return np.where(lowest > low, lowest, np.asarray(low, dtype=x.dtype))


def _quantize_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``qnn.quantize``: ``clip(round(data / scale) + float32(zero_point), qmin, qmax)`` in
    float32, then cast to ``out_dtype``; ``round`` rounds halves away from zero (``llvm.round``);
    ``clip`` is ``max(min(x, qmax), qmin)`` with ordered comparisons, so NaN becomes qmax and
    infinities saturate. Defined for every input (a zero scale gives infinities or NaN, then
    saturates)."""
    a = _attrs(attrs, QuantizeAttrs)
    data, scale, zero_point = args
    with np.errstate(all="ignore"):
        scaled = np.asarray(data / _per_channel(scale, data, a.axis)).astype(np.float32)
        shifted = _round_half_away(scaled) + _per_channel(zero_point, data, a.axis).astype(
            np.float32
        )
    info = np.iinfo(np.dtype(a.out_dtype))
    clipped = _clip(shifted.astype(np.float32), float(info.min), float(info.max))
    return clipped.astype(a.out_dtype)


def _dequantize_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Dequantize``: data int8, uint8, int16, uint16 or int32; ``out_dtype`` float16 or
    float32; the scale and zero point are scalars, one-element vectors or vectors of
    ``data.shape[axis]`` values; the result has data's shape."""
    a = _attrs(attrs, DequantizeAttrs)
    data, scale, zero_point = _arity(arg_types, ("data", "input_scale", "input_zero_point"))
    if data.dtype not in _QUANTIZED:
        raise RelationError(f"expected data of {', '.join(_QUANTIZED)}, found {data.dtype}")
    params = ((scale, "input_scale", "float32"), (zero_point, "input_zero_point", "int32"))
    _qparams(data, params, a.axis, one_element_is_scalar=True)
    if a.out_dtype not in ("float16", "float32"):
        raise RelationError(f'expected out_dtype float16 or float32, found "{a.out_dtype}"')
    return TensorType(data.shape, a.out_dtype)


def _dequantize_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``qnn.dequantize``: ``float32(int32(data) - zero_point) * scale``; for float16 output the
    float32 value is clipped to float16's finite range (NaN to its maximum) and rounded.

    Undefined: int32 data whose ``data - zero_point`` overflows int32 (``nsw``)."""
    a = _attrs(attrs, DequantizeAttrs)
    data, scale, zero_point = args
    shift = data.astype(np.int64) - _per_channel(zero_point, data, a.axis).astype(np.int64)
    if shift.size and (shift.min() < -(2**31) or shift.max() >= 2**31):
        raise UndefinedBehavior("qnn.dequantize: data - zero_point overflows int32 (nsw)")
    with np.errstate(all="ignore"):
        real = np.asarray(shift.astype(np.float32) * _per_channel(scale, data, a.axis))
        real = real.astype(np.float32)
    if a.out_dtype == "float32":
        return real
    limit = float(np.finfo(np.float16).max)
    return _clip(real, -limit, limit).astype(np.float16)


def _fixed_point_multiply_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Identity``: data is int32, the result has its type.

    Departure from TVM: int32 data is required (TVM's Identity relation accepted any dtype and
    lowering then failed)."""
    _attrs(attrs, FixedPointMultiplyAttrs)
    (data,) = _arity(arg_types, ("data",))
    if data.dtype != "int32":
        raise RelationError(f"expected int32 data, found {data.dtype}")
    return TensorType(data.shape, data.dtype)


def _wrap(value: int, bits: int) -> int:
    """``value`` as a two's-complement integer of ``bits`` bits (truncation)."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _fits(value: int, bits: int) -> bool:
    return -(1 << (bits - 1)) <= value < (1 << (bits - 1))


def _q_multiply_shift(x: int, multiplier: int, shift: int) -> int:
    """One element of ``tir.q_multiply_shift(x, multiplier, 31, shift)`` as TVM legalises it."""
    if multiplier == 1 << 30:
        exponent = shift - 1
        if exponent > 0:
            if exponent >= 32:
                raise UndefinedBehavior(f"fixed_point_multiply: int32 shift by {exponent}")
            return _wrap(x << exponent, 32)
        e = -exponent
        if not 1 <= e <= 31:
            raise UndefinedBehavior(
                f"fixed_point_multiply: shift={shift} with multiplier 2**30 shifts by "
                f"{e - 1} and {e} (out of range for int32)"
            )
        rounded = x + (1 << (e - 1))
        if not _fits(rounded, 32):
            raise UndefinedBehavior("fixed_point_multiply: int32 rounding addition overflows")
        return rounded >> e
    left, right = max(shift, 0), max(-shift, 0)
    total = right + 31
    if left >= 64 or total >= 64:
        raise UndefinedBehavior(f"fixed_point_multiply: int64 shift by {max(left, total)}")
    value = _wrap(x << left, 64) if left else x
    value = value * multiplier
    if not _fits(value, 64):
        raise UndefinedBehavior("fixed_point_multiply: the int64 product overflows")
    value = value + (1 << (total - 1))
    if not _fits(value, 64):
        raise UndefinedBehavior("fixed_point_multiply: the int64 rounding addition overflows")
    return _wrap(value >> total, 32)


def _fixed_point_multiply_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``fixed_point_multiply``: ``x * multiplier * 2**(shift - 31)`` rounded half up, in integer
    arithmetic. With ``multiplier == 2**30`` (a power of two) TVM computes in int32:
    ``x << (shift - 1)`` (wrapping) when ``shift > 1``, else ``(x + 2**(e - 1)) >> e`` with
    ``e = 1 - shift``. Otherwise in int64: ``((x << max(shift, 0)) * multiplier +
    2**(r + 30)) >> (r + 31)`` with ``r = max(-shift, 0)``, the shift wrapping, the result
    truncated to int32.

    Undefined: an int64 product or rounding addition that overflows, an int32 rounding addition
    that overflows (power-of-two case), shift amounts negative or at least the bit width
    (``shift == 1`` with multiplier ``2**30``, ``|shift|`` too large): LLVM's ``nsw``
    arithmetic and out-of-range shifts give poison."""
    a = _attrs(attrs, FixedPointMultiplyAttrs)
    (data,) = args
    out = [_q_multiply_shift(int(x), a.multiplier, a.shift) for x in data.reshape(-1)]
    return np.asarray(out, dtype=np.int32).reshape(data.shape)


_REQUANTIZE_IN = ("int8", "uint8", "int16", "int32", "int64")


_REQUANTIZE_OUT = ("int8", "uint8", "int16", "int32")


_ROUNDINGS = ("None", "UPWARD", "TONEAREST")


_COMPUTE_DTYPES = ("None", "int64", "float32", "float64")


def _channel_axis(rank: int, axis: int, what: str = "axis") -> int:
    """TVM's channel axis: negative counts from the end; a scalar (rank 0) has one channel."""
    normalized = axis if axis >= 0 else (rank + axis if rank else 0)
    if not 0 <= normalized < max(rank, 1):
        raise RelationError(f"{what}={axis} is out of range for data of rank {rank}")
    return normalized


def _scalar_param(t: TensorType, what: str, dtype: str) -> None:
    """An output scale (float32) or zero point (int32): a scalar (rank 0)."""
    if t.dtype != dtype:
        raise RelationError(f"expected {dtype} for {what}, found {t.dtype}")
    if t.shape:
        raise RelationError(f"expected a scalar {what} (rank 0), found rank {len(t.shape)}")


def _requantize_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Requantize``: data int8, uint8, int16, int32 or int64; ``axis`` (negative counts from
    the end; a scalar has one channel on axis 0) in range; input scale and zero point scalars or
    one value per channel of ``axis``; output scale and zero point scalars; ``rounding``
    "UPWARD", "TONEAREST" or "None"; ``compute_dtype`` "int64", "float32", "float64" or "None";
    ``out_dtype`` int8, uint8, int16 or int32; data's shape."""
    a = _attrs(attrs, RequantizeAttrs)
    names = ("data", "input_scale", "input_zero_point", "output_scale", "output_zero_point")
    data, in_scale, in_zero, out_scale, out_zero = _arity(arg_types, names)
    if data.dtype not in _REQUANTIZE_IN:
        raise RelationError(f"expected data of {', '.join(_REQUANTIZE_IN)}, found {data.dtype}")
    axis = _channel_axis(len(data.shape), a.axis)
    params = ((in_scale, "input_scale", "float32"), (in_zero, "input_zero_point", "int32"))
    _qparams(data, params, axis, one_element_is_scalar=False)
    _scalar_param(out_scale, "output_scale", "float32")
    _scalar_param(out_zero, "output_zero_point", "int32")
    if a.rounding not in _ROUNDINGS:
        raise RelationError(f'expected rounding "UPWARD" or "TONEAREST", found "{a.rounding}"')
    if a.compute_dtype not in _COMPUTE_DTYPES:
        raise RelationError(
            f'expected compute_dtype "int64", "float32" or "float64", found "{a.compute_dtype}"'
        )
    if a.out_dtype not in _REQUANTIZE_OUT:
        raise RelationError(
            f'expected out_dtype one of {", ".join(_REQUANTIZE_OUT)}, found "{a.out_dtype}"'
        )
    return TensorType(data.shape, a.out_dtype)


def _fixed_point(multiplier: float) -> tuple[int, int]:
    """TVM's ``GetFixedPointMultiplierShift``: ``multiplier = m * 2**(shift - 31)`` with a
    Q31 significand ``m`` rounded half away from zero (a significand of 2**31 becomes 2**30)."""
    if multiplier == 0.0:
        return 0, 0
    if not math.isfinite(multiplier):
        raise UndefinedBehavior(f"qnn.requantize: the scale ratio {multiplier} is not finite")
    significand, exponent = math.frexp(multiplier)
    scaled = abs(significand) * 2.0**31  # exact: a power-of-two scaling
    whole = math.floor(scaled)
    m = (whole + (1 if scaled - whole >= 0.5 else 0)) * (1 if significand > 0 else -1)
    if m == 1 << 31:
        m, exponent = m // 2, exponent + 1
    return m, exponent


def _q31_round(x: int, m: int, shift: int, away: bool) -> int:
    """``x * m * 2**(shift - 31)`` rounded in int64 arithmetic as TVM's per-channel and
    to-nearest routines compute it: halves up, or (``away``) away from zero; int32 result."""
    left, right = max(shift, 0), max(-shift, 0)
    total = right + 31
    if left >= 64 or total >= 64:
        raise UndefinedBehavior(f"qnn.requantize: int64 shift by {max(left, total)}")
    value = _wrap(x << left, 64) * m
    if not _fits(value, 64):
        raise UndefinedBehavior("qnn.requantize: the int64 product overflows")
    rounder = 1 << (total - 1)
    if away and value < 0:
        rounder -= 1
    value += rounder
    if not _fits(value, 64):
        raise UndefinedBehavior("qnn.requantize: the int64 rounding addition overflows")
    return _wrap(value >> total, 32)


def _check_int32(value: int, what: str) -> int:
    if not _fits(value, 32):
        raise UndefinedBehavior(f"qnn.requantize: {what} overflows int32 (nsw)")
    return value


def _requantize_int(
    x: int,
    in_zero: int,
    in_scale: float,
    out_scale: float,
    out_zero: int,
    per_channel: bool,
    upward: bool,
) -> int:
    """One element on the integer path (before clipping), in TVM's int32/int64 steps."""
    value = _check_int32(_wrap(x, 32) - in_zero, "data - input_zero_point")
    if per_channel or in_scale != out_scale:
        ratio = float(np.float32(in_scale)) / float(np.float32(out_scale))
        m, shift = _fixed_point(ratio)
        if upward and not per_channel:
            value = _q_multiply_shift(value, m, shift)
        else:
            value = _q31_round(value, m, shift, away=not upward)
    return _check_int32(out_zero + value, "the sum with output_zero_point")


def _requantize_float(
    x: Array, in_zero: Array, ratio: Array, out_zero: int, bits: int, upward: bool
) -> Array:
    """The float path: subtract, scale, add and round in float32 or float64; int64 result."""
    ftype = np.float32 if bits == 32 else np.float64
    with np.errstate(all="ignore"):
        value = x.astype(ftype) - in_zero.astype(ftype)
        value = (value * ratio.astype(ftype) + ftype(out_zero)).astype(ftype)
        rounded = np.floor(value + ftype(0.5)) if upward else _round_half_away(value)
    if not np.all(np.isfinite(rounded)) or (
        rounded.size and (rounded.min() < -(2.0**31) or rounded.max() >= 2.0**31)
    ):
        raise UndefinedBehavior("qnn.requantize: a float result that int32 cannot hold")
    return np.asarray(rounded).astype(np.int64)


def _requantize_values(
    data: Tensor,
    scales: tuple[Tensor, Tensor, Tensor, Tensor],
    axis: int,
    rounding: str,
    compute_dtype: str,
) -> Array:
    """Requantized values of ``data`` as int64 (before clipping): the shared core of
    ``qnn.requantize`` and the QNN operators that canonicalise to it."""
    in_scale, in_zero, out_scale, out_zero = scales
    if float(out_scale) == 0.0:
        raise RelayRuntimeError("qnn.requantize: output scale can not be equal to 0.0")
    upward = rounding != "TONEAREST"
    per_channel = in_scale.ndim == 1
    scale_c = _per_channel(in_scale, data, axis)
    zero_c = _per_channel(in_zero, data, axis)
    if compute_dtype in ("float32", "float64"):
        ratio = np.asarray(scale_c, np.float64) / np.float64(np.float32(out_scale))
        if not per_channel and float(in_scale) == float(out_scale):
            ratio = np.ones_like(ratio)
        bits = 32 if compute_dtype == "float32" else 64
        return _requantize_float(data, zero_c, ratio, int(out_zero), bits, upward)
    scale_b = np.broadcast_to(scale_c, data.shape).reshape(-1)
    zero_b = np.broadcast_to(zero_c, data.shape).reshape(-1)
    out = [
        _requantize_int(
            int(x), int(z), float(s), float(out_scale), int(out_zero), per_channel, upward
        )
        for x, z, s in zip(data.reshape(-1), zero_b, scale_b, strict=True)
    ]
    return np.asarray(out, dtype=np.int64).reshape(data.shape)


def _saturate(values: Array, dtype: str) -> Tensor:
    """Clip to ``dtype``'s range and cast (TVM's ``ConvertDtype``)."""
    info = np.iinfo(np.dtype(dtype))
    return np.asarray(np.clip(values, info.min, info.max)).astype(dtype)


def _requantize_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``qnn.requantize``; rounding "None" and compute_dtype "None" are ``RequantizeConfig``'s
    defaults, UPWARD and int64.

    Integer path: ``v = int32(data) - zero_point`` (int64 data is truncated to int32 first, as
    TVM's cast); per tensor, when the two scales are equal ``v`` is kept, otherwise the ratio
    ``float64(input_scale) / float64(output_scale)`` becomes a Q31 multiplier ``m`` and shift
    ``s`` (``frexp``; the significand times 2**31 rounded half away from zero, 2**31 becoming
    2**30 with ``s + 1``) and ``v`` becomes ``fixed_point_multiply(v, m, s)`` for UPWARD, or for
    TONEAREST the int64 computation ``((v << max(s, 0)) * m + 2**(r + 30) - (1 if negative)) >>
    (r + 31)``, truncated to int32 (halves away from zero); per channel the multiplier of each
    channel's ratio is applied by that int64 computation (halves up for UPWARD, always, even
    for equal scales). Then ``output_zero_point + v`` in int32, clipped to ``out_dtype`` unless
    that is int32. Float path (float32 or float64): ``(data - zero_point) * float(ratio) +
    output_zero_point`` in that float type, rounded (UPWARD: ``floor(x + 0.5)``; TONEAREST:
    halves away from zero), cast to int32, clipped unless int32.

    Fails with ``RelayRuntimeError`` for an output scale of 0 (TVM's ``ICHECK``), here and in
    the ops built on it. Undefined: the multiplications' cases of ``fixed_point_multiply``; a
    non-finite scale ratio (``frexp`` of it is unspecified); an int32 step that overflows
    (``data - zero_point``, the sum with the output zero point); on the float path a rounded
    value that int32 cannot hold (NaN, infinities, out of range)."""
    a = _attrs(attrs, RequantizeAttrs)
    data, in_scale, in_zero, out_scale, out_zero = args
    axis = _channel_axis(data.ndim, a.axis)
    values = _requantize_values(
        data, (in_scale, in_zero, out_scale, out_zero), axis, a.rounding, a.compute_dtype
    )
    if a.out_dtype == "int32":
        return np.asarray(values).astype(np.int32)
    return _saturate(values, a.out_dtype)


_QNN_DENSE_DATA = ("int8", "uint8", "int16", "uint16")


_QNN_DENSE_WEIGHT = ("int8", "uint8")


_QNN_DENSE_OUT = ("int32", "int64")


_QNN_CONV_INPUTS = ("int8", "uint8", "int16")


_QNN_CONV_OUT = ("int16", "int32", "int64")


_QNN_CONV_DATA_LAYOUTS = ("NCHW", "NHWC")


_QNN_CONV_KERNEL_LAYOUTS = ("OIHW", "HWIO", "HWOI", "OHWI")


def _dtype_in(t: TensorType, allowed: tuple[str, ...], what: str) -> None:
    if t.dtype not in allowed:
        raise RelationError(f"expected {what} of {', '.join(allowed)}, found {t.dtype}")


def _channel_param(t: TensorType, what: str, dtype: str, channels: Dim) -> None:
    """A kernel scale (float32) or zero point (int32): a scalar, or one value per output
    channel."""
    if t.dtype != dtype:
        raise RelationError(f"expected {dtype} for {what}, found {t.dtype}")
    if not t.shape:
        return
    if len(t.shape) != 1 or dims_equal(t.shape[0], channels) is False:
        raise RelationError(
            f"expected a scalar or {channels} values (one per output channel) for {what}, "
            f"found shape {tuple(t.shape)}"
        )


def _quantized_matmul_params(arg_types: tuple[TensorType, ...], channels: Dim) -> None:
    """The four parameters of qnn.dense and qnn.conv2d: input zero point and scale scalars,
    kernel zero point and scale scalars or per output channel."""
    _, _, in_zero, kernel_zero, in_scale, kernel_scale = arg_types
    _scalar_param(in_zero, "input_zero_point", "int32")
    _scalar_param(in_scale, "input_scale", "float32")
    _channel_param(kernel_zero, "kernel_zero_point", "int32", channels)
    _channel_param(kernel_scale, "kernel_scale", "float32", channels)


_MATMUL_INPUTS = (
    "data",
    "weight",
    "input_zero_point",
    "kernel_zero_point",
    "input_scale",
    "kernel_scale",
)


def _qnn_dense_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``QDense``: data int8, uint8, int16 or uint16, weight int8 or uint8, ``out_dtype`` int32
    or int64; ``nn.dense``'s rule for the shapes; input zero point and scale scalars; kernel
    zero point and scale scalars or one value per output channel.

    Departure from TVM: the kernel zero point is checked like the kernel scale (TVM's relation
    did not look at it)."""
    a = _attrs(attrs, DenseAttrs)
    types = _arity(arg_types, _MATMUL_INPUTS)
    data, weight = types[0], types[1]
    _dtype_in(data, _QNN_DENSE_DATA, "data")
    _dtype_in(weight, _QNN_DENSE_WEIGHT, "weight")
    if a.out_dtype not in _QNN_DENSE_OUT:
        raise RelationError(f'expected out_dtype int32 or int64, found "{a.out_dtype}"')
    out = _dense_relation((data, weight), a)
    assert isinstance(out, TensorType)
    _quantized_matmul_params(types, out.shape[-1])
    return out


def _qnn_conv2d_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``QnnConv2D``: data and weight int8, uint8 or int16, ``out_dtype`` int16, int32 or int64,
    data layout NCHW or NHWC, kernel layout OIHW, HWIO, HWOI or OHWI; ``nn.conv2d``'s rule for
    the shapes; input zero point and scale scalars; kernel zero point and scale scalars or one
    value per output channel.

    Departure from TVM: the kernel zero point is checked like the kernel scale."""
    a = _attrs(attrs, Conv2DAttrs)
    types = _arity(arg_types, _MATMUL_INPUTS)
    data, weight = types[0], types[1]
    _dtype_in(data, _QNN_CONV_INPUTS, "data")
    _dtype_in(weight, _QNN_CONV_INPUTS, "weight")
    if a.out_dtype not in _QNN_CONV_OUT:
        raise RelationError(f'expected out_dtype int16, int32 or int64, found "{a.out_dtype}"')
    if a.data_layout not in _QNN_CONV_DATA_LAYOUTS:
        raise RelationError(f'expected data_layout NCHW or NHWC, found "{a.data_layout}"')
    if a.kernel_layout not in _QNN_CONV_KERNEL_LAYOUTS:
        raise RelationError(
            f"expected kernel_layout one of {', '.join(_QNN_CONV_KERNEL_LAYOUTS)}, "
            f'found "{a.kernel_layout}"'
        )
    out = _conv2d_relation((data, weight), a)
    assert isinstance(out, TensorType)
    out_layout = a.out_layout or a.data_layout
    _quantized_matmul_params(types, out.shape[out_layout.index("C")])
    return out


def _shifted(x: Tensor, zero_point: Tensor, axis: int) -> Array:
    """``int64(x) - zero_point``, the zero point scalar or broadcast along ``axis``."""
    zp = np.asarray(zero_point, dtype=np.int64)
    if zp.ndim and x.ndim == 0:
        zp = zp.reshape(())
    elif zp.ndim:
        shape = [1] * x.ndim
        shape[axis] = zp.size
        zp = zp.reshape(shape)
    return np.asarray(x.astype(np.int64) - zp)


def _accumulate(
    name: str,
    core: TensorReference,
    attrs: Attrs,
    pairs: tuple[tuple[Array, Array], ...],
    dtype: str,
) -> Tensor:
    """Run the float-free core (nn.dense or nn.conv2d) in int64 on each (data, weight) pair;
    the first pair's result is the value, every result must fit the output dtype."""
    wide = dataclasses.replace(attrs, out_dtype="int64")  # type: ignore[type-var]
    bits = np.iinfo(np.dtype(dtype)).bits
    results = []
    for x, w in pairs:
        out = core((x, w), wide)
        assert isinstance(out, np.ndarray)
        if out.size and not (_fits(int(out.min()), bits) and _fits(int(out.max()), bits)):
            raise UndefinedBehavior(f"{name}: the {dtype} accumulation overflows")
        results.append(out)
    return results[0].astype(dtype)


def _qnn_dense_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``qnn.dense``: ``nn.dense`` of ``data - input_zero_point`` and ``weight -
    kernel_zero_point`` (per output channel: the weight's O axis), accumulated exactly. Scales
    do not enter.

    Undefined: an accumulation that ``out_dtype`` cannot hold, either the shifted sum or
    ``sum(data * weight)`` (TVM's first term, computed in ``out_dtype``)."""
    a = _attrs(attrs, DenseAttrs)
    data, weight, in_zero, kernel_zero = args[:4]
    shifted = (_shifted(data, in_zero, 0), _shifted(weight, kernel_zero, 0))
    raw = (data.astype(np.int64), weight.astype(np.int64))
    return _accumulate("qnn.dense", _dense_reference, a, (shifted, raw), a.out_dtype)


def _qnn_conv2d_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``qnn.conv2d``: ``nn.conv2d`` of ``data - input_zero_point`` and ``weight -
    kernel_zero_point`` (per output channel: the weight's O axis, or for a depthwise weight
    ``(C, m, ..)`` the output channel ``c * m + q``), accumulated exactly; padding contributes
    nothing (TVM pads with the input zero point). Scales do not enter.

    Undefined: as for ``qnn.dense``."""
    a = _attrs(attrs, Conv2DAttrs)
    data, weight, in_zero, kernel_zero = args[:4]
    o_axis, i_axis = a.kernel_layout.index("O"), a.kernel_layout.index("I")
    channels = data.shape[a.data_layout.index("C")]
    zp = np.asarray(kernel_zero, np.int64)
    if zp.ndim and a.groups > 1 and weight.shape[i_axis] != channels // a.groups:
        # Depthwise with a channel multiplier m: output channel c*m + q reads the weight at
        # O index c and I index q (as nn.conv2d), so its zero point is zp[c*m + q].
        table = zp.reshape(weight.shape[o_axis], weight.shape[i_axis])
        if o_axis > i_axis:
            table = table.T
        shape = [1] * weight.ndim
        shape[o_axis], shape[i_axis] = weight.shape[o_axis], weight.shape[i_axis]
        kernel = np.asarray(weight.astype(np.int64) - table.reshape(shape))
    else:
        kernel = _shifted(weight, kernel_zero, o_axis)
    shifted = (_shifted(data, in_zero, 0), kernel)
    raw = (data.astype(np.int64), weight.astype(np.int64))
    return _accumulate("qnn.conv2d", _conv2d_reference, a, (shifted, raw), a.out_dtype)


_QNN_BINARY = ("int8", "uint8", "int16", "int32")


_BINARY_INPUTS = (
    "lhs",
    "rhs",
    "lhs_scale",
    "lhs_zero_point",
    "rhs_scale",
    "rhs_zero_point",
    "output_scale",
    "output_zero_point",
)


def _qnn_broadcast_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``QnnBroadcast`` (qnn.add, qnn.mul): lhs and rhs of one dtype among int8, uint8, int16,
    int32; a side whose scale and zero point are both scalars is per tensor, otherwise its
    channel axis (0 for rank <= 1, else ``*_axis``, negative from the end) must be in range and
    each of the two parameters is a scalar or one value per channel; output parameters scalars;
    the shapes broadcast; lhs's dtype.

    Departure from TVM: quantized dtypes are required (TVM's relation did not check them;
    canonicalisation then failed)."""
    a = _attrs(attrs, BroadcastAttrs)
    types = _arity(arg_types, _BINARY_INPUTS)
    lhs, rhs = types[0], types[1]
    for t, what in ((lhs, "lhs"), (rhs, "rhs")):
        _dtype_in(t, _QNN_BINARY, what)
    if lhs.dtype != rhs.dtype:
        raise RelationError(f"data types {lhs.dtype} and {rhs.dtype} do not match")
    for t, axis, side in ((lhs, a.lhs_axis, "lhs"), (rhs, a.rhs_axis, "rhs")):
        scale, zero_point = types[2:4] if side == "lhs" else types[4:6]
        rank = len(t.shape)
        if not (scale.shape or zero_point.shape):
            _scalar_param(scale, f"{side}_scale", "float32")
            _scalar_param(zero_point, f"{side}_zero_point", "int32")
            continue
        # TVM's get_channel_axis: rank <= 1 means axis 0, whatever the attribute says.
        channel = 0 if rank <= 1 else (rank + axis if axis < 0 else axis)
        if not 0 <= channel < max(rank, 1):
            raise RelationError(f"{side}_axis={axis} is out of range for {side} of rank {rank}")
        channels: Dim = t.shape[channel] if rank else 1
        _channel_param(scale, f"{side}_scale", "float32", channels)
        _channel_param(zero_point, f"{side}_zero_point", "int32", channels)
    _scalar_param(types[6], "output_scale", "float32")
    _scalar_param(types[7], "output_zero_point", "int32")
    try:
        shape = broadcast_shapes(lhs.shape, rhs.shape)
    except RelationError as e:
        raise RelationError(f"incompatible broadcast of lhs and rhs: {e}") from None
    return TensorType(shape, lhs.dtype)


def _binary_axes(
    lhs: Tensor, rhs: Tensor, scales: tuple[Tensor, ...], a: BroadcastAttrs
) -> tuple[int, int]:
    """The channel axes of lhs and rhs; per-channel parameters need operands of one rank."""
    if any(np.asarray(s).ndim for s in scales) and lhs.ndim != rhs.ndim:
        raise UndefinedBehavior(
            "per-channel parameters with lhs and rhs of different ranks (TVM aligns both on "
            "the lhs's rank)"
        )
    return tuple(  # type: ignore[return-value]
        0 if t.ndim <= 1 else axis % t.ndim for t, axis in ((lhs, a.lhs_axis), (rhs, a.rhs_axis))
    )


def _int32_result(values: Array, name: str, what: str) -> Array:
    if values.size and (values.min() < -(2**31) or values.max() >= 2**31):
        raise UndefinedBehavior(f"{name}: {what} overflows int32 (nsw)")
    return values


def _qnn_add_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``qnn.add``: each operand requantized (default rounding, int32 output, per channel along
    its axis) to the output's scale and zero point, then ``lhs' + rhs' - output_zero_point`` in
    int32, clipped to the operands' dtype.

    Undefined: an int32 sum or difference that overflows; per-channel parameters with operands
    of different ranks (TVM aligns both sides on the lhs's rank)."""
    a = _attrs(attrs, BroadcastAttrs)
    lhs, rhs, lhs_s, lhs_z, rhs_s, rhs_z, out_s, out_z = args
    lhs_axis, rhs_axis = _binary_axes(lhs, rhs, (lhs_s, lhs_z, rhs_s, rhs_z), a)
    left = _requantize_values(lhs, (lhs_s, lhs_z, out_s, out_z), lhs_axis, "UPWARD", "int64")
    right = _requantize_values(rhs, (rhs_s, rhs_z, out_s, out_z), rhs_axis, "UPWARD", "int64")
    total = _int32_result(np.asarray(left + right), "qnn.add", "the sum")
    total = _int32_result(
        np.asarray(total - int(out_z)), "qnn.add", "subtracting output_zero_point"
    )
    return _saturate(total, lhs.dtype.name)


def _qnn_mul_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``qnn.mul`` with scalar scales: ``(int32(lhs) - lhs_zp) * (int32(rhs) - rhs_zp)`` in
    int32, requantized from the scale ``float32(lhs_scale * rhs_scale)`` and zero point 0 to the
    output's parameters and dtype; with per-channel scales (``lhs_axis == rhs_axis``) the same
    with one float32 product of scales per channel.

    Departure from TVM: the per-tensor branch subtracts a zero-point vector along the channel
    axis (TVM broadcast it against the last axis). Fails with ``RelayRuntimeError`` for
    per-channel scales with ``lhs_axis != rhs_axis`` (TVM: "not supported"). Undefined: an int32
    difference or product that overflows; per-channel parameters with operands of different
    ranks; per-channel scales of different lengths (TVM reads the rhs's out of bounds)."""
    a = _attrs(attrs, BroadcastAttrs)
    lhs, rhs, lhs_s, lhs_z, rhs_s, rhs_z, out_s, out_z = args
    lhs_axis, rhs_axis = _binary_axes(lhs, rhs, (lhs_s, lhs_z, rhs_s, rhs_z), a)
    zero = np.asarray(0, np.int32)
    left = _int32_result(_shifted(lhs, lhs_z, lhs_axis), "qnn.mul", "lhs - lhs_zero_point")
    right = _int32_result(_shifted(rhs, rhs_z, rhs_axis), "qnn.mul", "rhs - rhs_zero_point")
    product = _int32_result(np.asarray(left * right), "qnn.mul", "the product")
    if lhs_s.ndim == 0 and rhs_s.ndim == 0:
        scale = np.asarray(np.float32(lhs_s) * np.float32(rhs_s), np.float32)
        values = _requantize_values(product, (scale, zero, out_s, out_z), 0, "UPWARD", "int64")
        return _saturate(values, lhs.dtype.name)
    if a.lhs_axis != a.rhs_axis:
        raise RelayRuntimeError("qnn.mul: lhs_axis and rhs_axis differ (not supported)")
    lhs_v, rhs_v = np.asarray(lhs_s).reshape(-1), np.asarray(rhs_s).reshape(-1)
    if lhs_v.size != rhs_v.size:
        raise UndefinedBehavior(
            f"qnn.mul: {lhs_v.size} lhs scales and {rhs_v.size} rhs scales (TVM reads one "
            "rhs scale per lhs scale)"
        )
    scales = (lhs_v.astype(np.float64) * rhs_v.astype(np.float64)).astype(np.float32)
    values = _requantize_values(product, (scales, zero, out_s, out_z), lhs_axis, "UPWARD", "int64")
    return _saturate(values, lhs.dtype.name)


_CONCAT_INPUTS = ("data", "input_scales", "input_zero_points", "output_scale", "output_zero_point")


def _qnn_concatenate_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``QnnConcatenate``: a tuple of int8/uint8/int16/int32 tensors, a tuple of as many scalar
    scales and one of as many scalar zero points, scalar output parameters; then
    ``concatenate``'s rule.

    Departure from TVM: quantized dtypes and one scale and zero point per input are
    required."""
    a = _attrs(attrs, ConcatenateAttrs)
    if len(arg_types) != len(_CONCAT_INPUTS):
        raise RelationError(f"expected 5 argument(s), found {len(arg_types)}")
    data = tuple_arg(arg_types[0], "data")
    scales = tuple_arg(arg_types[1], "input_scales")
    zero_points = tuple_arg(arg_types[2], "input_zero_points")
    if not len(data) == len(scales) == len(zero_points):
        raise RelationError(
            f"expected one scale and zero point per input: {len(data)} inputs, "
            f"{len(scales)} input_scales and {len(zero_points)} input_zero_points"
        )
    for i, (s, z) in enumerate(zip(scales, zero_points, strict=True)):
        _scalar_param(s, f"input_scales field {i}", "float32")
        _scalar_param(z, f"input_zero_points field {i}", "int32")
    _scalar_param(tensor_arg(arg_types[3], "output_scale"), "output_scale", "float32")
    _scalar_param(tensor_arg(arg_types[4], "output_zero_point"), "output_zero_point", "int32")
    for i, t in enumerate(data):
        _dtype_in(t, _QNN_BINARY, f"data field {i}")
    return _concatenate_relation((arg_types[0],), a)


def _qnn_concatenate_reference(args: tuple[OpInput, ...], attrs: Attrs | None) -> Tensor:
    """``qnn.concatenate``: each input whose scale and zero point equal the output's is kept,
    the others requantized (default rounding) to the output's parameters and the first input's
    dtype; then concatenated.

    Undefined: as for ``qnn.requantize``."""
    a = _attrs(attrs, ConcatenateAttrs)
    data, scales, zero_points = (tuple_input(args[i]) for i in range(3))
    out_s, out_z = array_input(args[3]), array_input(args[4])
    dtype = data[0].dtype.name
    parts = []
    for x, s, z in zip(data, scales, zero_points, strict=True):
        if float(s) == float(out_s) and int(z) == int(out_z):
            parts.append(x)
            continue
        values = _requantize_values(x, (s, z, out_s, out_z), 0, "UPWARD", "int64")
        parts.append(values.astype(np.int32) if dtype == "int32" else _saturate(values, dtype))
    return np.concatenate(parts, axis=a.axis)


_op = OpRegistrar(__name__, relation_name="QnnBroadcast", pattern=OpPattern.OPAQUE)


_op(
    "qnn.quantize",
    "Quantize float32 data with a scale and zero point (per tensor or per channel).",
    relation=_quantize_relation,
    reference=tensor_reference(_quantize_reference),
    check="onnxruntime:QuantizeLinear",
    relation_name="Quantize",
    inputs=("data", "output_scale", "output_zero_point"),
    attrs_type=QuantizeAttrs,
)


_op(
    "qnn.dequantize",
    "Dequantize data with a scale and zero point (per tensor or per channel).",
    relation=_dequantize_relation,
    reference=tensor_reference(_dequantize_reference),
    check="onnxruntime:DequantizeLinear",
    relation_name="Dequantize",
    inputs=("data", "input_scale", "input_zero_point"),
    attrs_type=DequantizeAttrs,
)


_op(
    "fixed_point_multiply",
    "Multiply int32 data by the fixed-point number multiplier * 2**(shift - 31).",
    relation=_fixed_point_multiply_relation,
    reference=tensor_reference(_fixed_point_multiply_reference),
    check="independent:exact rational rounding with fractions.Fraction",
    relation_name="Identity",
    inputs=("data",),
    attrs_type=FixedPointMultiplyAttrs,
    pattern=OpPattern.ELEMWISE,
)


_op(
    "qnn.requantize",
    "Convert quantized data to another scale and zero point, in integer arithmetic.",
    relation=_requantize_relation,
    reference=tensor_reference(_requantize_reference),
    check="independent:exact rational rounding with fractions.Fraction",
    relation_name="Requantize",
    inputs=("data", "input_scale", "input_zero_point", "output_scale", "output_zero_point"),
    attrs_type=RequantizeAttrs,
)


_op(
    "qnn.dense",
    "Quantized dense: sum over k of (data - zp) * (weight - kernel zp), in int32.",
    relation=_qnn_dense_relation,
    reference=tensor_reference(_qnn_dense_reference),
    check="onnxruntime:MatMulInteger",
    relation_name="QDense",
    inputs=_MATMUL_INPUTS,
    attrs_type=DenseAttrs,
)


_op(
    "qnn.conv2d",
    "Quantized 2-D convolution of zero-point-shifted data and weight, in int32.",
    relation=_qnn_conv2d_relation,
    reference=tensor_reference(_qnn_conv2d_reference),
    check="onnxruntime:ConvInteger",
    relation_name="QnnConv2D",
    inputs=_MATMUL_INPUTS,
    attrs_type=Conv2DAttrs,
)


_op(
    "qnn.add",
    "Quantized addition with broadcasting: both operands requantized to the output.",
    relation=_qnn_broadcast_relation,
    reference=tensor_reference(_qnn_add_reference),
    check="independent:exact rational rounding with fractions.Fraction",
    inputs=_BINARY_INPUTS,
    attrs_type=BroadcastAttrs,
)


_op(
    "qnn.mul",
    "Quantized multiplication with broadcasting: the product requantized to the output.",
    relation=_qnn_broadcast_relation,
    reference=tensor_reference(_qnn_mul_reference),
    check="independent:exact rational rounding with fractions.Fraction",
    inputs=_BINARY_INPUTS,
    attrs_type=BroadcastAttrs,
    pattern=OpPattern.BROADCAST,
)


_op(
    "qnn.concatenate",
    "Concatenate quantized tensors, requantizing each to the output's parameters.",
    relation=_qnn_concatenate_relation,
    reference=_qnn_concatenate_reference,
    check="independent:exact rational rounding with fractions.Fraction",
    relation_name="QnnConcatenate",
    inputs=_CONCAT_INPUTS,
    attrs_type=ConcatenateAttrs,
)
