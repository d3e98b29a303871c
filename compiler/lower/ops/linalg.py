"""Lowerings of ``semantics/ops/linalg.py``: ``trilu`` (a compute: ``j - i >= k`` or
``<= k``, ``k`` read from its tensor at run time), ``matrix_set_diag`` (a compute selecting the
diagonal's element on diagonals ``k1..k2``, with both alignments), ``einsum`` (a reduction
over the labels missing from the output of the operands' product)."""

from __future__ import annotations

from ....semantics.ops.linalg import (
    _ELLIPSIS,
    EinsumAttrs,
    MatrixSetDiagAttrs,
    TriluAttrs,
    _einsum_terms,
)
from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import ir, te
from .. import schedules as sch
from .nn.common import cast, compute_dtype, out_shape, tensor


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


@te.lowering("einsum")
def lower_einsum(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[output labels] = sum over the other labels of the product of the operands``
    (left to right, in the dtype: narrow integers wrap; float16 in float32, rounded once;
    bool: and / or). The ellipsis is the broadcast of the operands' ellipsis parts
    (right-aligned, extent-1 axes read at 0). No summed label: a compute."""
    assert isinstance(attrs, EinsumAttrs)
    fields = args[0]
    if not isinstance(fields, tuple) or not all(isinstance(f, te.Tensor) for f in fields):
        raise te.LoweringError("einsum", "expected a tuple of tensors")
    operands = [f for f in fields if isinstance(f, te.Tensor)]
    inputs, output = _einsum_terms(attrs.equation, len(operands))
    dtype = operands[0].dtype
    shape = out_shape(ctx, out_type, "einsum")
    extents: dict[str, ir.PrimExpr] = {}
    spans: list[int] = []
    for term, t in zip(inputs, operands, strict=True):
        named = [c for c in term if c != _ELLIPSIS]
        spans.append(t.ndim - len(named))
        at = 0
        for c in term:
            if c == _ELLIPSIS:
                at += spans[-1]
                continue
            if c not in extents or sch.static(extents[c]) == 1:
                extents[c] = t.shape[at]
            at += 1
    width = max(spans, default=0)
    summed = sorted({c for term in inputs for c in term} - set(output) - {_ELLIPSIS})
    cd = compute_dtype(dtype)

    def product(out_ix: te.Indices, sum_ix: te.Indices) -> ir.PrimExpr:
        labels: dict[str, ir.PrimExpr] = dict(zip(summed, sum_ix, strict=True))
        ellipsis: tuple[ir.PrimExpr, ...] = ()
        k = 0
        for c in output:
            if c == _ELLIPSIS:
                ellipsis = out_ix[k : k + width]
                k += width
            else:
                labels[c] = out_ix[k]
                k += 1
        value: ir.PrimExpr | None = None
        for term, t, span in zip(inputs, operands, spans, strict=True):
            ix: list[ir.PrimExpr] = []
            for c in term:
                if c == _ELLIPSIS:
                    dims = t.shape[len(ix) : len(ix) + span]
                    tail = ellipsis[width - span :]
                    ix += [
                        ir.index(0) if sch.static(d) == 1 else e
                        for d, e in zip(dims, tail, strict=True)
                    ]
                else:
                    ix.append(labels[c])
            v = cast(t(*ix), cd)
            if value is None:
                value = v
            elif dtype == "bool":
                value = ir.Binary(ir.BinOp.AND, value, v)
            else:
                value = ir.Binary(ir.BinOp.MUL, value, v)
        assert value is not None
        return value

    name = ctx.fresh("einsum")
    if not summed:
        return te.compute(shape, dtype, lambda ix: cast(product(ix, ()), dtype), name)
    combiner = "any" if dtype == "bool" else "sum"
    axes = [extents[c] for c in summed]
    return te.reduce(shape, dtype, axes, combiner, product, name, acc_dtype=cd)


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
