"""Lowerings of ``semantics/ops/nn/loss.py``: ``nn.cross_entropy`` (a reduction over every
element, ``-sum(log(x) * y) / N``) and ``nn.nll_loss`` (a compute per target; "sum" and "mean"
reduce it, "mean" dividing by the sum of the kept targets' weights). Float16 in float32."""

from __future__ import annotations

from .....semantics.ops.nn.loss import NLLLossAttrs
from .....semantics.ops.registry import Attrs
from .....semantics.syntax import Type
from ... import ir, te
from ... import schedules as sch
from .common import cast, compute_dtype, tensor


def _bin(op: ir.BinOp, a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return ir.Binary(op, a, b)


@te.lowering("nn.cross_entropy")
def lower_cross_entropy(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``-sum(log(x) * y) / N``, ``N = x.shape[0]``."""
    op = "nn.cross_entropy"
    x, y = tensor(args, 0, op), tensor(args, 1, op)
    if not x.dtype.startswith("float"):
        raise te.LoweringError(op, f"{x.dtype} data has no defined result")
    cd = compute_dtype(x.dtype)

    def term(ix: te.Indices, r: te.Indices) -> ir.PrimExpr:
        return _bin(ir.BinOp.MUL, ir.Call("log", (cast(x(*r), cd),), cd), cast(y(*r), cd))

    n = ir.Cast(cd, x.shape[0])
    return te.reduce(
        (),
        x.dtype,
        x.shape,
        "sum",
        term,
        ctx.fresh("cross_entropy"),
        acc_dtype=cd,
        finish=lambda acc, ix: _bin(ir.BinOp.DIV, ir.Unary(ir.UnOp.NEG, acc), n),
    )


@te.lowering("nn.nll_loss")
def lower_nll_loss(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``l = -predictions[n, t, d..] * weights[t]`` (0 where ``t == ignore_index``), reduced
    as ``reduction`` says."""
    assert isinstance(attrs, NLLLossAttrs)
    op = "nn.nll_loss"
    p, t, w = (tensor(args, i, op) for i in range(3))
    if not p.dtype.startswith("float"):
        raise te.LoweringError(op, f"{p.dtype} data has no defined result")
    cd = compute_dtype(p.dtype)
    classes = p.shape[0 if p.ndim == 1 else 1]
    zero = ir.const(0, cd)

    def target(ix: te.Indices) -> tuple[ir.PrimExpr, ir.PrimExpr]:
        """The kept condition and the clamped class index of target ``ix``."""
        v = cast(t(*ix), "int64")
        kept = _bin(ir.BinOp.NE, v, ir.index(attrs.ignore_index))
        safe = _bin(ir.BinOp.MIN, _bin(ir.BinOp.MAX, v, ir.index(0)), sch.sub(classes, 1))
        return kept, ir.Select(kept, safe, ir.index(0))

    def loss(ix: te.Indices) -> ir.PrimExpr:
        kept, c = target(ix)
        picked = p(c) if p.ndim == 1 else p(ix[0], c, *ix[1:])
        value = _bin(ir.BinOp.MUL, ir.Unary(ir.UnOp.NEG, cast(picked, cd)), cast(w(c), cd))
        return ir.Select(kept, value, zero)

    def weight(ix: te.Indices) -> ir.PrimExpr:
        kept, c = target(ix)
        return ir.Select(kept, cast(w(c), cd), zero)

    if attrs.reduction == "none":
        return te.compute(t.shape, p.dtype, lambda ix: cast(loss(ix), p.dtype), ctx.fresh(op))
    total = te.reduce((), cd, t.shape, "sum", lambda ix, r: loss(r), ctx.fresh("nll_sum"))
    if attrs.reduction == "sum":
        return te.compute((), p.dtype, lambda ix: cast(total(), p.dtype), ctx.fresh("nll"))
    weights = te.reduce((), cd, t.shape, "sum", lambda ix, r: weight(r), ctx.fresh("nll_w"))
    return te.compute(
        (),
        p.dtype,
        lambda ix: cast(_bin(ir.BinOp.DIV, total(), weights()), p.dtype),
        ctx.fresh("nll"),
    )
