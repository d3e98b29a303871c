"""Lowerings of ``semantics/ops/nn/norm.py``.

Statistics are reductions in the compute dtype (float16 in float32): the mean is the sum
divided by the element count, the variance the mean of ``(x - mean)^2`` (two passes, as the
reference); the normalised element is a compute reading them. Attribute constants are made in
the dtype the reference makes them in (``batch_norm``: epsilon rounded to the data dtype first).

- ``nn.batch_norm`` (inference): the tuple ``(normalised, moving_mean, moving_var)``;
- ``nn.layer_norm``, ``nn.instance_norm``, ``nn.group_norm``: statistics over the axis, every
  axis but 0 and the axis, a group of channels and the axes after it;
- ``nn.l2_normalize``: ``x / sqrt(select(s > eps, s, eps))``, ``s`` the sum of squares;
- ``nn.lrn``: ``x / (bias + alpha * s / size)^beta``, ``s`` the windowed sum of squares;
- ``nn.dropout`` (inference): ``(data, ones)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .....semantics.ops.nn.norm import (
    BatchNormAttrs,
    DropoutAttrs,
    GroupNormAttrs,
    InstanceNormAttrs,
    L2NormalizeAttrs,
    LayerNormAttrs,
    LRNAttrs,
)
from .....semantics.ops.registry import Attrs
from .....semantics.syntax import Type
from ... import ir, te
from ... import schedules as sch
from .common import cast, compute_dtype, tensor


def _bin(op: ir.BinOp, a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return ir.Binary(op, a, b)


def _float(x: te.Tensor, op: str) -> str:
    if not x.dtype.startswith("float"):
        raise te.LoweringError(op, f"{x.dtype} data has no defined result")
    return compute_dtype(x.dtype)


def _const(value: float, dtype: str) -> ir.Const:
    """``value`` rounded to ``dtype`` (``MakeConstantScalar``)."""
    return ir.const(float(np.asarray(value, dtype=dtype)), dtype)


StatIndex = Callable[[te.Indices], te.Indices]
"""From an element's indices to the indices of its statistics."""

Member = Callable[[te.Indices, te.Indices], te.Indices]
"""From statistics indices and reduction indices to the element's indices."""


def moments(
    ctx: te.LowerContext,
    x: te.Tensor,
    cd: str,
    shape: Sequence[ir.PrimExpr],
    extents: Sequence[ir.PrimExpr],
    member: Member,
) -> tuple[te.Reduce, te.Reduce]:
    """The mean and the population variance of ``x`` (in ``cd``) per statistics index of
    ``shape``, over the elements ``member(s, r)`` for ``r`` in ``extents``."""
    count = ir.Cast(cd, sch.product(extents))

    def value(s: te.Indices, r: te.Indices) -> ir.PrimExpr:
        return cast(x(*member(s, r)), cd)

    mean = te.reduce(
        shape,
        cd,
        extents,
        "sum",
        value,
        ctx.fresh("mean"),
        finish=lambda acc, s: _bin(ir.BinOp.DIV, acc, count),
    )

    def square(s: te.Indices, r: te.Indices) -> ir.PrimExpr:
        d = _bin(ir.BinOp.SUB, value(s, r), mean(*s))
        return _bin(ir.BinOp.MUL, d, d)

    var = te.reduce(
        shape,
        cd,
        extents,
        "sum",
        square,
        ctx.fresh("var"),
        finish=lambda acc, s: _bin(ir.BinOp.DIV, acc, count),
    )
    return mean, var


def _normalised(
    ctx: te.LowerContext,
    x: te.Tensor,
    gamma: te.Tensor,
    beta: te.Tensor,
    axis: int,
    cd: str,
    eps: ir.PrimExpr,
    scale: bool,
    center: bool,
    stat_of: StatIndex,
    mean: te.Tensor,
    var: te.Tensor,
    name: str,
) -> te.Tensor:
    """``(x - mean) / sqrt(var + eps) [* gamma] [+ beta]``, gamma and beta along ``axis``."""

    def element(ix: te.Indices) -> ir.PrimExpr:
        s = stat_of(ix)
        centred = _bin(ir.BinOp.SUB, cast(x(*ix), cd), mean(*s))
        root = ir.Call("sqrt", (_bin(ir.BinOp.ADD, var(*s), eps),), cd)
        out = _bin(ir.BinOp.DIV, centred, root)
        if scale:
            out = _bin(ir.BinOp.MUL, out, cast(gamma(ix[axis]), cd))
        if center:
            out = _bin(ir.BinOp.ADD, out, cast(beta(ix[axis]), cd))
        return cast(out, x.dtype)

    return te.compute(x.shape, x.dtype, element, ctx.fresh(name))


