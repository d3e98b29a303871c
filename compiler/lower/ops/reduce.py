"""Lowerings of the ``reduce`` operators (``semantics/ops/reduce.py``).

``sum``, ``prod``, ``max``, ``min``, ``mean``, ``all`` and ``any`` are ``te.Reduce`` tensors
over the reduced axes (``reduce_axes``, shared with the semantics): output loops outside,
reduction loops inside, the element at ``(kept..., reduced...)`` put back in the input's axis
order. As the reference: bool ``sum`` is ``any`` and bool ``prod`` ``all``; float16 ``sum``,
``prod`` and ``mean`` accumulate in float32 and round once; ``max``/``min`` start from the
dtype's lowest/highest finite value; integer ``mean`` truncates the (wrapping) sum divided by
the count; a reduction over no axis is the identity. The reduction order is the loop order
(the tolerance policy budgets float reassociation).

``argmax``/``argmin`` scan the reduced elements in row-major order with an (index, value)
accumulator (``Scheduled``: the reference's first-index ties and its ``-1`` identity index fall
out of the strict comparison); ``variance`` is a ``te.Reduce`` of the squared differences from
the broadcast ``mean``; ``cumsum``/``cumprod`` are serial scans along the axis, one running
value per line (``Scheduled``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ....semantics.ops.reduce import (
    ArgReduceAttrs,
    ReduceAttrs,
    ScanopAttrs,
    VarianceAttrs,
    reduce_axes,
)
from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import ir, te
from .broadcast import broadcast_read
from .elementwise import convert, is_float, tensor_input
from .shape import linear, unravel

B = ir.BinOp


def _lowest(dtype: str) -> ir.Const:
    if is_float(dtype):
        return ir.const(float(np.finfo(np.dtype(dtype)).min), dtype)
    if dtype == "bool":
        return ir.const(0, dtype)
    return ir.const(int(np.iinfo(np.dtype(dtype)).min), dtype)


def _highest(dtype: str) -> ir.Const:
    if is_float(dtype):
        return ir.const(float(np.finfo(np.dtype(dtype)).max), dtype)
    if dtype == "bool":
        return ir.const(1, dtype)
    return ir.const(int(np.iinfo(np.dtype(dtype)).max), dtype)


def _product(dims: tuple[ir.PrimExpr, ...]) -> ir.PrimExpr:
    out: ir.PrimExpr = ir.index(1)
    for d in dims:
        out = d if out == ir.index(1) else ir.Binary(ir.BinOp.MUL, out, d)
    return out


def _reduction(op: str) -> te.LoweringFn:
    def lower(
        ctx: te.LowerContext,
        inputs: tuple[te.TensorResult, ...],
        attrs: Attrs,
        arg_types: tuple[Type, ...],
        out_type: Type,
    ) -> te.TensorResult:
        x = tensor_input(inputs, 0)
        assert isinstance(attrs, ReduceAttrs)
        axes = reduce_axes(x.ndim, attrs.axis, attrs.exclude)
        if not axes:
            return te.compute(x.shape, x.dtype, lambda idx: x(*idx), op)
        if x.ndim > 0 and attrs.axis is None and attrs.exclude:
            raise te.LoweringError(op, "exclude=True with axis=None is undefined")
        kept = tuple(i for i in range(x.ndim) if i not in axes)
        if attrs.keepdims:
            shape = tuple(ir.index(1) if i in axes else x.shape[i] for i in range(x.ndim))
        else:
            shape = tuple(x.shape[i] for i in kept)
        extents = tuple(x.shape[i] for i in axes)

        def element(idx: te.Indices, r: te.Indices) -> ir.PrimExpr:
            full: list[ir.PrimExpr] = [ir.index(0)] * x.ndim
            outer = [idx[i] for i in kept] if attrs.keepdims else list(idx)
            for i, e in zip(kept, outer, strict=True):
                full[i] = e
            for i, e in zip(axes, r, strict=True):
                full[i] = e
            return x(*full)

        dtype = x.dtype
        combiner = {"sum": "sum", "mean": "sum", "prod": "prod", "max": "max", "min": "min"}
        name = combiner.get(op, op)
        init: ir.PrimExpr | None = None
        if dtype == "bool":
            name = {"sum": "any", "prod": "all", "max": "any", "min": "all"}.get(name, name)
        elif op == "max":
            init = _lowest(dtype)
        elif op == "min":
            init = _highest(dtype)
        acc = "float32" if dtype == "float16" and name in ("sum", "prod") else dtype
        finish = None
        if op == "mean" and dtype != "bool":
            count = _product(extents)

            def finish(total: ir.PrimExpr, idx: te.Indices) -> ir.PrimExpr:
                divisor = ir.Cast(total.dtype, count)
                return ir.Binary(ir.BinOp.DIV, total, divisor)

        return te.reduce(
            shape, dtype, extents, name, element, op, init=init, acc_dtype=acc, finish=finish
        )

    return lower


for _op in ("sum", "prod", "max", "min", "mean", "all", "any"):
    te.lowering(_op)(_reduction(_op))


def _layout(
    x: te.Tensor, axes: tuple[int, ...], keepdims: bool
) -> tuple[tuple[ir.PrimExpr, ...], tuple[ir.PrimExpr, ...], FullIndex]:
    """The output shape, the reduced extents, and the input index of ``(output index,
    reduction index)`` for reducing ``axes`` of ``x``."""
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    if keepdims:
        shape = tuple(ir.index(1) if i in axes else x.shape[i] for i in range(x.ndim))
    else:
        shape = tuple(x.shape[i] for i in kept)
    extents = tuple(x.shape[i] for i in axes)

    def full(idx: te.Indices, r: te.Indices) -> list[ir.PrimExpr]:
        out: list[ir.PrimExpr] = [ir.index(0)] * x.ndim
        outer = [idx[i] for i in kept] if keepdims else list(idx)
        for i, e in zip(kept, outer, strict=True):
            out[i] = e
        for i, e in zip(axes, r, strict=True):
            out[i] = e
        return out

    return shape, extents, full


FullIndex = Callable[[te.Indices, te.Indices], list[ir.PrimExpr]]


def _arg_reduction(op: str) -> te.LoweringFn:
    def lower(
        ctx: te.LowerContext,
        inputs: tuple[te.TensorResult, ...],
        attrs: Attrs,
        arg_types: tuple[Type, ...],
        out_type: Type,
    ) -> te.TensorResult:
        """A sequential scan of the reduced elements in row-major order with an (index,
        value) accumulator from ``(-1, lowest)`` (``argmax``) or ``(-1, highest)``: an element
        replaces it when strictly better (better or equal with ``select_last_index``)."""
        x = tensor_input(inputs, 0)
        assert isinstance(attrs, ArgReduceAttrs)
        axes = reduce_axes(x.ndim, attrs.axis, attrs.exclude)
        if attrs.axis is None and attrs.exclude:
            raise te.LoweringError(op, "exclude=True with axis=None is undefined")
        if not axes:  # the input itself (int32; any other dtype is undefined)
            return te.compute(x.shape, "int32", lambda idx: te.as_dtype(x(*idx), "int32"), op)
        shape, extents, full = _layout(x, axes, attrs.keepdims)
        dtype = x.dtype
        start = _lowest(dtype) if op == "argmax" else _highest(dtype)
        strict = B.GT if op == "argmax" else B.LT
        loose = B.GE if op == "argmax" else B.LE
        better = loose if attrs.select_last_index else strict
        name = ctx.fresh(op)

        def schedule(out: ir.Buffer, epilogue: te.Epilogue | None) -> ir.Stmt:
            def element(idx: te.Indices) -> ir.Stmt:
                best = ir.Buffer(f"{name}_value", (ir.index(1),), dtype, scope="local")
                where = ir.Buffer(f"{name}_index", (ir.index(1),), ir.INDEX, scope="local")
                zero = (ir.index(0),)

                def step(r: te.Indices) -> ir.Stmt:
                    v = ir.ScalarVar(f"{name}_v", dtype)
                    replace = ir.Seq(
                        (ir.Store(best, zero, ir.Ref(v)), ir.Store(where, zero, linear(r, extents)))
                    )
                    cond = ir.Binary(better, ir.Ref(v), ir.Load(best, zero))
                    return ir.LetStmt(v, x(*full(idx, r)), ir.IfThenElse(cond, replace))

                scan = te.loop_nest(extents, step, hint="r", parallel=False)
                value: ir.PrimExpr = ir.Cast("int32", ir.Load(where, zero))
                if epilogue is not None:
                    value = epilogue(value, idx)
                body = ir.Seq(
                    (
                        ir.Store(best, zero, start),
                        ir.Store(where, zero, ir.index(-1)),
                        scan,
                        ir.Store(out, idx, te.as_dtype(value, out.dtype)),
                    )
                )
                return ir.Allocate(best, ir.Allocate(where, body))

            return te.loop_nest(out.shape, element)

        return te.Scheduled(name, shape, "int32", schedule=schedule)

    return lower


for _op in ("argmax", "argmin"):
    te.lowering(_op)(_arg_reduction(_op))


@te.lowering("variance")
def _variance(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``sum((data - mean)^2)`` over the reduced axes (each step in the dtype; float16 summed
    in float32 and rounded), divided by ``count - unbiased`` (float16 in float32)."""
    x, mean = tensor_input(inputs, 0), tensor_input(inputs, 1)
    a = attrs if isinstance(attrs, VarianceAttrs) else VarianceAttrs()
    axes = reduce_axes(x.ndim, a.axis, a.exclude)
    if not axes or (a.axis is None and a.exclude):
        raise te.LoweringError("variance", "reducing no axis is undefined")
    shape, extents, full = _layout(x, axes, a.keepdims)
    dtype = x.dtype
    wide = "float32" if dtype == "float16" else dtype

    def element(idx: te.Indices, r: te.Indices) -> ir.PrimExpr:
        position = tuple(full(idx, r))
        diff = ir.Binary(B.SUB, x(*position), broadcast_read(mean, position))
        return ir.Binary(B.MUL, diff, diff)

    count = _product(extents)
    divisor = ir.Binary(B.SUB, count, ir.index(1)) if a.unbiased else count

    def finish(total: ir.PrimExpr, idx: te.Indices) -> ir.PrimExpr:
        rounded = te.as_dtype(te.as_dtype(total, dtype), wide)
        return ir.Binary(B.DIV, rounded, ir.Cast(wide, divisor))

    return te.reduce(
        shape, dtype, extents, "sum", element, "variance", acc_dtype=wide, finish=finish
    )


