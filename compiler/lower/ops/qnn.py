"""Lowerings of ``semantics/ops/qnn.py``: ``qnn.quantize`` and ``qnn.dequantize`` (computes with
the reference's exact rounding: ``llvm.round``, halves away from zero, as ``trunc`` and a
correction; TVM's ordered ``clip``), ``fixed_point_multiply`` (the reference's integer
``q_multiply_shift`` with its static multiplier and shift), ``qnn.dense`` and ``qnn.conv2d``
(``nn.dense``/``nn.conv2d``'s lowerings over the zero-point-shifted operands, in
``out_dtype``). The other qnn operators are unsupported (reasons below).

Scale and zero point are scalars, one-element vectors or vectors along ``axis``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ....semantics.ops.nn.conv import Conv2DAttrs
from ....semantics.ops.nn.dense import DenseAttrs
from ....semantics.ops.qnn import DequantizeAttrs, FixedPointMultiplyAttrs, QuantizeAttrs
from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import ir, te
from .. import schedules as sch
from .nn.common import cast, tensor
from .nn.conv import lower_conv2d
from .nn.dense import lower_dense


def _bin(op: ir.BinOp, a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return ir.Binary(op, a, b)


def _param(p: te.Tensor, ix: te.Indices, axis: int) -> ir.PrimExpr:
    """A scalar or per-channel parameter at element ``ix`` of the data."""
    if sch.static(sch.product(p.shape)) == 1 or not ix:
        return p(*(ir.index(0) for _ in p.shape))
    return p(ix[axis % len(ix)])


def round_half_away(x: ir.PrimExpr) -> ir.PrimExpr:
    """``llvm.round``: ``t = trunc(x); |x - t| >= 0.5 ? t + sign(x) : t`` (exact)."""
    dt = x.dtype
    t = ir.Call("trunc", (x,), dt)
    frac = ir.Call("fabs", (_bin(ir.BinOp.SUB, x, t),), dt)
    sign = ir.Call("copysign", (ir.const(1.0, dt), x), dt)
    return ir.Select(_bin(ir.BinOp.GE, frac, ir.const(0.5, dt)), _bin(ir.BinOp.ADD, t, sign), t)


def clip(x: ir.PrimExpr, low: float, high: float) -> ir.PrimExpr:
    """TVM's clip: ``max(min(x, high), low)`` with ordered comparisons (NaN becomes high)."""
    hi, lo = ir.const(high, x.dtype), ir.const(low, x.dtype)
    lowest = ir.Select(_bin(ir.BinOp.LT, x, hi), x, hi)
    return ir.Select(_bin(ir.BinOp.GT, lowest, lo), lowest, lo)


