"""Lowerings of the ``reduce`` operators (``semantics/ops/reduce.py``).

``sum``, ``prod``, ``max``, ``min``, ``mean``, ``all`` and ``any`` are ``te.Reduce`` tensors
over the reduced axes (``reduce_axes``, shared with the semantics): output loops outside,
reduction loops inside, the element at ``(kept..., reduced...)`` put back in the input's axis
order. As the reference: bool ``sum`` is ``any`` and bool ``prod`` ``all``; float16 ``sum``,
``prod`` and ``mean`` accumulate in float32 and round once; ``max``/``min`` start from the
dtype's lowest/highest finite value; integer ``mean`` truncates the (wrapping) sum divided by
the count; a reduction over no axis is the identity. The reduction order is the loop order
(the tolerance policy budgets float reassociation).

Not lowered yet: ``argmax``/``argmin`` (a two-value accumulator), ``variance``, ``cumsum`` and
``cumprod`` (scans).
"""

from __future__ import annotations

import numpy as np

from ....semantics.ops.reduce import ReduceAttrs, reduce_axes
from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import ir, te
from .elementwise import is_float, tensor_input


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

for _op in ("argmax", "argmin"):
    te.unsupported(_op, "not lowered yet: needs an (index, value) accumulator")
te.unsupported("variance", "not lowered yet")
for _op in ("cumsum", "cumprod"):
    te.unsupported(_op, "not lowered yet: a scan")
