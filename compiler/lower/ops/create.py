"""Lowerings of the ``create`` operators (``semantics/ops/create.py``): constant computes over
the result type's shape. ``full``/``full_like`` cast their rank-0 ``fill_value`` to the result
dtype as ``cast`` does. ``arange``'s length (a ``?`` extent) is a size parameter of the kernel.
"""

from __future__ import annotations

from ....semantics.ops.registry import Attrs
from ....semantics.syntax import TensorType, Type
from .. import ir, te
from .elementwise import convert, tensor_input


def _result(ctx: te.LowerContext, out_type: Type) -> tuple[tuple[ir.PrimExpr, ...], str]:
    assert isinstance(out_type, TensorType)
    return ctx.shape(out_type), out_type.dtype


def _constant(value: int) -> te.LoweringFn:
    def lower(
        ctx: te.LowerContext,
        inputs: tuple[te.TensorResult, ...],
        attrs: Attrs,
        arg_types: tuple[Type, ...],
        out_type: Type,
    ) -> te.TensorResult:
        if inputs:  # *_like: the data's shape
            x = tensor_input(inputs, 0)
            shape, dtype = x.shape, x.dtype
        else:
            shape, dtype = _result(ctx, out_type)
        c = ir.const(value, dtype)
        return te.compute(shape, dtype, lambda idx: c, "zeros" if value == 0 else "ones")

    return lower


te.lowering("zeros", "zeros_like")(_constant(0))
te.lowering("ones", "ones_like")(_constant(1))


@te.lowering("full", "full_like")
def _full(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The rank-0 ``fill_value`` (the last input) cast to the result dtype, everywhere."""
    if len(inputs) == 2:
        x = tensor_input(inputs, 0)
        shape, dtype = x.shape, x.dtype
    else:
        shape, dtype = _result(ctx, out_type)
    fill = tensor_input(inputs, len(inputs) - 1)
    return te.compute(shape, dtype, lambda idx: convert(fill(), dtype), "full")


@te.lowering("arange")
def _arange(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[i] = start + step * i`` in the dtype (bool: computed in int64, then ``!= 0``);
    the length is the result's ``?`` extent, a size parameter bound from the output buffer
    (the host computes it with the shape function)."""
    shape, dtype = _result(ctx, out_type)
    start, step = tensor_input(inputs, 0), tensor_input(inputs, 2)

    def element(idx: te.Indices) -> ir.PrimExpr:
        (i,) = idx
        if dtype == "bool":
            wide = ir.Binary(
                ir.BinOp.ADD,
                ir.Cast(ir.INDEX, start()),
                ir.Binary(ir.BinOp.MUL, ir.Cast(ir.INDEX, step()), i),
            )
            return convert(wide, "bool")
        position = i if dtype == ir.INDEX else ir.Cast(dtype, i)
        return ir.Binary(ir.BinOp.ADD, start(), ir.Binary(ir.BinOp.MUL, step(), position))

    return te.compute(shape, dtype, element, "arange")
