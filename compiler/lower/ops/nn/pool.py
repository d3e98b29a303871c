"""Lowerings of ``semantics/ops/nn/pool.py``: every pool is a reduction over its window.

- max pools (1-D/2-D/3-D, global, adaptive): the maximum starting from the lowest finite value
  of the dtype (``tvm::min_value``), padding positions reading that value;
- average pools: the window sum (float16 in float32) divided by TVM's element count, computed
  per output position with integer index arithmetic exactly as ``pool_impl_nd`` does
  (``count_include_pad``, the ceil_mode extension not counted, truncating division);
  integers divide with truncation;
- adaptive pools: output cell ``i`` of an axis pooled from ``n`` to ``o`` covers
  ``[floor(i*n/o), ceil((i+1)*n/o))``; the reduction runs over the longest cell, positions past
  a cell's end reading the fill.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .....semantics.ops.nn.pool import (
    AdaptivePool2DAttrs,
    AvgPool1DAttrs,
    AvgPool2DAttrs,
    AvgPool3DAttrs,
    GlobalPool2DAttrs,
    MaxPool1DAttrs,
    MaxPool2DAttrs,
    MaxPool3DAttrs,
    _Geometry,
    _output_size,
    _PoolGeometry,
    _spatial_axes,
)
from .....semantics.ops.registry import Attrs
from .....semantics.syntax import Type
from ... import ir, te
from ... import schedules as sch
from .common import cast, compute_dtype, out_shape, tensor


def lowest(dtype: str) -> ir.Const:
    """``tvm::min_value``: the lowest finite value, INT_MIN, 0, false."""
    if dtype.startswith("float"):
        return ir.const(float(np.finfo(np.dtype(dtype)).min), dtype)
    if dtype == "bool":
        return ir.const(0, dtype)
    return ir.const(int(np.iinfo(np.dtype(dtype)).min), dtype)


def _bin(op: ir.BinOp, a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return ir.Binary(op, a, b)


class _Window:
    """A windowed pool: the pooled axes, window, strides, dilation, padding before/after."""

    def __init__(
        self,
        axes: Sequence[int],
        kernel: Sequence[int],
        strides: Sequence[int],
        dilation: Sequence[int],
        head: Sequence[int],
        tail: Sequence[int],
    ) -> None:
        self.axes = tuple(axes)
        self.kernel = tuple(kernel)
        self.strides = tuple(strides)
        self.dilation = tuple(dilation)
        self.head = tuple(head)
        self.tail = tuple(tail)

    def read(
        self, x: te.Tensor, ix: te.Indices, r: te.Indices, fill: ir.PrimExpr, dtype: str
    ) -> ir.PrimExpr:
        """The window element ``r`` of output position ``ix`` (``fill`` in the padding)."""
        full = list(ix)
        conds: list[ir.PrimExpr] = []
        for i, axis in enumerate(self.axes):
            pos = sch.sub(
                sch.add(sch.mul(ix[axis], self.strides[i]), sch.mul(r[i], self.dilation[i])),
                self.head[i],
            )
            extent = x.shape[axis]
            if sch.static(extent) == 0:
                return fill
            conds.append(_bin(ir.BinOp.GE, pos, ir.index(0)))
            conds.append(_bin(ir.BinOp.LT, pos, extent))
            full[axis] = _bin(
                ir.BinOp.MAX, _bin(ir.BinOp.MIN, pos, sch.sub(extent, 1)), ir.index(0)
            )
        cond = conds[0]
        for c in conds[1:]:
            cond = _bin(ir.BinOp.AND, cond, c)
        return ir.Select(cond, cast(x(*full), dtype), fill)

    def count(self, x: te.Tensor, ix: te.Indices, include_pad: bool) -> ir.PrimExpr:
        """TVM's element count of output position ``ix`` (``int64``)."""
        total: ir.PrimExpr = ir.index(1)
        for i, axis in enumerate(self.axes):
            k, s, d = self.kernel[i], self.strides[i], self.dilation[i]
            start = sch.sub(sch.mul(ix[axis], s), self.head[i])
            end = sch.add(start, (k - 1) * d)
            extent = x.shape[axis]
            if include_pad:
                last = sch.sub(sch.add(extent, self.tail[i]), 1)
                first = start
            else:
                last = sch.sub(extent, 1)
                jumps = _bin(
                    ir.BinOp.MAX,
                    _bin(ir.BinOp.DIV, sch.sub(ir.index(d - 1), start), ir.index(d)),
                    ir.index(0),
                )
                first = sch.add(start, sch.mul(jumps, d))
            span = sch.sub(_bin(ir.BinOp.MIN, end, last), first)
            factor = sch.add(_bin(ir.BinOp.DIV, span, ir.index(d)), 1)
            total = sch.mul(total, factor)
        if not include_pad:
            total = _bin(ir.BinOp.MAX, total, ir.index(1))
        return total


