"""Lowerings of ``semantics/ops/dyn.py``. Every ``dyn.*`` result dimension is ``?``: a size
parameter of the kernel, bound from the output buffer, which the host allocates from the op's
shape function (``OpDef.shape_func``) before the kernel runs. So a kernel never needs the shape
tensor's values where they only decide the result's shape:

- ``dyn.reshape``: the row-major position of the output index, unravelled in the data;
- ``dyn.broadcast_to``: the broadcast read (right-aligned, extent-1 axes at 0);
- ``dyn.zeros``, ``dyn.ones``, ``dyn.full`` (``full``'s lowering over the ``?`` shape);
- ``dyn.tile``: each output index modulo the data's extent (right-aligned);
- ``dyn.topk``: ``topk``'s stable permutation by ranks, the first ``k`` read where ``k`` is
  the output's extent along the axis;
- ``dyn.one_hot``: ``one_hot``'s element function over the ``?`` depth;
- ``dyn.strided_slice``: the only one that reads its bounds: ``begin`` and ``strides`` are
  loaded and canonicalised as the shape function does (an absent begin is 0, or the extent
  less 1 for a negative stride; a negative begin is increased by the extent once; a
  negative stride clamps the begin to the extent less 1; ``size`` mode has stride 1); the
  element at output index ``i`` is ``begin + i * stride``. A stride of 0 is the shape
  function's error, before the kernel runs.
"""

from __future__ import annotations

import dataclasses

from ....semantics.ops import OPS
from ....semantics.ops.create import InitOpAttrs
from ....semantics.ops.index import OneHotAttrs, StridedSliceAttrs
from ....semantics.ops.registry import Attrs
from ....semantics.ops.sort import TopKAttrs
from ....semantics.syntax import TensorType, TupleType, Type
from .. import ir, te
from .. import schedules as sch
from .broadcast import broadcast_read
from .nn.common import cast, out_shape, tensor
from .sort import gather, permutation, sort_axis


