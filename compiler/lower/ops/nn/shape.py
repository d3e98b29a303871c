"""Lowerings of ``semantics/ops/nn/shape.py``: index maps (computes, inlined into their
consumer).

- ``nn.batch_flatten``: ``out[n, j] = data[n, unflatten(j)]``;
- ``nn.pad``: constant (``pad_val[0..0]`` cast to the dtype), edge and reflect, as
  ``topi::pad`` (a negative width crops);
- ``nn.mirror_pad``: SYMMETRIC and REFLECT, one reflection;
- ``nn.space_to_depth``, ``nn.depth_to_space`` (DCR and CRD), NCHW and NHWC;
- ``nn.space_to_batch_nd`` (padding with ``pad_value`` as TVM's ``make_const``) and
  ``nn.batch_to_space_nd`` (then cropped): the block interleavings;
- ``nn.upsampling``: ``image.resize2d``'s lowering (``compiler/lower/ops/image.py``) with
  TOPI's upsampling options.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .....semantics.ops.image import Resize
from .....semantics.ops.nn.shape import (
    _UPSAMPLING_METHODS,
    BatchToSpaceNDAttrs,
    MirrorPadAttrs,
    PadAttrs,
    SpaceToBatchNDAttrs,
    SubPixelAttrs,
    UpSamplingAttrs,
)
from .....semantics.ops.registry import Attrs
from .....semantics.syntax import Type
from ... import ir, te
from ... import schedules as sch
from .common import cast, out_shape, padded_read, tensor


def _bin(op: ir.BinOp, a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return ir.Binary(op, a, b)


def _lt(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return _bin(ir.BinOp.LT, a, b)


@te.lowering("nn.batch_flatten")
def lower_batch_flatten(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[n, j] = data[n, unflatten(j)]`` (row-major)."""
    x = tensor(args, 0, "nn.batch_flatten")
    shape = out_shape(ctx, out_type, "nn.batch_flatten")
    rest = x.shape[1:]
    return te.compute(
        shape,
        x.dtype,
        lambda ix: x(ix[0], *sch.unflatten(ix[1], rest)),
        ctx.fresh("batch_flatten"),
    )


