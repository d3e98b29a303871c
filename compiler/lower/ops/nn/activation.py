"""Lowerings of ``semantics/ops/nn/activation.py``: nn.leaky_relu and nn.prelu (computes),
nn.softmax, nn.log_softmax and nn.fast_softmax (two reductions along the axis, the maximum and
the sum of exponentials, then a compute).

Float16 data is computed in float32 and rounded once at the end, as the references do.
``nn.relu`` is ``x > 0 ? x : 0`` (elementwise's ``maximum``, an ordered compare: relu(NaN) is
0), on every dtype.
"""

from __future__ import annotations

import math

import numpy as np

from .....semantics.ops.nn.activation import LeakyReluAttrs, PReluAttrs, SoftmaxAttrs
from .....semantics.ops.registry import Attrs
from .....semantics.syntax import Type
from ... import ir, te
from .common import cast, compute_dtype, tensor


def _is_float(dtype: str) -> bool:
    return dtype.startswith("float")


def _bin(op: ir.BinOp, a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return ir.Binary(op, a, b)


def _positive(x: ir.PrimExpr) -> ir.PrimExpr:
    """``x > 0`` (ordered: NaN is not positive)."""
    return _bin(ir.BinOp.GT, x, ir.const(0, x.dtype))


@te.lowering("nn.relu")
def lower_relu(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``x > 0 ? x : 0`` (NaN gives 0)."""
    x = tensor(args, 0, "nn.relu")
    zero = ir.const(0, x.dtype)

    def element(ix: te.Indices) -> ir.PrimExpr:
        v = x(*ix)
        return ir.Select(_positive(v), v, zero)

    return te.compute(x.shape, x.dtype, element, ctx.fresh("relu"))


@te.lowering("nn.leaky_relu")
def lower_leaky_relu(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``x > 0 ? x : x * alpha``, ``alpha`` converted to the data dtype as ``make_const``
    (rounded for floats, truncated toward zero for integers)."""
    assert isinstance(attrs, LeakyReluAttrs)
    x = tensor(args, 0, "nn.leaky_relu")
    dtype = x.dtype
    if dtype == "bool":
        return te.compute(x.shape, dtype, lambda ix: x(*ix), ctx.fresh("leaky_relu"))
    if _is_float(dtype):
        alpha = ir.const(float(np.asarray(attrs.alpha, dtype=dtype)), dtype)
    else:
        if not math.isfinite(attrs.alpha):
            raise te.LoweringError("nn.leaky_relu", f"alpha={attrs.alpha} is not an {dtype}")
        alpha = ir.const(math.trunc(attrs.alpha), dtype)

    def element(ix: te.Indices) -> ir.PrimExpr:
        v = x(*ix)
        return ir.Select(_positive(v), v, _bin(ir.BinOp.MUL, v, alpha))

    return te.compute(x.shape, dtype, element, ctx.fresh("leaky_relu"))


@te.lowering("nn.prelu")
def lower_prelu(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``x > 0 ? x : x * alpha[i[axis]]`` (bool data is itself)."""
    assert isinstance(attrs, PReluAttrs)
    x, alpha = tensor(args, 0, "nn.prelu"), tensor(args, 1, "nn.prelu")
    dtype = x.dtype
    axis = attrs.axis
    cd = compute_dtype(dtype)

    def element(ix: te.Indices) -> ir.PrimExpr:
        v = x(*ix)
        if dtype == "bool":
            return v
        scaled = cast(_bin(ir.BinOp.MUL, cast(v, cd), cast(alpha(ix[axis]), cd)), dtype)
        return ir.Select(_positive(v), v, scaled)

    return te.compute(x.shape, dtype, element, ctx.fresh("prelu"))


_FAST_EXP_POLY = (
    1.9875691500e-4,
    1.3981999507e-3,
    8.3334519073e-3,
    4.1665795894e-2,
    1.6666665459e-1,
    5.0000001201e-1,
)


def _f32(v: float) -> ir.Const:
    return ir.const(float(np.float32(v)), "float32")


def fast_exp_float32(x: ir.PrimExpr) -> ir.PrimExpr:
    """TOPI's ``fast_exp_float32`` on a float32 scalar, operation by operation as the
    reference (``semantics/ops/nn/activation.py``) does it."""
    f32 = "float32"
    hi, lo = _f32(88.3762626647950), _f32(-88.3762626647949)
    clamped = ir.Select(_bin(ir.BinOp.LT, x, hi), x, hi)
    clamped = ir.Select(_bin(ir.BinOp.GT, clamped, lo), clamped, lo)
    scaled = _bin(ir.BinOp.MUL, clamped, _f32(1.44269504088896341))
    n = ir.Call("floor", (_bin(ir.BinOp.ADD, scaled, _f32(0.5)),), f32)
    f = _bin(ir.BinOp.SUB, clamped, _bin(ir.BinOp.MUL, n, _f32(0.6931471805599453)))
    y: ir.PrimExpr = _f32(_FAST_EXP_POLY[0])
    for c in _FAST_EXP_POLY[1:]:
        y = _bin(ir.BinOp.ADD, _bin(ir.BinOp.MUL, y, f), _f32(c))
    y = _bin(
        ir.BinOp.ADD,
        _bin(ir.BinOp.ADD, _bin(ir.BinOp.MUL, _bin(ir.BinOp.MUL, y, f), f), f),
        _f32(1.0),
    )
    # 2^n: the reference builds it from the exponent bits ((n + 127) << 23), which is 0 for
    # n = -127 (the clamp's lower end) and for NaN (nan_to_num gives exponent 0); 2^n otherwise.
    power = ir.Select(
        _bin(ir.BinOp.GT, n, _f32(-127.0)), ir.Call("pow", (_f32(2.0), n), f32), _f32(0.0)
    )
    value = _bin(ir.BinOp.MUL, power, y)
    return ir.Select(_bin(ir.BinOp.GT, value, x), value, x)


def _softmax_parts(
    ctx: te.LowerContext, x: te.Tensor, axis: int, exp: str
) -> tuple[te.Reduce, te.Reduce, ir.PrimExpr, str]:
    """The maximum along ``axis`` and the sum of ``exp(x - max)`` (``exp``: ``"exp"`` or
    ``"fast"``), both in the compute dtype."""
    cd = compute_dtype(x.dtype)
    shape = x.shape[:axis] + x.shape[axis + 1 :]
    extent = x.shape[axis]

    def at(ix: te.Indices, r: ir.PrimExpr) -> ir.PrimExpr:
        return cast(x(*ix[:axis], r, *ix[axis:]), cd)

    top = te.reduce(shape, cd, (extent,), "max", lambda ix, r: at(ix, r[0]), ctx.fresh("max"))

    def shifted(ix: te.Indices, r: ir.PrimExpr) -> ir.PrimExpr:
        return _bin(ir.BinOp.SUB, at(ix, r), top(*ix))

    def exp_of(v: ir.PrimExpr) -> ir.PrimExpr:
        if exp == "fast" and x.dtype == "float32":
            return fast_exp_float32(v)
        return ir.Call("exp", (v,), cd)

    total = te.reduce(
        shape, cd, (extent,), "sum", lambda ix, r: exp_of(shifted(ix, r[0])), ctx.fresh("sum")
    )
    return top, total, ir.index(0), cd


def _softmax(
    ctx: te.LowerContext, args: tuple[te.TensorResult, ...], attrs: Attrs | None, op: str
) -> te.TensorResult:
    assert isinstance(attrs, SoftmaxAttrs)
    x = tensor(args, 0, op)
    if not _is_float(x.dtype):
        raise te.LoweringError(op, f"{x.dtype} data has no defined result")
    axis = attrs.axis % x.ndim
    top, total, _, cd = _softmax_parts(ctx, x, axis, "fast" if op == "nn.fast_softmax" else "exp")

    def element(ix: te.Indices) -> ir.PrimExpr:
        rest = ix[:axis] + ix[axis + 1 :]
        shifted = _bin(ir.BinOp.SUB, cast(x(*ix), cd), top(*rest))
        if op == "nn.log_softmax":
            value = _bin(ir.BinOp.SUB, shifted, ir.Call("log", (total(*rest),), cd))
        else:
            if op == "nn.fast_softmax" and x.dtype == "float32":
                e = fast_exp_float32(shifted)
            else:
                e = ir.Call("exp", (shifted,), cd)
            value = _bin(ir.BinOp.DIV, e, total(*rest))
        return cast(value, x.dtype)

    return te.compute(x.shape, x.dtype, element, ctx.fresh(op.removeprefix("nn.")))


@te.lowering("nn.softmax")
def lower_softmax(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``e = exp(x - max(x)); e / sum(e)`` along the axis."""
    return _softmax(ctx, args, attrs, "nn.softmax")


@te.lowering("nn.log_softmax")
def lower_log_softmax(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``x - max(x) - log(sum(exp(x - max(x))))`` along the axis."""
    return _softmax(ctx, args, attrs, "nn.log_softmax")


@te.lowering("nn.fast_softmax")
def lower_fast_softmax(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Softmax with TOPI's ``fast_exp`` for float32 (``exp`` for other floats)."""
    return _softmax(ctx, args, attrs, "nn.fast_softmax")
