"""Lowerings of the ``broadcast`` operators (``semantics/ops/broadcast.py``).

Every operator is a ``Compute`` over the numpy-broadcast shape of its operands: an operand is
read at the output index aligned to the right, with index 0 along a dimension of extent 1 (a
dimension that is 1 only at run time is read through ``select(d == 1, 0, i)``). The element
formulas are the reference's: integer ``divide``/``mod`` truncate (``trunc_divide`` and
``trunc_mod`` too), ``floor_divide``/``floor_mod`` floor; for floats ``divide`` is IEEE
division, ``mod`` and ``trunc_mod`` ``fmod``, ``floor_divide`` ``floor(a / b)``, ``floor_mod``
``a - floor(a / b) * b`` and ``trunc_divide`` ``trunc(a / b)``; ``maximum``/``minimum`` are the
ordered selects; comparisons are ordered (``not_equal`` is ``a < b or a > b`` on floats);
``where`` selects on the ordered truth of its condition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import ir, te
from .elementwise import binary, call, is_float, maximum, minimum, tensor_input, truthy

B = ir.BinOp


def _is_one(d: ir.PrimExpr) -> bool:
    return isinstance(d, ir.Const) and d.value == 1


def broadcast_shape(shapes: Sequence[Sequence[ir.PrimExpr]]) -> tuple[ir.PrimExpr, ...]:
    """The numpy broadcast of ``shapes`` (a static extent other than 1 wins over a symbolic
    one; two different symbolic extents broadcast to their maximum)."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[ir.PrimExpr] = []
    for k in range(rank):
        dims = [s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0]
        chosen: ir.PrimExpr = ir.index(1)
        for d in dims:
            if _is_one(d) or d == chosen:
                continue
            if _is_one(chosen):
                chosen = d
            elif isinstance(chosen, ir.Const) and isinstance(d, ir.Const):
                raise te.LoweringError("broadcast", f"extents {chosen.value} and {d.value}")
            elif isinstance(d, ir.Const):
                chosen = d
            elif not isinstance(chosen, ir.Const):
                chosen = binary(B.MAX, chosen, d)
        out.append(chosen)
    return tuple(out)


def broadcast_read(x: te.Tensor, idx: te.Indices) -> ir.PrimExpr:
    """``x``'s element for output index ``idx`` of a broadcast (right-aligned)."""
    offset = len(idx) - x.ndim
    read: list[ir.PrimExpr] = []
    for k, d in enumerate(x.shape):
        i = idx[offset + k]
        if _is_one(d):
            read.append(ir.index(0))
        elif isinstance(d, ir.Const):
            read.append(i)
        else:
            read.append(ir.Select(binary(B.EQ, d, ir.index(1)), ir.index(0), i))
    return x(*read)


def broadcast_compute(
    operands: Sequence[te.Tensor],
    dtype: str,
    fn: Callable[[list[ir.PrimExpr]], ir.PrimExpr],
    name: str,
) -> te.Tensor:
    """The broadcast of ``operands`` through the element formula ``fn``."""
    shape = broadcast_shape([x.shape for x in operands])
    return te.compute(
        shape, dtype, lambda idx: fn([broadcast_read(x, idx) for x in operands]), name
    )


def _float_floor_divide(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return call("floor", binary(B.DIV, a, b))


_BINARY: dict[str, tuple[bool, Callable[[ir.PrimExpr, ir.PrimExpr], ir.PrimExpr]]] = {
    # name: (comparison, formula)
    "add": (False, lambda a, b: binary(B.ADD, a, b)),
    "subtract": (False, lambda a, b: binary(B.SUB, a, b)),
    "multiply": (False, lambda a, b: binary(B.MUL, a, b)),
    "divide": (False, lambda a, b: binary(B.DIV, a, b)),
    "trunc_divide": (
        False,
        lambda a, b: (
            call("trunc", binary(B.DIV, a, b)) if is_float(a.dtype) else binary(B.DIV, a, b)
        ),
    ),
    "mod": (False, lambda a, b: binary(B.MOD, a, b)),
    "trunc_mod": (False, lambda a, b: binary(B.MOD, a, b)),
    "floor_divide": (
        False,
        lambda a, b: _float_floor_divide(a, b) if is_float(a.dtype) else binary(B.FLOORDIV, a, b),
    ),
    "floor_mod": (
        False,
        lambda a, b: (
            binary(B.SUB, a, binary(B.MUL, _float_floor_divide(a, b), b))
            if is_float(a.dtype)
            else binary(B.FLOORMOD, a, b)
        ),
    ),
    "power": (False, lambda a, b: call("pow", a, b)),
    "maximum": (False, maximum),
    "minimum": (False, minimum),
    "equal": (True, lambda a, b: binary(B.EQ, a, b)),
    "not_equal": (
        True,
        lambda a, b: (
            binary(B.OR, binary(B.LT, a, b), binary(B.GT, a, b))
            if is_float(a.dtype)
            else binary(B.NE, a, b)
        ),
    ),
    "less": (True, lambda a, b: binary(B.LT, a, b)),
    "less_equal": (True, lambda a, b: binary(B.LE, a, b)),
    "greater": (True, lambda a, b: binary(B.GT, a, b)),
    "greater_equal": (True, lambda a, b: binary(B.GE, a, b)),
    "logical_and": (False, lambda a, b: binary(B.AND, a, b)),
    "logical_or": (False, lambda a, b: binary(B.OR, a, b)),
    "logical_xor": (False, lambda a, b: binary(B.XOR, a, b)),
    "bitwise_and": (False, lambda a, b: binary(B.AND, a, b)),
    "bitwise_or": (False, lambda a, b: binary(B.OR, a, b)),
    "bitwise_xor": (False, lambda a, b: binary(B.XOR, a, b)),
    "left_shift": (False, lambda a, b: binary(B.SHL, a, b)),
    "right_shift": (False, lambda a, b: binary(B.SHR, a, b)),
}
"""The binary operators: whether the result is bool, and the element formula."""


def _binary_lowering(op: str) -> te.LoweringFn:
    comparison, formula = _BINARY[op]

    def lower(
        ctx: te.LowerContext,
        inputs: tuple[te.TensorResult, ...],
        attrs: Attrs,
        arg_types: tuple[Type, ...],
        out_type: Type,
    ) -> te.TensorResult:
        a, b = tensor_input(inputs, 0), tensor_input(inputs, 1)
        dtype = "bool" if comparison else a.dtype
        return broadcast_compute([a, b], dtype, lambda e: formula(e[0], e[1]), op)

    return lower


for _op in _BINARY:
    te.lowering(_op)(_binary_lowering(_op))


@te.lowering("where")
def _where(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``x`` where ``condition`` is (ordered) non-zero, else ``y``; all three broadcast."""
    c, x, y = (tensor_input(inputs, k) for k in range(3))
    return broadcast_compute(
        [c, x, y], x.dtype, lambda e: ir.Select(truthy(e[0]), e[1], e[2]), "where"
    )


__all__ = ["broadcast_compute", "broadcast_read", "broadcast_shape"]