@te.lowering("nn.pad")
def lower_pad(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``topi::pad``: constant, edge or reflect (see the module docstring)."""
    assert isinstance(attrs, PadAttrs)
    op = "nn.pad"
    x, pad_val = tensor(args, 0, op), tensor(args, 1, op)
    shape = out_shape(ctx, out_type, op)
    mode = attrs.pad_mode
    value = cast(pad_val(*(ir.index(0) for _ in pad_val.shape)), x.dtype)
    empty = any(sch.static(d) == 0 for d in x.shape)

    def element(ix: te.Indices) -> ir.PrimExpr:
        if mode == "constant" and empty:
            return value
        sources: list[ir.PrimExpr] = []
        conds: list[ir.PrimExpr] = []
        for o, n, (before, _after) in zip(ix, x.shape, attrs.pad_width, strict=True):
            i = sch.sub(o, before)
            if mode == "constant":
                inside = [_bin(ir.BinOp.GE, i, ir.index(0)), _lt(i, n)]
                conds.extend(inside)
                clamp = _bin(ir.BinOp.MIN, _bin(ir.BinOp.MAX, i, ir.index(0)), sch.sub(n, 1))
                sources.append(clamp)
            elif mode == "edge":
                sources.append(
                    _bin(ir.BinOp.MIN, _bin(ir.BinOp.MAX, i, ir.index(0)), sch.sub(n, 1))
                )
            else:  # reflect: -i before the start, 2n - 2 - i after the end
                low = ir.Select(_lt(i, ir.index(0)), sch.sub(ir.index(0), i), i)
                sources.append(
                    ir.Select(_bin(ir.BinOp.GE, i, n), sch.sub(sch.sub(sch.mul(n, 2), 2), i), low)
                )
        v = x(*sources)
        if not conds:
            return v
        cond = conds[0]
        for c in conds[1:]:
            cond = _bin(ir.BinOp.AND, cond, c)
        return ir.Select(cond, v, value)

    return te.compute(shape, x.dtype, element, ctx.fresh("pad"))


@te.lowering("nn.mirror_pad")
def lower_mirror_pad(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """SYMMETRIC (``-1`` reads 0) or REFLECT (``-1`` reads 1), one reflection."""
    assert isinstance(attrs, MirrorPadAttrs)
    op = "nn.mirror_pad"
    x = tensor(args, 0, op)
    shape = out_shape(ctx, out_type, op)
    shift = 1 if attrs.mode == "SYMMETRIC" else 0

    def element(ix: te.Indices) -> ir.PrimExpr:
        sources: list[ir.PrimExpr] = []
        for o, n, (before, _after) in zip(ix, x.shape, attrs.pad_width, strict=True):
            i = sch.sub(o, before)
            low = ir.Select(_lt(i, ir.index(0)), sch.sub(ir.index(-shift), i), i)
            high = sch.sub(sch.add(sch.sub(sch.mul(n, 2), 2), shift), i)
            sources.append(ir.Select(_bin(ir.BinOp.GE, i, n), high, low))
        return x(*sources)

    return te.compute(shape, x.dtype, element, ctx.fresh("mirror_pad"))


def _nchw(layout: str, ix: te.Indices) -> te.Indices:
    """Indices in ``layout`` (NCHW or NHWC) as NCHW."""
    return ix if layout == "NCHW" else (ix[0], ix[3], ix[1], ix[2])


def _from_nchw(
    layout: str, n: ir.PrimExpr, c: ir.PrimExpr, h: ir.PrimExpr, w: ir.PrimExpr
) -> te.Indices:
    return (n, c, h, w) if layout == "NCHW" else (n, h, w, c)


@te.lowering("nn.space_to_depth")
def lower_space_to_depth(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[n, (by * b + bx) * C + c, y, x] = in[n, c, y * b + by, x * b + bx]``."""
    assert isinstance(attrs, SubPixelAttrs)
    op = "nn.space_to_depth"
    x = tensor(args, 0, op)
    shape = out_shape(ctx, out_type, op)
    b = attrs.block_size
    c_in = x.shape[1] if attrs.layout == "NCHW" else x.shape[3]
    cs = sch.static(c_in)
    if cs is None:
        raise te.LoweringError(op, "the channel extent must be static")
    cs = max(cs, 1)  # no channels: an empty output, the expression is never evaluated

    def element(ix: te.Indices) -> ir.PrimExpr:
        n, oc, y, xx = _nchw(attrs.layout, ix)
        c = sch.floormod(oc, cs)
        block = sch.floordiv(oc, cs)
        by, bx = sch.floordiv(block, b), sch.floormod(block, b)
        h = sch.add(sch.mul(y, b), by)
        w = sch.add(sch.mul(xx, b), bx)
        return x(*_from_nchw(attrs.layout, n, c, h, w))

    return te.compute(shape, x.dtype, element, ctx.fresh("space_to_depth"))


@te.lowering("nn.depth_to_space")
def lower_depth_to_space(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """DCR: ``in[n, ((y % b) * b + x % b) * C' + c, y / b, x / b]``; CRD:
    ``in[n, c * b^2 + (y % b) * b + x % b, y / b, x / b]``."""
    assert isinstance(attrs, SubPixelAttrs)
    op = "nn.depth_to_space"
    x = tensor(args, 0, op)
    shape = out_shape(ctx, out_type, op)
    b = attrs.block_size
    oc = _nchw(attrs.layout, shape)[1]
    ocs = sch.static(oc)
    if ocs is None:
        raise te.LoweringError(op, "the channel extent must be static")

    def element(ix: te.Indices) -> ir.PrimExpr:
        n, c, y, xx = _nchw(attrs.layout, ix)
        offset = sch.add(sch.mul(sch.floormod(y, b), b), sch.floormod(xx, b))
        if attrs.mode == "DCR":
            channel = sch.add(sch.mul(offset, ocs), c)
        else:
            channel = sch.add(sch.mul(c, b * b), offset)
        return x(*_from_nchw(attrs.layout, n, channel, sch.floordiv(y, b), sch.floordiv(xx, b)))

    return te.compute(shape, x.dtype, element, ctx.fresh("depth_to_space"))


@te.lowering("nn.upsampling")
def lower_upsampling(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``image.resize2d`` to ``(round(H * scale_h), round(W * scale_w))``: nearest_neighbor,
    linear (bilinear) or cubic (bicubic, alpha -0.5, no exclusion), align_corners or
    asymmetric coordinates, rounding ``""`` (static H and W)."""
    from ..image import resize2d  # the image module imports nn.common: imported when used

    assert isinstance(attrs, UpSamplingAttrs)
    x = tensor(args, 0, "nn.upsampling")
    h, w = attrs.layout.index("H"), attrs.layout.index("W")
    ih, iw = sch.static(x.shape[h]), sch.static(x.shape[w])
    if ih is None or iw is None:
        raise te.LoweringError("nn.upsampling", "the input height and width must be static")
    r = Resize(
        size=(round(ih * attrs.scale_h), round(iw * attrs.scale_w)),
        roi=(0.0, 0.0, 0.0, 0.0),
        method=_UPSAMPLING_METHODS[attrs.method],
        mode="align_corners" if attrs.align_corners else "asymmetric",
        rounding="",
        alpha=-0.5,
        exclude=False,
        extrapolation=0.0,
    )
    shape = out_shape(ctx, out_type, "nn.upsampling")
    return resize2d(ctx.fresh("upsampling"), x, attrs.layout, r, shape, x.dtype, "nn.upsampling")


def _fill(value: float, dtype: str) -> ir.Const:
    """``pad_value`` as TVM's ``make_const``: rounded for floats, truncated toward zero for
    integers (a value the dtype cannot hold is undefined: 0 here)."""
    if dtype.startswith("float"):
        with np.errstate(over="ignore"):
            return ir.const(float(np.dtype(dtype).type(value)), dtype)
    if not math.isfinite(value):
        return ir.const(0, dtype)
    t = math.trunc(value)
    if dtype == "bool":
        return ir.const(t if t in (0, 1) else 0, dtype)
    info = np.iinfo(np.dtype(dtype))
    return ir.const(t if info.min <= t <= info.max else 0, dtype)


def _divmod(a: ir.PrimExpr, d: ir.PrimExpr) -> tuple[ir.PrimExpr, ir.PrimExpr]:
    """``(a % d, a // d)`` on non-negative indices (folded for a static ``d``)."""
    sd = sch.static(d)
    if sd is not None:
        return sch.floormod(a, sd), sch.floordiv(a, sd)
    return _bin(ir.BinOp.FLOORMOD, a, d), _bin(ir.BinOp.FLOORDIV, a, d)


def _flat(ks: Sequence[ir.PrimExpr], blocks: Sequence[int]) -> ir.PrimExpr:
    """Block offsets ``ks`` as one row-major index over ``blocks``."""
    flat: ir.PrimExpr = ir.index(0)
    for k, b in zip(ks, blocks, strict=True):
        flat = sch.add(sch.mul(flat, b), k)
    return flat


@te.lowering("nn.space_to_batch_nd")
def lower_space_to_batch_nd(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[k * N + n, i.., rest] = padded[n, i * block + k.., rest]`` (``k`` the row-major
    block offsets; positions in the padding read ``pad_value``)."""
    assert isinstance(attrs, SpaceToBatchNDAttrs)
    x = tensor(args, 0, "nn.space_to_batch_nd")
    blocks = list(attrs.block_shape)
    m = len(blocks)
    batch = x.shape[0]
    fill = _fill(attrs.pad_value, x.dtype)
    shape = out_shape(ctx, out_type, "nn.space_to_batch_nd")

    def element(ix: te.Indices) -> ir.PrimExpr:
        b = ix[0]
        n, k = _divmod(b, batch)
        ks = sch.unflatten(k, [ir.index(v) for v in blocks])
        spatial = [
            sch.sub(sch.add(sch.mul(ix[1 + j], blocks[j]), ks[j]), attrs.paddings[j][0])
            for j in range(m)
        ]
        tail = ix[m + 1 :]
        return padded_read(lambda *i: x(*i, *tail), (n,), spatial, x.shape[1 : m + 1], fill)

    return te.compute(shape, x.dtype, element, ctx.fresh("space_to_batch"))


@te.lowering("nn.batch_to_space_nd")
def lower_batch_to_space_nd(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[n, o.., rest] = data[k * N' + n, q // block.., rest]`` with ``q = o + crop_begin``
    and ``k`` the row-major offsets ``q % block`` (``N'`` the output batch)."""
    assert isinstance(attrs, BatchToSpaceNDAttrs)
    x = tensor(args, 0, "nn.batch_to_space_nd")
    blocks = list(attrs.block_shape)
    m = len(blocks)
    shape = out_shape(ctx, out_type, "nn.batch_to_space_nd")
    batch = shape[0]

    def element(ix: te.Indices) -> ir.PrimExpr:
        q = [sch.add(ix[1 + j], attrs.crops[j][0]) for j in range(m)]
        ks = [sch.floormod(q[j], blocks[j]) for j in range(m)]
        s = [sch.floordiv(q[j], blocks[j]) for j in range(m)]
        b = sch.add(sch.mul(_flat(ks, blocks), batch), ix[0])
        return x(b, *s, *ix[m + 1 :])

    return te.compute(shape, x.dtype, element, ctx.fresh("batch_to_space"))
