"""Lowerings of ``semantics/ops/qnn.py``: ``qnn.quantize`` and ``qnn.dequantize`` (computes with
the reference's exact rounding: ``llvm.round``, halves away from zero, as ``trunc`` and a
correction; TVM's ordered ``clip``). The other qnn operators are unsupported (reasons below).

Scale and zero point are scalars, one-element vectors or vectors along ``axis``."""

from __future__ import annotations

import numpy as np

from ....semantics.ops.qnn import DequantizeAttrs, QuantizeAttrs
from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import ir, te
from .. import schedules as sch
from .nn.common import cast, tensor


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


_QNN = "not lowered yet: TVM's fixed-point requantization (a compute to write)"
for _name in (
    "fixed_point_multiply",
    "qnn.requantize",
    "qnn.dense",
    "qnn.conv2d",
    "qnn.add",
    "qnn.mul",
    "qnn.concatenate",
):
    te.unsupported(_name, _QNN)
