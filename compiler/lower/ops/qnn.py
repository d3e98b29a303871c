"""Lowerings of ``semantics/ops/qnn.py``: ``qnn.quantize`` and ``qnn.dequantize`` (computes with
the reference's exact rounding: ``llvm.round``, halves away from zero, as ``trunc`` and a
correction; TVM's ordered ``clip``), ``fixed_point_multiply`` (the reference's integer
``q_multiply_shift`` with its static multiplier and shift), ``qnn.dense`` and ``qnn.conv2d``
(``nn.dense``/``nn.conv2d``'s lowerings over the zero-point-shifted operands, in
``out_dtype``), and the requantizing operators: ``qnn.requantize``, ``qnn.add``, ``qnn.mul``,
``qnn.concatenate``. Their scales are tensors read at run time, so the kernel computes TVM's
fixed-point multiplier and shift of each scale ratio itself (``fixed_point``: ``frexp`` from
``log2`` corrected by exact power-of-two comparisons, the significand rounded half away from
zero), then the reference's int32/int64 steps (``q_multiply_shift_dynamic``, the per-channel
and to-nearest ``_wide_round``) or its float path; shift amounts that the reference calls
undefined are clamped so that both arms of every select stay defined. Not detected: an output
scale of 0 (a run-time error of the reference; the kernel's result is then unspecified).

Scale and zero point are scalars, one-element vectors or vectors along ``axis``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ....semantics.ops.nn.conv import Conv2DAttrs
from ....semantics.ops.nn.dense import DenseAttrs
from ....semantics.ops.qnn import (
    BroadcastAttrs,
    DequantizeAttrs,
    FixedPointMultiplyAttrs,
    QuantizeAttrs,
    RequantizeAttrs,
)
from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import ir, te
from .. import schedules as sch
from .nn.common import cast, out_shape, tensor
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


# ---------------------------------------------------------------------------------------------
# Requantization with run-time scales


I64, I32, F64 = "int64", "int32", "float64"


def _i64(v: int) -> ir.Const:
    return ir.const(v, I64)


def _sel(c: ir.PrimExpr, t: ir.PrimExpr, f: ir.PrimExpr) -> ir.PrimExpr:
    return ir.Select(c, t, f)


def _clamp_shift(amount: ir.PrimExpr, high: int) -> ir.PrimExpr:
    """A shift amount clamped into ``[0, high]``: where the reference's amount is outside, the
    result is undefined anyway; the clamp keeps both arms of a select defined."""
    return _bin(ir.BinOp.MAX, _bin(ir.BinOp.MIN, amount, ir.const(high, amount.dtype)),
                ir.const(0, amount.dtype))  # fmt: skip


def fixed_point(ratio: ir.PrimExpr) -> tuple[ir.PrimExpr, ir.PrimExpr]:
    """TVM's ``GetFixedPointMultiplierShift`` of a float64 ``ratio`` at run time, as int64
    ``(m, shift)`` with ``ratio = m * 2**(shift - 31)``: ``frexp`` (the exponent from ``log2``,
    corrected by exact comparisons with powers of two), the significand times 2**31 rounded
    half away from zero, 2**31 becoming 2**30 with ``shift + 1``; ``(0, 0)`` for 0. A ratio
    that is not finite is undefined (its value here is unspecified)."""
    a = ir.Call("fabs", (ratio,), F64)
    zero = _bin(ir.BinOp.EQ, a, ir.const(0.0, F64))
    finite = ir.Call("isfinite", (a,), "bool")
    safe = _sel(_bin(ir.BinOp.AND, finite, ir.Unary(ir.UnOp.NOT, zero)), a, ir.const(1.0, F64))
    e0 = sch.add(ir.Cast(I64, ir.Call("floor", (ir.Call("log2", (safe,), F64),), F64)), 1)
    e0 = _bin(ir.BinOp.MAX, _bin(ir.BinOp.MIN, e0, _i64(1100)), _i64(-1100))

    def pow2(e: ir.PrimExpr) -> ir.PrimExpr:
        return ir.Call("pow", (ir.const(2.0, F64), ir.Cast(F64, e)), F64)

    low = pow2(sch.sub(e0, 1))
    e = sch.sub(
        sch.add(
            e0, cast(_bin(ir.BinOp.GE, safe, _bin(ir.BinOp.MUL, low, ir.const(2.0, F64))), I64)
        ),
        cast(_bin(ir.BinOp.LT, safe, low), I64),
    )
    scaled = _bin(ir.BinOp.MUL, _bin(ir.BinOp.DIV, safe, pow2(e)), ir.const(2.0**31, F64))
    whole = ir.Call("floor", (scaled,), F64)
    up = _bin(ir.BinOp.GE, _bin(ir.BinOp.SUB, scaled, whole), ir.const(0.5, F64))
    m = sch.add(ir.Cast(I64, whole), cast(up, I64))
    negative = _bin(ir.BinOp.LT, ratio, ir.const(0.0, F64))
    top = _bin(ir.BinOp.EQ, m, _i64(1 << 31))
    m = _sel(negative, ir.Unary(ir.UnOp.NEG, m), _sel(top, _i64(1 << 30), m))
    e = _sel(_bin(ir.BinOp.AND, top, ir.Unary(ir.UnOp.NOT, negative)), sch.add(e, 1), e)
    return _sel(zero, _i64(0), m), _sel(zero, _i64(0), e)


def _wide_round(
    x: ir.PrimExpr, m: ir.PrimExpr, shift: ir.PrimExpr, away: bool | None
) -> ir.PrimExpr:
    """``((int64(x) << max(shift, 0)) * m + rounder) >> (max(-shift, 0) + 31)`` as int32, the
    rounder ``2**(total - 1)`` (less 1 for a negative product when ``away``)."""
    left = _clamp_shift(_bin(ir.BinOp.MAX, shift, _i64(0)), 63)
    total = _clamp_shift(sch.add(_bin(ir.BinOp.MAX, ir.Unary(ir.UnOp.NEG, shift), _i64(0)), 31), 63)
    value = _bin(ir.BinOp.MUL, _bin(ir.BinOp.SHL, cast(x, I64), left), m)
    rounder = _bin(ir.BinOp.SHL, _i64(1), sch.sub(total, 1))
    if away:
        rounder = sch.sub(rounder, cast(_bin(ir.BinOp.LT, value, _i64(0)), I64))
    return ir.Cast(I32, _bin(ir.BinOp.SHR, sch.add(value, rounder), total))


def q_multiply_shift_dynamic(x: ir.PrimExpr, m: ir.PrimExpr, shift: ir.PrimExpr) -> ir.PrimExpr:
    """``q_multiply_shift`` (see the static one) with run-time int64 ``m`` and ``shift``."""
    exponent = sch.sub(shift, 1)
    left = ir.Cast(I32, _clamp_shift(exponent, 31))
    e = _clamp_shift(ir.Unary(ir.UnOp.NEG, exponent), 31)
    e = _bin(ir.BinOp.MAX, e, _i64(1))
    half = ir.Cast(I32, _bin(ir.BinOp.SHL, _i64(1), sch.sub(e, 1)))
    down = _bin(ir.BinOp.SHR, _bin(ir.BinOp.ADD, x, half), ir.Cast(I32, e))
    power = _sel(_bin(ir.BinOp.GT, exponent, _i64(0)), _bin(ir.BinOp.SHL, x, left), down)
    return _sel(_bin(ir.BinOp.EQ, m, _i64(1 << 30)), power, _wide_round(x, m, shift, None))


@dataclass(frozen=True)
class Quant:
    """Requantization parameters at one element: input scale and zero point (per tensor or
    the element's channel), output scale and zero point."""

    in_scale: ir.PrimExpr
    in_zero: ir.PrimExpr
    out_scale: ir.PrimExpr
    out_zero: ir.PrimExpr
    per_channel: bool


def requantize_value(
    x: ir.PrimExpr, q: Quant, rounding: str = "UPWARD", compute_dtype: str = "int64"
) -> ir.PrimExpr:
    """One element of the reference's ``_requantize_values`` (int64, before clipping)."""
    upward = rounding != "TONEAREST"
    f32 = "float32"
    if compute_dtype in ("float32", "float64"):
        ftype = compute_dtype
        ratio = _bin(ir.BinOp.DIV, cast(q.in_scale, F64), cast(cast(q.out_scale, f32), F64))
        if not q.per_channel:
            ratio = _sel(_bin(ir.BinOp.EQ, q.in_scale, q.out_scale), ir.const(1.0, F64), ratio)
        v = _bin(ir.BinOp.SUB, cast(x, ftype), cast(q.in_zero, ftype))
        v = _bin(ir.BinOp.ADD, _bin(ir.BinOp.MUL, v, cast(ratio, ftype)), cast(q.out_zero, ftype))
        rounded: ir.PrimExpr
        if upward:
            rounded = ir.Call("floor", (_bin(ir.BinOp.ADD, v, ir.const(0.5, ftype)),), ftype)
        else:
            rounded = round_half_away(v)
        return ir.Cast(I64, rounded)
    v = _bin(ir.BinOp.SUB, ir.Cast(I32, x) if x.dtype != I32 else x, cast(q.in_zero, I32))
    ratio = _bin(ir.BinOp.DIV, cast(q.in_scale, F64), cast(q.out_scale, F64))
    m, shift = fixed_point(ratio)
    if upward and not q.per_channel:
        scaled = q_multiply_shift_dynamic(v, m, shift)
    else:
        scaled = _wide_round(v, m, shift, not upward)
    if not q.per_channel:
        scaled = _sel(_bin(ir.BinOp.EQ, q.in_scale, q.out_scale), v, scaled)
    return cast(_bin(ir.BinOp.ADD, cast(q.out_zero, I32), scaled), I64)


def saturate(v: ir.PrimExpr, dtype: str) -> ir.PrimExpr:
    """An int64 value clipped to ``dtype``'s range and cast (int32: cast only)."""
    if dtype == I32:
        return ir.Cast(I32, v)
    info = np.iinfo(np.dtype(dtype))
    clipped = _bin(ir.BinOp.MAX, _bin(ir.BinOp.MIN, v, _i64(int(info.max))), _i64(int(info.min)))
    return ir.Cast(dtype, clipped)


def _channel_param(p: te.Tensor, ix: te.Indices, axis: int) -> ir.PrimExpr:
    """A scalar (rank 0) or per-channel (one per index of ``axis``) parameter at ``ix``."""
    if not p.shape:
        return p()
    return p(ix[axis] if ix else ir.index(0))


def _channel_axis(rank: int, axis: int) -> int:
    return axis if axis >= 0 else (rank + axis if rank else 0)


@te.lowering("qnn.requantize")
def lower_requantize(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The reference's requantization of each element (integer path: the fixed-point
    multiplier of the scale ratio computed at run time; float path), clipped to
    ``out_dtype``. (An output scale of 0, an error in the reference, is not detected.)"""
    assert isinstance(attrs, RequantizeAttrs)
    data, in_s, in_z, out_s, out_z = (tensor(args, i, "qnn.requantize") for i in range(5))
    axis = _channel_axis(data.ndim, attrs.axis)
    per_channel = in_s.ndim == 1

    def element(ix: te.Indices) -> ir.PrimExpr:
        q = Quant(
            _channel_param(in_s, ix, axis),
            _channel_param(in_z, ix, axis),
            out_s(),
            out_z(),
            per_channel,
        )
        v = requantize_value(data(*ix), q, attrs.rounding, attrs.compute_dtype)
        return saturate(v, attrs.out_dtype)

    return te.compute(data.shape, attrs.out_dtype, element, ctx.fresh("requantize"))


def _operand(t: te.Tensor, ix: te.Indices) -> te.Indices:
    """``t``'s index for output index ``ix`` of a broadcast (right-aligned, extent-1 axes
    read at 0; static extents)."""
    offset = len(ix) - t.ndim
    return tuple(
        ir.index(0) if sch.static(d) == 1 else ix[offset + k] for k, d in enumerate(t.shape)
    )


def _binary_setup(
    op: str, args: tuple[te.TensorResult, ...], attrs: Attrs | None
) -> tuple[list[te.Tensor], int, int]:
    assert isinstance(attrs, BroadcastAttrs)
    ts = [tensor(args, i, op) for i in range(8)]
    lhs, rhs = ts[0], ts[1]
    if any(p.ndim for p in ts[2:6]) and lhs.ndim != rhs.ndim:
        raise te.LoweringError(op, "per-channel parameters with operands of different ranks")
    axes = [0 if t.ndim <= 1 else axis % t.ndim for t, axis in
            ((lhs, attrs.lhs_axis), (rhs, attrs.rhs_axis))]  # fmt: skip
    return ts, axes[0], axes[1]


@te.lowering("qnn.add")
def lower_qnn_add(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Each operand requantized to the output's parameters (UPWARD, int64 path), then
    ``lhs' + rhs' - output_zero_point`` in int32, clipped to the operands' dtype."""
    ts, la, ra = _binary_setup("qnn.add", args, attrs)
    lhs, rhs, ls, lz, rs, rz, os_, oz = ts
    shape = out_shape(ctx, out_type, "qnn.add")

    def element(ix: te.Indices) -> ir.PrimExpr:
        li, ri = _operand(lhs, ix), _operand(rhs, ix)
        left = requantize_value(
            lhs(*li),
            Quant(
                _channel_param(ls, li, la),
                _channel_param(lz, li, la),
                os_(),
                oz(),
                bool(ls.ndim or lz.ndim),
            ),
        )
        right = requantize_value(
            rhs(*ri),
            Quant(
                _channel_param(rs, ri, ra),
                _channel_param(rz, ri, ra),
                os_(),
                oz(),
                bool(rs.ndim or rz.ndim),
            ),
        )
        total = _bin(ir.BinOp.SUB, _bin(ir.BinOp.ADD, cast(left, I32), cast(right, I32)),
                     cast(oz(), I32))  # fmt: skip
        return saturate(cast(total, I64), lhs.dtype)

    return te.compute(shape, lhs.dtype, element, ctx.fresh("qnn_add"))