def _kept(
    x: te.Tensor, keep: Sequence[int]
) -> tuple[list[ir.PrimExpr], list[ir.PrimExpr], StatIndex, Member]:
    """Statistics over every axis not in ``keep``: their shape, the reduced extents, and the
    index maps."""
    keep = sorted(set(keep))
    reduced = [i for i in range(x.ndim) if i not in keep]
    shape = [x.shape[i] for i in keep]
    extents = [x.shape[i] for i in reduced]

    def stat_of(ix: te.Indices) -> te.Indices:
        return tuple(ix[i] for i in keep)

    def member(s: te.Indices, r: te.Indices) -> te.Indices:
        full: list[ir.PrimExpr] = [ir.index(0)] * x.ndim
        for i, v in zip(keep, s, strict=True):
            full[i] = v
        for i, v in zip(reduced, r, strict=True):
            full[i] = v
        return tuple(full)

    return shape, extents, stat_of, member


@te.lowering("nn.layer_norm", "nn.instance_norm")
def lower_layer_norm(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Statistics over the axis (layer) or every axis but 0 and the axis (instance)."""
    assert isinstance(attrs, LayerNormAttrs | InstanceNormAttrs)
    op = "nn.layer_norm" if isinstance(attrs, LayerNormAttrs) else "nn.instance_norm"
    x, gamma, beta = (tensor(args, i, op) for i in range(3))
    cd = _float(x, op)
    axis = attrs.axis % x.ndim
    keep = [i for i in range(x.ndim) if i != axis] if op == "nn.layer_norm" else [0, axis]
    shape, extents, stat_of, member = _kept(x, keep)
    mean, var = moments(ctx, x, cd, shape, extents, member)
    eps = _const(attrs.epsilon, cd)
    return _normalised(
        ctx, x, gamma, beta, axis, cd, eps, attrs.scale, attrs.center, stat_of, mean, var, "norm"
    )


@te.lowering("nn.group_norm")
def lower_group_norm(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Statistics per group of ``C / num_groups`` channels and every axis after the axis."""
    assert isinstance(attrs, GroupNormAttrs)
    op = "nn.group_norm"
    x, gamma, beta = (tensor(args, i, op) for i in range(3))
    cd = _float(x, op)
    axis = attrs.axis % x.ndim
    groups = attrs.num_groups
    c = sch.static(x.shape[axis])
    if c is None:
        raise te.LoweringError(op, "the channel extent must be static")
    per = c // groups
    shape = [*x.shape[:axis], ir.index(groups)]
    extents = [ir.index(per), *x.shape[axis + 1 :]]

    def stat_of(ix: te.Indices) -> te.Indices:
        return (*ix[:axis], sch.floordiv(ix[axis], per))

    def member(s: te.Indices, r: te.Indices) -> te.Indices:
        return (*s[:axis], sch.add(sch.mul(s[axis], per), r[0]), *r[1:])

    mean, var = moments(ctx, x, cd, shape, extents, member)
    eps = _const(attrs.epsilon, cd)
    return _normalised(
        ctx, x, gamma, beta, axis, cd, eps, attrs.scale, attrs.center, stat_of, mean, var, "norm"
    )


@te.lowering("nn.batch_norm")
def lower_batch_norm(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Inference: ``((x - mean) / sqrt(var + eps) [* gamma] [+ beta], mean, var)``."""
    assert isinstance(attrs, BatchNormAttrs)
    op = "nn.batch_norm"
    x, gamma, beta, mean, var = (tensor(args, i, op) for i in range(5))
    cd = _float(x, op)
    axis = attrs.axis % x.ndim
    eps = cast(_const(attrs.epsilon, x.dtype), cd)

    def element(ix: te.Indices) -> ir.PrimExpr:
        c = ix[axis]
        centred = _bin(ir.BinOp.SUB, cast(x(*ix), cd), cast(mean(c), cd))
        root = ir.Call("sqrt", (_bin(ir.BinOp.ADD, cast(var(c), cd), eps),), cd)
        out = _bin(ir.BinOp.DIV, centred, root)
        if attrs.scale:
            out = _bin(ir.BinOp.MUL, out, cast(gamma(c), cd))
        if attrs.center:
            out = _bin(ir.BinOp.ADD, out, cast(beta(c), cd))
        return cast(out, x.dtype)

    normed = te.compute(x.shape, x.dtype, element, ctx.fresh("batch_norm"))
    moving_mean = te.compute(mean.shape, mean.dtype, lambda ix: mean(*ix), ctx.fresh("mean"))
    moving_var = te.compute(var.shape, var.dtype, lambda ix: var(*ix), ctx.fresh("var"))
    return (normed, moving_mean, moving_var)


@te.lowering("nn.dropout")
def lower_dropout(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Inference: ``(data, ones)``."""
    assert isinstance(attrs, DropoutAttrs)
    x = tensor(args, 0, "nn.dropout")
    one = ir.const(1, x.dtype)
    return (
        te.compute(x.shape, x.dtype, lambda ix: x(*ix), ctx.fresh("dropout")),
        te.compute(x.shape, x.dtype, lambda ix: one, ctx.fresh("mask")),
    )


@te.lowering("nn.l2_normalize")
def lower_l2_normalize(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``x / sqrt(select(s > eps, s, eps))``, ``s`` the sum of squares over the axes."""
    assert isinstance(attrs, L2NormalizeAttrs)
    op = "nn.l2_normalize"
    x = tensor(args, 0, op)
    cd = _float(x, op)
    axes = {a % x.ndim for a in attrs.axis}
    shape, extents, stat_of, member = _kept(x, [i for i in range(x.ndim) if i not in axes])

    def square(s: te.Indices, r: te.Indices) -> ir.PrimExpr:
        v = cast(x(*member(s, r)), cd)
        return _bin(ir.BinOp.MUL, v, v)

    total = te.reduce(shape, cd, extents, "sum", square, ctx.fresh("sumsq"))
    eps = _const(attrs.eps, cd)

    def element(ix: te.Indices) -> ir.PrimExpr:
        t = total(*stat_of(ix))
        bounded = ir.Select(_bin(ir.BinOp.GT, t, eps), t, eps)
        root = ir.Call("sqrt", (bounded,), cd)
        return cast(_bin(ir.BinOp.DIV, cast(x(*ix), cd), root), x.dtype)

    return te.compute(x.shape, x.dtype, element, ctx.fresh("l2_normalize"))


@te.lowering("nn.lrn")
def lower_lrn(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``x / (bias + alpha * s / size)^beta``, ``s`` the sum of squares over ``size``
    channels centred on each (zero beyond the ends)."""
    assert isinstance(attrs, LRNAttrs)
    op = "nn.lrn"
    x = tensor(args, 0, op)
    cd = _float(x, op)
    axis = attrs.axis
    half = attrs.size // 2
    channels = x.shape[axis]
    zero = ir.const(0, cd)

    def square(ix: te.Indices, r: te.Indices) -> ir.PrimExpr:
        c = sch.sub(sch.add(ix[axis], r[0]), half)
        inside = _bin(
            ir.BinOp.AND, _bin(ir.BinOp.GE, c, ir.index(0)), _bin(ir.BinOp.LT, c, channels)
        )
        clamped = _bin(ir.BinOp.MAX, _bin(ir.BinOp.MIN, c, sch.sub(channels, 1)), ir.index(0))
        v = cast(x(*ix[:axis], clamped, *ix[axis + 1 :]), cd)
        return ir.Select(inside, _bin(ir.BinOp.MUL, v, v), zero)

    total = te.reduce(x.shape, cd, (ir.index(attrs.size),), "sum", square, ctx.fresh("lrn_sum"))
    bias, alpha, beta = (_const(v, cd) for v in (attrs.bias, attrs.alpha, attrs.beta))
    size = _const(float(attrs.size), cd)

    def element(ix: te.Indices) -> ir.PrimExpr:
        scaled = _bin(ir.BinOp.DIV, _bin(ir.BinOp.MUL, alpha, total(*ix)), size)
        base = _bin(ir.BinOp.ADD, bias, scaled)
        return cast(_bin(ir.BinOp.DIV, cast(x(*ix), cd), ir.Call("pow", (base, beta), cd)), x.dtype)

    return te.compute(x.shape, x.dtype, element, ctx.fresh("lrn"))