def _bin(op: ir.BinOp, a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return ir.Binary(op, a, b)


@te.lowering("dyn.reshape")
def lower_dyn_reshape(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[ix] = data[unravel(linear(ix))]`` (the shapes' element counts agree where the
    reference is defined)."""
    data = tensor(args, 0, "dyn.reshape")
    shape = out_shape(ctx, out_type, "dyn.reshape")

    if sch.static(sch.product(data.shape)) == 0:  # so is the result: no element is read
        return te.compute(shape, data.dtype, lambda ix: ir.const(0, data.dtype), "dyn_reshape")

    def element(ix: te.Indices) -> ir.PrimExpr:
        flat: ir.PrimExpr = ir.index(0)
        for i, d in zip(ix, shape, strict=True):
            flat = sch.add(sch.mul(flat, d), i)
        return data(*sch.unflatten(flat, data.shape))

    return te.compute(shape, data.dtype, element, ctx.fresh("dyn_reshape"))


@te.lowering("dyn.broadcast_to")
def lower_dyn_broadcast_to(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The broadcast read of ``data`` at each output index."""
    data = tensor(args, 0, "dyn.broadcast_to")
    shape = out_shape(ctx, out_type, "dyn.broadcast_to")
    return te.compute(
        shape, data.dtype, lambda ix: broadcast_read(data, ix), ctx.fresh("dyn_broadcast_to")
    )


def _constant(
    ctx: te.LowerContext, attrs: Attrs | None, out_type: Type, value: int, op: str
) -> te.TensorResult:
    assert isinstance(attrs, InitOpAttrs)
    shape = out_shape(ctx, out_type, op)
    dtype = attrs.dtype
    return te.compute(shape, dtype, lambda ix: ir.const(value, dtype), ctx.fresh(op[4:]))


@te.lowering("dyn.zeros")
def lower_dyn_zeros(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Zeros of the ``?`` shape."""
    return _constant(ctx, attrs, out_type, 0, "dyn.zeros")


@te.lowering("dyn.ones")
def lower_dyn_ones(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Ones of the ``?`` shape."""
    return _constant(ctx, attrs, out_type, 1, "dyn.ones")


@te.lowering("dyn.full")
def lower_dyn_full(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``full``'s lowering (the fill value cast as ``full`` casts it) over the ``?`` shape."""
    fill = tensor(args, 0, "dyn.full")
    return te.LOWERINGS["full"].fn(ctx, (fill,), attrs, arg_types[:1], out_type)  # type: ignore[arg-type]


@te.lowering("dyn.tile")
def lower_dyn_tile(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[ix] = data[ix[k] % extent_k]``, data aligned on the right."""
    data = tensor(args, 0, "dyn.tile")
    shape = out_shape(ctx, out_type, "dyn.tile")
    offset = len(shape) - data.ndim
    if sch.static(sch.product(data.shape)) == 0:  # so is the result: no element is read
        return te.compute(shape, data.dtype, lambda ix: ir.const(0, data.dtype), "dyn_tile")

    def element(ix: te.Indices) -> ir.PrimExpr:
        at: list[ir.PrimExpr] = []
        for k, d in enumerate(data.shape):
            i = ix[offset + k]
            sd = sch.static(d)
            at.append(sch.floormod(i, sd) if sd else _bin(ir.BinOp.FLOORMOD, i, d))
        return data(*at)

    return te.compute(shape, data.dtype, element, ctx.fresh("dyn_tile"))


def _indices(
    ctx: te.LowerContext, perm: te.Tensor, shape: tuple[ir.PrimExpr, ...], dtype: str
) -> te.Tensor:
    return te.compute(shape, dtype, lambda ix: cast(perm(*ix), dtype), ctx.fresh("topk_idx"))


@te.lowering("dyn.topk")
def lower_dyn_topk(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``topk`` with ``k`` the result's extent along the axis (the shape function's)."""
    assert isinstance(attrs, TopKAttrs)
    data = tensor(args, 0, "dyn.topk")
    axis = sort_axis("dyn.topk", data, attrs.axis)
    types = out_type.fields if isinstance(out_type, TupleType) else (out_type,)
    shapes = [out_shape(ctx, t, "dyn.topk") for t in types]
    perm = permutation(ctx.fresh("topk_perm"), data, axis, attrs.is_ascend, "int64")
    kinds = ("values", "indices") if attrs.ret_type == "both" else (attrs.ret_type,)
    results: list[te.Tensor] = []
    for kind, t, shape in zip(kinds, types, shapes, strict=True):
        assert isinstance(t, TensorType)
        if kind == "values":
            results.append(gather(ctx.fresh("topk_values"), data, perm, axis, shape))
        else:
            results.append(_indices(ctx, perm, shape, t.dtype))
    if attrs.ret_type == "both":
        return (results[0], results[1])
    return results[0]


@te.lowering("dyn.one_hot")
def lower_dyn_one_hot(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``one_hot``'s element function over the ``?`` depth."""
    assert isinstance(attrs, OneHotAttrs)
    inputs = tuple(tensor(args, i, "dyn.one_hot") for i in range(3))
    static_attrs = dataclasses.replace(attrs, depth=1)
    relation = OPS["one_hot"].relation
    assert relation is not None
    static_type = relation(arg_types[:3], static_attrs)
    one = te.LOWERINGS["one_hot"].fn(ctx, inputs, static_attrs, arg_types[:3], static_type)
    assert isinstance(one, te.Tensor)
    shape = out_shape(ctx, out_type, "dyn.one_hot")
    return te.compute(shape, one.dtype, lambda ix: one(*ix), ctx.fresh("dyn_one_hot"))


@te.lowering("dyn.strided_slice")
def lower_dyn_strided_slice(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[.., i, ..] = data[.., begin + i * stride, ..]`` with ``begin`` and ``stride``
    loaded and canonicalised (see the module docstring)."""
    assert isinstance(attrs, StridedSliceAttrs)
    data, begin, _, strides = (tensor(args, i, "dyn.strided_slice") for i in range(4))
    shape = out_shape(ctx, out_type, "dyn.strided_slice")
    lengths = []
    for t in (begin, strides):
        n = sch.static(t.shape[0]) if t.ndim == 1 else None
        if n is None:
            raise te.LoweringError("dyn.strided_slice", "the bounds' lengths must be static")
        lengths.append(n)
    n_begin, n_strides = lengths
    zero, one = ir.index(0), ir.index(1)

    def element(ix: te.Indices) -> ir.PrimExpr:
        at: list[ir.PrimExpr] = []
        for k, dim in enumerate(data.shape):
            if attrs.slice_mode == "size" or k >= n_strides:
                stride: ir.PrimExpr = one
            else:
                stride = cast(strides(ir.index(k)), ir.INDEX)
            negative = _bin(ir.BinOp.LT, stride, zero)
            if k < n_begin:
                b = cast(begin(ir.index(k)), ir.INDEX)
            else:
                b = ir.Select(negative, dim, zero)
            b = ir.Select(_bin(ir.BinOp.LT, b, zero), sch.add(b, dim), b)
            last = sch.sub(dim, 1)
            if attrs.slice_mode != "size":
                b = ir.Select(_bin(ir.BinOp.AND, negative, _bin(ir.BinOp.GT, b, last)), last, b)
            at.append(sch.add(b, sch.mul(ix[k], stride)))
        return data(*at)

    return te.compute(shape, data.dtype, element, ctx.fresh("dyn_strided_slice"))