def _max_pool(
    ctx: te.LowerContext, x: te.Tensor, shape: tuple[ir.PrimExpr, ...], w: _Window, op: str
) -> te.TensorResult:
    low = lowest(x.dtype)
    axes = tuple(ir.index(k) for k in w.kernel)
    return te.reduce(
        shape,
        x.dtype,
        axes,
        "max",
        lambda ix, r: w.read(x, ix, r, low, x.dtype),
        ctx.fresh(op.removeprefix("nn.")),
        init=low,
    )


def _divide(total: ir.PrimExpr, count: ir.PrimExpr, cd: str) -> ir.PrimExpr:
    """``total / count``: IEEE division for floats, truncating for integers."""
    return _bin(ir.BinOp.DIV, total, ir.Cast(cd, count))


def _avg_pool(
    ctx: te.LowerContext,
    x: te.Tensor,
    shape: tuple[ir.PrimExpr, ...],
    w: _Window,
    include_pad: bool,
    op: str,
) -> te.TensorResult:
    if x.dtype == "bool":
        raise te.LoweringError(op, "bool data has no defined sum")
    cd = compute_dtype(x.dtype)
    zero = ir.const(0, cd)
    axes = tuple(ir.index(k) for k in w.kernel)
    return te.reduce(
        shape,
        x.dtype,
        axes,
        "sum",
        lambda ix, r: w.read(x, ix, r, zero, cd),
        ctx.fresh(op.removeprefix("nn.")),
        acc_dtype=cd,
        finish=lambda acc, ix: _divide(acc, w.count(x, ix, include_pad), cd),
    )


def _window_2d(a: MaxPool2DAttrs | AvgPool2DAttrs, rank: int) -> _Window:
    g = _PoolGeometry(a, rank)
    # The padding after (for the count) excludes the ceil_mode extension; reads past the input
    # are padding whatever their origin.
    return _Window((g.hidx, g.widx), g.kernel, g.strides, g.dilation, g.head, g.tail)


def _window_nd(
    a: MaxPool1DAttrs | MaxPool3DAttrs | AvgPool1DAttrs | AvgPool3DAttrs, rank: int
) -> _Window:
    g = _Geometry(a, rank)
    return _Window(g.axes, g.kernel, g.strides, g.dilation, g.head, g.tail)


_MAX = {
    "nn.max_pool1d": MaxPool1DAttrs,
    "nn.max_pool2d": MaxPool2DAttrs,
    "nn.max_pool3d": MaxPool3DAttrs,
}
_AVG = {
    "nn.avg_pool1d": AvgPool1DAttrs,
    "nn.avg_pool2d": AvgPool2DAttrs,
    "nn.avg_pool3d": AvgPool3DAttrs,
}


def _window_of(attrs: Attrs, rank: int) -> _Window:
    if isinstance(attrs, MaxPool2DAttrs | AvgPool2DAttrs):
        return _window_2d(attrs, rank)
    assert isinstance(attrs, MaxPool1DAttrs | MaxPool3DAttrs | AvgPool1DAttrs | AvgPool3DAttrs)
    return _window_nd(attrs, rank)