@te.lowering("qnn.quantize")
def lower_quantize(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``clip(round(data / scale) + float32(zero_point), qmin, qmax)`` in float32, cast."""
    assert isinstance(attrs, QuantizeAttrs)
    data, scale, zero = (tensor(args, i, "qnn.quantize") for i in range(3))
    info = np.iinfo(np.dtype(attrs.out_dtype))
    f32 = "float32"

    def element(ix: te.Indices) -> ir.PrimExpr:
        scaled = _bin(ir.BinOp.DIV, cast(data(*ix), f32), cast(_param(scale, ix, attrs.axis), f32))
        shifted = _bin(
            ir.BinOp.ADD, round_half_away(scaled), cast(_param(zero, ix, attrs.axis), f32)
        )
        return ir.Cast(attrs.out_dtype, clip(shifted, float(info.min), float(info.max)))

    return te.compute(data.shape, attrs.out_dtype, element, ctx.fresh("quantize"))


@te.lowering("qnn.dequantize")
def lower_dequantize(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``float32(int32(data) - zero_point) * scale`` (float16: clipped to its finite range
    and rounded)."""
    assert isinstance(attrs, DequantizeAttrs)
    data, scale, zero = (tensor(args, i, "qnn.dequantize") for i in range(3))
    f32 = "float32"

    def element(ix: te.Indices) -> ir.PrimExpr:
        shift = _bin(
            ir.BinOp.SUB, cast(data(*ix), "int32"), cast(_param(zero, ix, attrs.axis), "int32")
        )
        real = _bin(ir.BinOp.MUL, cast(shift, f32), cast(_param(scale, ix, attrs.axis), f32))
        if attrs.out_dtype == "float32":
            return real
        limit = float(np.finfo(np.float16).max)
        return ir.Cast("float16", clip(real, -limit, limit))

    return te.compute(data.shape, attrs.out_dtype, element, ctx.fresh("dequantize"))


def _shl(x: ir.PrimExpr, amount: int) -> ir.PrimExpr:
    return x if amount == 0 else _bin(ir.BinOp.SHL, x, ir.const(amount, x.dtype))


def _shr(x: ir.PrimExpr, amount: int) -> ir.PrimExpr:
    return x if amount == 0 else _bin(ir.BinOp.SHR, x, ir.const(amount, x.dtype))


def q_multiply_shift(x: ir.PrimExpr, multiplier: int, shift: int) -> ir.PrimExpr:
    """``x * multiplier * 2**(shift - 31)`` rounded half up (int32 ``x``), as the reference's
    ``_q_multiply_shift`` legalises it: int32 shifts for the multiplier ``2**30``, else int64
    arithmetic truncated to int32. Shift amounts the reference calls undefined are clamped to
    the bit width (any value is allowed there)."""
    if multiplier == 1 << 30:
        exponent = shift - 1
        if exponent > 0:
            return _shl(x, min(exponent, 31))
        e = min(max(-exponent, 1), 31)
        return _shr(_bin(ir.BinOp.ADD, x, ir.const(1 << (e - 1), "int32")), e)
    left, right = max(shift, 0), max(-shift, 0)
    total = min(right + 31, 63)
    value = _shl(cast(x, "int64"), min(left, 63))
    value = _bin(ir.BinOp.MUL, value, ir.const(multiplier, "int64"))
    value = _bin(ir.BinOp.ADD, value, ir.const(1 << (total - 1), "int64"))
    return ir.Cast("int32", _shr(value, total))


@te.lowering("fixed_point_multiply")
def lower_fixed_point_multiply(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``q_multiply_shift`` of each element with the static multiplier and shift."""
    assert isinstance(attrs, FixedPointMultiplyAttrs)
    data = tensor(args, 0, "fixed_point_multiply")
    m, shift = attrs.multiplier, attrs.shift

    def element(ix: te.Indices) -> ir.PrimExpr:
        return q_multiply_shift(data(*ix), m, shift)

    return te.compute(data.shape, "int32", element, ctx.fresh("fixed_point_multiply"))


def _shifted(
    name: str,
    t: te.Tensor,
    zero: te.Tensor,
    dtype: str,
    channel: Callable[[te.Indices], ir.PrimExpr],
) -> te.Tensor:
    """``dtype(t) - dtype(zero_point)``, the zero point a scalar or indexed by ``channel``."""
    scalar = not zero.shape

    def element(ix: te.Indices) -> ir.PrimExpr:
        zp = zero() if scalar else zero(channel(ix))
        return _bin(ir.BinOp.SUB, cast(t(*ix), dtype), cast(zp, dtype))

    return te.compute(t.shape, dtype, element, name)


@te.lowering("qnn.dense")
def lower_qnn_dense(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``nn.dense`` of ``data - input_zero_point`` and ``weight - kernel_zero_point`` (per
    output channel: the weight's first axis) in ``out_dtype`` (an accumulation it cannot hold
    is undefined, so wrapping arithmetic agrees wherever the reference is defined)."""
    assert isinstance(attrs, DenseAttrs)
    data, weight, in_zero, kernel_zero = (tensor(args, i, "qnn.dense") for i in range(4))
    dtype = attrs.out_dtype
    x = _shifted(ctx.fresh("qdata"), data, in_zero, dtype, lambda ix: ir.index(0))
    w = _shifted(ctx.fresh("qweight"), weight, kernel_zero, dtype, lambda ix: ix[0])
    return lower_dense(ctx, (x, w), attrs, arg_types[:2], out_type)


@te.lowering("qnn.conv2d")
def lower_qnn_conv2d(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``nn.conv2d`` of the shifted data and weight in ``out_dtype`` (padding reads 0, the
    shifted input zero point). A per-channel kernel zero point is indexed by the weight's O
    index, or for a depthwise weight with a channel multiplier ``m`` (the I extent) by
    ``O * m + I`` (the output channel)."""
    assert isinstance(attrs, Conv2DAttrs)
    data, weight, in_zero, kernel_zero = (tensor(args, i, "qnn.conv2d") for i in range(4))
    dtype = attrs.out_dtype
    o_axis, i_axis = attrs.kernel_layout.index("O"), attrs.kernel_layout.index("I")
    channels = sch.static(data.shape[attrs.data_layout.index("C")])
    inner = weight.shape[i_axis]
    multiplier = False
    if attrs.groups > 1 and kernel_zero.shape != ():
        if channels is None or sch.static(inner) is None:
            raise te.LoweringError(
                "qnn.conv2d",
                "a per-channel kernel zero point of a grouped convolution needs "
                "static channel extents",
            )
        multiplier = sch.static(inner) != channels // attrs.groups

    def channel(ix: te.Indices) -> ir.PrimExpr:
        if multiplier:
            return sch.add(sch.mul(ix[o_axis], inner), ix[i_axis])
        return ix[o_axis]

    x = _shifted(ctx.fresh("qdata"), data, in_zero, dtype, lambda ix: ir.index(0))
    w = _shifted(ctx.fresh("qweight"), weight, kernel_zero, dtype, channel)
    return lower_conv2d(ctx, (x, w), attrs, arg_types[:2], out_type)


_QNN = "not lowered yet: TVM's fixed-point requantization (a compute to write)"
for _name in (
    "qnn.requantize",
    "qnn.add",
    "qnn.mul",
    "qnn.concatenate",
):
    te.unsupported(_name, _QNN)
