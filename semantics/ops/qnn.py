"""Quantized operators: conversions between real and quantized tensors, fixed-point multiply.

::

    qnn.quantize(data, output_scale, output_zero_point, out_dtype=, axis=-1)
                                                      QuantizeAttrs       Quantize    opaque
    qnn.dequantize(data, input_scale, input_zero_point, out_dtype="float32", axis=-1)
                                                      DequantizeAttrs     Dequantize  opaque
    fixed_point_multiply(data, multiplier=, shift=)   FixedPointMultiplyAttrs
                                                                          Identity    elemwise

``name=`` marks a required attribute. Fields follow TVM 0.18's ``include/tvm/relay/qnn/attrs.h``
and ``include/tvm/relay/attrs/transform.h``; relations ``src/relay/qnn/op/quantize.cc``,
``dequantize.cc`` and ``src/relay/op/tensor/unary.cc``. The QNN ops register no pattern
(TVM's default, opaque): they are rewritten by QNN canonicalisation before fusion.

Typing. ``Quantize``: data is float32; out_dtype is int8, uint8, int16, uint16 or int32.
``Dequantize``: data is int8, uint8, int16, uint16 or int32; out_dtype is float16 or float32.
Both: the scale is float32 and the zero point int32, each either a scalar (rank 0; for
dequantize also a rank-1 tensor of one element) or a vector of ``data.shape[axis]`` elements
(per-channel quantisation along ``axis``); the result has data's shape. ``Identity``
(fixed_point_multiply): data is int32, the result has its type.

Meaning: what QNN canonicalisation (``QuantizeLower``, ``DequantizeLower``) and TOPI's
``fixed_point_multiply`` (``tir.q_multiply_shift``, legalised in
``src/target/intrin_rule.cc``) compute:

- ``qnn.quantize``: ``clip(round(data / scale) + float32(zero_point), qmin, qmax)`` in float32,
  then cast to out_dtype; ``round`` rounds halves away from zero (``llvm.round``); ``clip``
  is ``max(min(x, qmax), qmin)`` with ordered comparisons, so NaN becomes qmax and infinities
  saturate. Defined for every input (a zero scale gives infinities or NaN, then saturates).
- ``qnn.dequantize``: ``float32(int32(data) - zero_point) * scale``; for float16 output the
  float32 value is clipped to float16's finite range (NaN to its maximum) and rounded.
- ``fixed_point_multiply``: ``x * multiplier * 2**(shift - 31)`` rounded half up, in integer
  arithmetic. With ``multiplier == 2**30`` (a power of two) TVM computes in int32:
  ``x << (shift - 1)`` (wrapping) when ``shift > 1``, else ``(x + 2**(e - 1)) >> e`` with
  ``e = 1 - shift``. Otherwise in int64: ``((x << max(shift, 0)) * multiplier +
  2**(r + 30)) >> (r + 31)`` with ``r = max(-shift, 0)``, the shift wrapping, the result
  truncated to int32.

Undefined behaviour (``UndefinedBehavior``):

- ``qnn.dequantize`` of int32 data whose ``data - zero_point`` overflows int32 (``nsw``);
- ``fixed_point_multiply`` whose int64 product or rounding addition overflows, whose int32
  rounding addition overflows (power-of-two case), or whose shift amounts are negative or at
  least the bit width (``shift == 1`` with multiplier ``2**30``, ``|shift|`` too large): LLVM's
  ``nsw`` arithmetic and out-of-range shifts give poison.

Deliberate departures from TVM: ``fixed_point_multiply`` requires int32 data (TVM's Identity
relation accepted any dtype and lowering then failed); a quantize axis must be in range for
data of rank >= 1 even with scalar parameters (TVM read ``shape[axis]`` unchecked).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from ..errors import UndefinedBehavior
from ..syntax import TensorType, Type
from .registry import (
    AttrKind,
    Attrs,
    OpDef,
    OpPattern,
    RelationError,
    Tensor,
    attr_field,
    register,
)
from .shapes import dims_equal, tensor_arg


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
        raise RelationError(f"axis {axis} is out of range for data of rank {rank}")
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


# ---------------------------------------------------------------------------------------------
# qnn.quantize, qnn.dequantize


def _quantize_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
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


# ---------------------------------------------------------------------------------------------
# fixed_point_multiply


def _fixed_point_multiply_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
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
    a = _attrs(attrs, FixedPointMultiplyAttrs)
    (data,) = args
    out = [_q_multiply_shift(int(x), a.multiplier, a.shift) for x in data.reshape(-1)]
    return np.asarray(out, dtype=np.int32).reshape(data.shape)


# ---------------------------------------------------------------------------------------------
# Records

_FAMILY = "quantized"

register(
    OpDef(
        "qnn.quantize",
        ("data", "output_scale", "output_zero_point"),
        QuantizeAttrs,
        OpPattern.OPAQUE,
        "Quantize float32 data with a scale and zero point (per tensor or per channel).",
        relation=_quantize_relation,
        reference=_quantize_reference,
        relation_name="Quantize",
        family=_FAMILY,
        check="onnxruntime:QuantizeLinear",
    )
)
register(
    OpDef(
        "qnn.dequantize",
        ("data", "input_scale", "input_zero_point"),
        DequantizeAttrs,
        OpPattern.OPAQUE,
        "Dequantize data with a scale and zero point (per tensor or per channel).",
        relation=_dequantize_relation,
        reference=_dequantize_reference,
        relation_name="Dequantize",
        family=_FAMILY,
        check="onnxruntime:DequantizeLinear",
    )
)
register(
    OpDef(
        "fixed_point_multiply",
        ("data",),
        FixedPointMultiplyAttrs,
        OpPattern.ELEMWISE,
        "Multiply int32 data by the fixed-point number multiplier * 2**(shift - 31).",
        relation=_fixed_point_multiply_relation,
        reference=_fixed_point_multiply_reference,
        relation_name="Identity",
        family=_FAMILY,
        check="independent:exact rational rounding with fractions.Fraction",
    )
)