@te.lowering(*_MAX)
def lower_max_pool(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Max pooling over the dilated window (see the module docstring)."""
    assert attrs is not None
    op = next(name for name, cls in _MAX.items() if isinstance(attrs, cls))
    x = tensor(args, 0, op)
    return _max_pool(ctx, x, out_shape(ctx, out_type, op), _window_of(attrs, x.ndim), op)


@te.lowering(*_AVG)
def lower_avg_pool(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Average pooling (see the module docstring)."""
    assert isinstance(attrs, AvgPool1DAttrs | AvgPool2DAttrs | AvgPool3DAttrs)
    op = next(name for name, cls in _AVG.items() if isinstance(attrs, cls))
    x = tensor(args, 0, op)
    shape = out_shape(ctx, out_type, op)
    return _avg_pool(ctx, x, shape, _window_of(attrs, x.ndim), attrs.count_include_pad, op)


def _global(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    out_type: Type,
    op: str,
) -> te.TensorResult:
    assert isinstance(attrs, GlobalPool2DAttrs)
    x = tensor(args, 0, op)
    h, w = _spatial_axes(attrs.layout, x.ndim)
    shape = out_shape(ctx, out_type, op)
    axes = (x.shape[h], x.shape[w])

    def at(ix: te.Indices, r: te.Indices, dtype: str) -> ir.PrimExpr:
        full = list(ix)
        full[h], full[w] = r
        return cast(x(*full), dtype)

    name = ctx.fresh(op.removeprefix("nn."))
    if op == "nn.global_max_pool2d":
        low = lowest(x.dtype)
        return te.reduce(
            shape, x.dtype, axes, "max", lambda ix, r: at(ix, r, x.dtype), name, init=low
        )
    if x.dtype == "bool":
        raise te.LoweringError(op, "bool data has no defined sum")
    cd = compute_dtype(x.dtype)
    count = sch.mul(x.shape[h], x.shape[w])
    return te.reduce(
        shape,
        x.dtype,
        axes,
        "sum",
        lambda ix, r: at(ix, r, cd),
        name,
        acc_dtype=cd,
        finish=lambda acc, ix: _divide(acc, count, cd),
    )


@te.lowering("nn.global_avg_pool2d")
def lower_global_avg_pool2d(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The mean over H and W."""
    return _global(ctx, args, attrs, out_type, "nn.global_avg_pool2d")


@te.lowering("nn.global_max_pool2d")
def lower_global_max_pool2d(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The maximum over H and W, from the lowest finite value."""
    return _global(ctx, args, attrs, out_type, "nn.global_max_pool2d")


def _adaptive(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    out_type: Type,
    op: str,
) -> te.TensorResult:
    assert isinstance(attrs, AdaptivePool2DAttrs)
    x = tensor(args, 0, op)
    hw = _spatial_axes(attrs.layout, x.ndim)
    ns = [sch.static(x.shape[a]) for a in hw]
    if ns[0] is None or ns[1] is None:
        raise te.LoweringError(op, "the pooled extents must be static")
    outs = _output_size(attrs, ns[0], ns[1])
    os_ = [o if isinstance(o, int) else 0 for o in outs]
    shape = out_shape(ctx, out_type, op)
    longest = []
    for n, o in zip(ns, os_, strict=True):
        assert n is not None
        lengths = [-((-(i + 1) * n) // o) - (i * n) // o for i in range(o)]
        longest.append(max(lengths, default=0))
    maximum = op == "nn.adaptive_max_pool2d"
    if not maximum and x.dtype == "bool":
        raise te.LoweringError(op, "bool data has no defined sum")
    dtype = x.dtype if maximum else compute_dtype(x.dtype)
    fill = lowest(x.dtype) if maximum else ir.const(0, dtype)

    def bounds(i: ir.PrimExpr, n: int, o: int) -> tuple[ir.PrimExpr, ir.PrimExpr]:
        o = max(o, 1)  # an empty output axis: the expression is never evaluated
        start = sch.floordiv(sch.mul(i, n), o)
        end = sch.sub(ir.index(0), sch.floordiv(sch.sub(ir.index(0), sch.mul(sch.add(i, 1), n)), o))
        return start, end

    def body(ix: te.Indices, r: te.Indices) -> ir.PrimExpr:
        full = list(ix)
        conds: list[ir.PrimExpr] = []
        for k, axis in enumerate(hw):
            n, o = ns[k], os_[k]
            assert n is not None
            if n == 0:
                return fill
            start, end = bounds(ix[axis], n, o)
            pos = sch.add(start, r[k])
            conds.append(_bin(ir.BinOp.LT, pos, end))
            full[axis] = _bin(ir.BinOp.MIN, pos, ir.index(n - 1))
        return ir.Select(_bin(ir.BinOp.AND, conds[0], conds[1]), cast(x(*full), dtype), fill)

    name = ctx.fresh(op.removeprefix("nn."))
    axes = tuple(ir.index(v) for v in longest)
    if maximum:
        return te.reduce(shape, x.dtype, axes, "max", body, name, init=fill)

    def finish(acc: ir.PrimExpr, ix: te.Indices) -> ir.PrimExpr:
        count: ir.PrimExpr = ir.index(1)
        for k, axis in enumerate(hw):
            n = ns[k]
            assert n is not None
            start, end = bounds(ix[axis], n, os_[k])
            count = sch.mul(count, sch.sub(end, start))
        return _divide(acc, count, dtype)

    return te.reduce(shape, x.dtype, axes, "sum", body, name, acc_dtype=dtype, finish=finish)


@te.lowering("nn.adaptive_avg_pool2d")
def lower_adaptive_avg_pool2d(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The mean of each adaptive cell."""
    return _adaptive(ctx, args, attrs, out_type, "nn.adaptive_avg_pool2d")


@te.lowering("nn.adaptive_max_pool2d")
def lower_adaptive_max_pool2d(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The maximum of each adaptive cell, from the lowest finite value."""
    return _adaptive(ctx, args, attrs, out_type, "nn.adaptive_max_pool2d")
