"""Lowerings of ``semantics/ops/linalg.py``: ``trilu`` (a compute: ``j - i >= k`` or
``<= k``, ``k`` read from its tensor at run time); ``einsum`` and ``matrix_set_diag`` are
unsupported (reasons below)."""

from __future__ import annotations

from ....semantics.ops.linalg import TriluAttrs
from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import ir, te
from .. import schedules as sch
from .nn.common import cast, tensor


@te.lowering("trilu")
def lower_trilu(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``data`` where ``j - i >= k`` (upper) or ``j - i <= k`` (lower), 0 elsewhere."""
    assert isinstance(attrs, TriluAttrs)
    data, k = tensor(args, 0, "trilu"), tensor(args, 1, "trilu")
    zero = ir.const(0, data.dtype)
    upper = attrs.upper

    def element(ix: te.Indices) -> ir.PrimExpr:
        offset = sch.sub(ix[-1], ix[-2])
        kv = cast(k(*(ir.index(0) for _ in k.shape)), "int64")
        keep = ir.Binary(ir.BinOp.GE if upper else ir.BinOp.LE, offset, kv)
        return ir.Select(keep, data(*ix), zero)

    return te.compute(data.shape, data.dtype, element, ctx.fresh("trilu"))


te.unsupported("einsum", "einsum over a tuple of tensors with a subscript string is not lowered")
te.unsupported(
    "matrix_set_diag",
    "not lowered yet (an injective map over the diagonals: a compute to write)",
)