def _scan(op: str) -> te.LoweringFn:
    combiner = B.ADD if op == "cumsum" else B.MUL
    identity = 0 if op == "cumsum" else 1

    def lower(
        ctx: te.LowerContext,
        inputs: tuple[te.TensorResult, ...],
        attrs: Attrs,
        arg_types: tuple[Type, ...],
        out_type: Type,
    ) -> te.TensorResult:
        """A sequential running value along the axis (of the flattened data without one) in
        the result dtype, each element converted as ``cast`` does; ``exclusive`` stores the
        running value before combining the element."""
        x = tensor_input(inputs, 0)
        a = attrs if isinstance(attrs, ScanopAttrs) else ScanopAttrs()
        dtype = a.dtype or x.dtype
        name = ctx.fresh(op)
        if a.axis is None:
            total = _product(x.shape)
            shape: tuple[ir.PrimExpr, ...] = (total,)
            axis = 0

            def read(idx: te.Indices) -> ir.PrimExpr:
                return x(*unravel(idx[0], x.shape))

        else:
            shape = x.shape
            axis = a.axis % x.ndim

            def read(idx: te.Indices) -> ir.PrimExpr:
                return x(*idx)

        outer = shape[:axis] + shape[axis + 1 :]

        def schedule(out: ir.Buffer, epilogue: te.Epilogue | None) -> ir.Stmt:
            def line(o: te.Indices) -> ir.Stmt:
                acc = ir.Buffer(f"{name}_acc", (ir.index(1),), dtype, scope="local")
                zero = (ir.index(0),)

                def step(k: te.Indices) -> ir.Stmt:
                    idx = (*o[:axis], k[0], *o[axis:])
                    value = convert(read(idx), dtype)
                    update = ir.Store(acc, zero, ir.Binary(combiner, ir.Load(acc, zero), value))
                    stored: ir.PrimExpr = ir.Load(acc, zero)
                    if epilogue is not None:
                        stored = epilogue(stored, idx)
                    store = ir.Store(out, idx, te.as_dtype(stored, out.dtype))
                    return ir.Seq((store, update) if a.exclusive else (update, store))

                scan = te.loop_nest((shape[axis],), step, hint="k", parallel=False)
                init = ir.Store(acc, zero, ir.const(identity, dtype))
                return ir.Allocate(acc, ir.Seq((init, scan)))

            return te.loop_nest(outer, line, hint="o")

        return te.Scheduled(name, shape, dtype, schedule=schedule)

    return lower


for _op in ("cumsum", "cumprod"):
    te.lowering(_op)(_scan(_op))
