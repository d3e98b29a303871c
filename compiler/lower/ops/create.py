"""Lowerings of the ``create`` operators (``semantics/ops/create.py``): constant computes over
the result type's shape. ``full``/``full_like`` cast their rank-0 ``fill_value`` to the result
dtype as ``cast`` does. ``arange`` is not lowered: its length depends on its arguments' values.
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


te.unsupported("arange", "its length depends on the values of its arguments")