@te.lowering("qnn.mul")
def lower_qnn_mul(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``(int32(lhs) - lhs_zp) * (int32(rhs) - rhs_zp)`` in int32, requantized from the scale
    ``float32(lhs_scale * rhs_scale)`` (per channel: one per channel of the lhs's axis) and
    zero point 0 to the output's parameters, clipped to the operands' dtype."""
    assert isinstance(attrs, BroadcastAttrs)
    ts, la, ra = _binary_setup("qnn.mul", args, attrs)
    lhs, rhs, ls, lz, rs, rz, os_, oz = ts
    scalar = ls.ndim == 0 and rs.ndim == 0
    if not scalar:
        if attrs.lhs_axis != attrs.rhs_axis:
            raise te.LoweringError("qnn.mul", "lhs_axis and rhs_axis differ (not supported)")
        if sch.static(ls.shape[0] if ls.ndim else ir.index(1)) != sch.static(
            rs.shape[0] if rs.ndim else ir.index(1)
        ):
            raise te.LoweringError("qnn.mul", "per-channel scales of different lengths")
    shape = out_shape(ctx, out_type, "qnn.mul")

    def element(ix: te.Indices) -> ir.PrimExpr:
        li, ri = _operand(lhs, ix), _operand(rhs, ix)
        left = _bin(ir.BinOp.SUB, cast(lhs(*li), I32), cast(_channel_param(lz, li, la), I32))
        right = _bin(ir.BinOp.SUB, cast(rhs(*ri), I32), cast(_channel_param(rz, ri, ra), I32))
        product = _bin(ir.BinOp.MUL, left, right)
        if scalar:
            scale = _bin(ir.BinOp.MUL, ls(), rs())
        else:
            scale = ir.Cast("float32", _bin(
                ir.BinOp.MUL,
                cast(_channel_param(ls, ix, la), F64),
                cast(_channel_param(rs, ix, la), F64),
            ))  # fmt: skip
        q = Quant(scale, ir.const(0, I32), os_(), oz(), not scalar)
        return saturate(requantize_value(product, q), lhs.dtype)

    return te.compute(shape, lhs.dtype, element, ctx.fresh("qnn_mul"))


@te.lowering("qnn.concatenate")
def lower_qnn_concatenate(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Each input kept where its scale and zero point equal the output's (a run-time test),
    otherwise requantized (UPWARD, int64) to the output's parameters and the first input's
    dtype; then ``concatenate``'s lowering."""
    data, scales, zeros = args[0], args[1], args[2]
    if not (isinstance(data, tuple) and isinstance(scales, tuple) and isinstance(zeros, tuple)):
        raise te.LoweringError("qnn.concatenate", "expected tuples of inputs and parameters")
    out_s, out_z = tensor(args, 3, "qnn.concatenate"), tensor(args, 4, "qnn.concatenate")
    parts: list[te.Tensor] = []
    first = data[0]
    assert isinstance(first, te.Tensor)
    dtype = first.dtype
    for x, sc, zp in zip(data, scales, zeros, strict=True):
        assert isinstance(x, te.Tensor) and isinstance(sc, te.Tensor)
        assert isinstance(zp, te.Tensor)

        def element(
            ix: te.Indices, x: te.Tensor = x, sc: te.Tensor = sc, zp: te.Tensor = zp
        ) -> ir.PrimExpr:
            same = _bin(
                ir.BinOp.AND,
                _bin(ir.BinOp.EQ, sc(), out_s()),
                _bin(ir.BinOp.EQ, zp(), out_z()),
            )
            v = requantize_value(x(*ix), Quant(sc(), zp(), out_s(), out_z(), False))
            return _sel(same, cast(x(*ix), dtype), saturate(v, dtype))

        parts.append(te.compute(x.shape, dtype, element, ctx.fresh("qnn_concat_part")))
    concat = te.LOWERINGS["concatenate"].fn
    return concat(ctx, (tuple(parts),), attrs, (arg_types[0],), out_type)  # type: ignore[arg-type]
