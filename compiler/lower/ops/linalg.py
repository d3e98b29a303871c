"""Lowerings of ``semantics/ops/linalg.py``: ``trilu`` (a compute: ``j - i >= k`` or
``<= k``, ``k`` read from its tensor at run time), ``matrix_set_diag`` (a compute selecting the
diagonal's element on diagonals ``k1..k2``, with both alignments); ``einsum`` is unsupported
(reason below)."""

from __future__ import annotations

from ....semantics.ops.linalg import MatrixSetDiagAttrs, TriluAttrs
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


def _sel(cond: ir.PrimExpr, t: ir.PrimExpr, f: ir.PrimExpr) -> ir.PrimExpr:
    return ir.Select(cond, t, f)


def _clamp(x: ir.PrimExpr, high: ir.PrimExpr) -> ir.PrimExpr:
    """``x`` clamped into ``[0, high]`` (a read that ``Select`` evaluates either way)."""
    return ir.Binary(ir.BinOp.MAX, ir.Binary(ir.BinOp.MIN, x, high), ir.index(0))


@te.lowering("matrix_set_diag")
def lower_matrix_set_diag(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Element ``(.., i, j)`` with ``k = j - i`` in ``[k1, k2]`` is ``diagonal[.., k2 - k,
    (i if k >= 0 else j) + o(k)]`` (one diagonal: no ``k2 - k`` axis), ``o(k)`` the width less
    the length of diagonal ``k`` where that diagonal is right-aligned; other elements are
    ``input``'s."""
    assert isinstance(attrs, MatrixSetDiagAttrs)
    data, diagonal = tensor(args, 0, "matrix_set_diag"), tensor(args, 1, "matrix_set_diag")
    k1, k2 = attrs.k1, attrs.k2
    rows, cols = data.shape[-2], data.shape[-1]
    width = diagonal.shape[-1]
    several = k1 != k2

    def element(ix: te.Indices) -> ir.PrimExpr:
        i, j = ix[-2], ix[-1]
        k = sch.sub(j, i)
        upper = ir.Binary(ir.BinOp.GE, k, ir.index(0))
        along = _sel(upper, i, j)
        if several:
            length = _sel(
                upper, sch.minimum(sch.sub(cols, k), rows), sch.minimum(cols, sch.add(rows, k))
            )
            shift = sch.sub(width, length)
            zero = ir.index(0)
            sup = shift if attrs.super_diag_right_align else zero
            sub = shift if attrs.sub_diag_right_align else zero
            along = sch.add(along, _sel(upper, sup, sub))
        pos = _clamp(along, sch.sub(width, 1))
        if several:
            which = _clamp(sch.sub(ir.index(k2), k), ir.index(k2 - k1))
            value = diagonal(*ix[:-2], which, pos)
        else:
            value = diagonal(*ix[:-2], pos)
        inside = ir.Binary(
            ir.BinOp.AND,
            ir.Binary(ir.BinOp.GE, k, ir.index(k1)),
            ir.Binary(ir.BinOp.LE, k, ir.index(k2)),
        )
        return _sel(inside, value, data(*ix))

    return te.compute(data.shape, data.dtype, element, ctx.fresh("matrix_set_diag"))
