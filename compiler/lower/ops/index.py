"""Lowerings of the ``index`` operators (``semantics/ops/index.py``).

The gathers (``take``, ``gather``, ``gather_nd``, ``strided_slice``, ``slice_like``,
``one_hot``, ``unravel_index``, ``sequence_mask``) are ``Compute`` tensors: each output element
reads data at a position computed from the output index and, for the gathers, from a loaded
index. Index values are converted to ``int64`` exactly (``uint64`` indices are compared and
reduced in ``uint64``). Where the reference leaves an index outside its range undefined (take
with mode ``fast``, gather, gather_nd), the position is clamped into the axis so that the
kernel never reads out of bounds; any value there is acceptable.

The scatters (``scatter_elements``, ``scatter_nd``, ``sparse_to_dense``,
``invert_permutation``) are ``Scheduled`` tensors: a parallel nest that copies data (or fills
the default), then a serial nest over the updates in row-major order that combines each one
into its target (``update`` stores; ``add``/``mul`` wrap as the elementwise arithmetic does,
on bool ``xor``/``and``; ``min``/``max`` propagate NaN as numpy's). A fused consumer of a
scatter is applied by a third nest over a local copy, never at the scatter's stores (a
position may be written more than once).

``strided_slice`` needs the data's sliced extents to be known integers (its canonical bounds
are computed when lowering; an axis it pads with the whole axis may have any extent), and
``unravel_index`` a known length of its shape vector.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ....semantics.ops.index import (
    GatherAttrs,
    GatherNDAttrs,
    OneHotAttrs,
    ScatterElementsAttrs,
    ScatterNDAttrs,
    SequenceMaskAttrs,
    SparseToDenseAttrs,
    StridedSliceAttrs,
    TakeAttrs,
    _strided_slice_plan,
)
from ....semantics.ops.registry import Attrs
from ....semantics.syntax import TensorType, Type
from .. import ir, te
from .elementwise import convert, is_float, tensor_input
from .shape import unravel

B = ir.BinOp
I64 = ir.INDEX


def _sub1(extent: ir.PrimExpr) -> ir.PrimExpr:
    if isinstance(extent, ir.Const):
        return ir.index(int(extent.value) - 1)
    return ir.Binary(B.SUB, extent, ir.index(1))


def clamp_index(i: ir.PrimExpr, extent: ir.PrimExpr) -> ir.PrimExpr:
    """The ``int64`` position ``i`` clamped into ``[0, extent)``."""
    return ir.Binary(B.MAX, ir.index(0), ir.Binary(B.MIN, i, _sub1(extent)))


def to_index(e: ir.PrimExpr) -> ir.PrimExpr:
    """An integer or bool value as an ``int64`` index (``uint64`` wraps: callers that care
    compare in ``uint64`` first)."""
    return e if e.dtype == I64 else ir.Cast(I64, e)


def take_position(e: ir.PrimExpr, extent: ir.PrimExpr, mode: str) -> ir.PrimExpr:
    """The position ``take`` reads along an axis of ``extent`` for index value ``e``: clip
    clamps, wrap is the floor modulo, fast is the index itself (clamped: out of range is
    undefined)."""
    if e.dtype == "uint64":
        if mode == "wrap":
            return ir.Cast(I64, ir.Binary(B.MOD, e, ir.Cast("uint64", extent)))
        last = _sub1(extent)
        over = ir.Binary(B.GT, e, ir.Cast("uint64", last))
        return ir.Select(over, last, ir.Cast(I64, e))
    i = to_index(e)
    if mode == "wrap":
        return ir.Binary(B.FLOORMOD, i, extent)
    return clamp_index(i, extent)


def _take(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Without an axis: the flattened data at each index. With one: ``out[b, p, j, q] =
    data[b, p, position(indices[b, j]), q]`` for the batch, pre, index and post axes."""
    assert isinstance(attrs, TakeAttrs)
    data, indices = tensor_input(inputs, 0), tensor_input(inputs, 1)
    mode = attrs.mode
    if attrs.axis is None:
        size: ir.PrimExpr = ir.index(1)
        for d in data.shape:
            size = d if size == ir.index(1) else ir.Binary(B.MUL, size, d)

        def flat(idx: te.Indices) -> ir.PrimExpr:
            return data(*unravel(take_position(indices(*idx), size, mode), data.shape))

        return te.compute(indices.shape, data.dtype, flat, "take")
    axis = attrs.axis % data.ndim
    bd = attrs.batch_dims
    inner = indices.ndim - bd
    shape = (*data.shape[:axis], *indices.shape[bd:], *data.shape[axis + 1 :])

    def element(idx: te.Indices) -> ir.PrimExpr:
        batch, pre = idx[:bd], idx[bd:axis]
        j = idx[axis : axis + inner]
        post = idx[axis + inner :]
        k = take_position(indices(*batch, *j), data.shape[axis], mode)
        return data(*batch, *pre, k, *post)

    return te.compute(shape, data.dtype, element, "take")


te.lowering("take")(_take)


@te.lowering("strided_slice")
def _strided_slice(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """On each sliced axis ``out[i] = data[begin + stride * i]`` with the relation's canonical
    begin and stride (computed here: the sliced extents must be known)."""
    assert isinstance(attrs, StridedSliceAttrs)
    data = tensor_input(inputs, 0)
    t = arg_types[0]
    assert isinstance(t, TensorType)
    _, plan = _strided_slice_plan(t.shape, attrs)
    if attrs.axes is not None:
        sliced = set(attrs.axes)
    else:
        # Without axes, the axes past every given list are padded with the whole axis (begin 0,
        # end "to the end", stride 1): the identity, whatever the extent.
        assert attrs.begin is not None and attrs.end is not None and attrs.strides is not None
        given = max(len(attrs.begin), len(attrs.end), len(attrs.strides))
        sliced = set(range(min(given, data.ndim)))
        if attrs.slice_mode == "size":
            sliced = set(range(data.ndim))
    if sliced - set(plan):
        raise te.LoweringError("strided_slice", "a sliced extent is not a known integer")
    shape = tuple(ir.index(plan[k][2]) if k in plan else data.shape[k] for k in range(data.ndim))

    def element(idx: te.Indices) -> ir.PrimExpr:
        src: list[ir.PrimExpr] = []
        for k, i in enumerate(idx):
            if k not in plan:
                src.append(i)
                continue
            begin, stride, _ = plan[k]
            scaled = i if stride == 1 else ir.Binary(B.MUL, i, ir.index(stride))
            src.append(scaled if begin == 0 else ir.Binary(B.ADD, ir.index(begin), scaled))
        return data(*src)

    return te.compute(shape, data.dtype, element, "strided_slice")


@te.lowering("slice_like")
def _slice_like(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The leading corner of data, of the result type's shape."""
    data = tensor_input(inputs, 0)
    assert isinstance(out_type, TensorType)
    return te.compute(ctx.shape(out_type), data.dtype, lambda idx: data(*idx), "slice_like")


@te.lowering("gather")
def _gather(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[i] = data[i with i[axis] replaced by indices[i]]``."""
    assert isinstance(attrs, GatherAttrs) and attrs.axis is not None
    data, indices = tensor_input(inputs, 0), tensor_input(inputs, 1)
    axis = attrs.axis % data.ndim

    def element(idx: te.Indices) -> ir.PrimExpr:
        src = list(idx)
        src[axis] = clamp_index(to_index(indices(*idx)), data.shape[axis])
        return data(*src)

    return te.compute(indices.shape, data.dtype, element, "gather")


@te.lowering("gather_nd")
def _gather_nd(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[y, r] = data[y[:batch_dims], indices[0, y], .., indices[M - 1, y], r]``."""
    assert isinstance(attrs, GatherNDAttrs)
    data, indices = tensor_input(inputs, 0), tensor_input(inputs, 1)
    m_dim = indices.shape[0]
    assert isinstance(m_dim, ir.Const)
    m, b = int(m_dim.value), attrs.batch_dims
    k = indices.ndim - 1
    shape = (*indices.shape[1:], *data.shape[m + b :])

    def element(idx: te.Indices) -> ir.PrimExpr:
        y, rest = idx[:k], idx[k:]
        picked = [
            clamp_index(to_index(indices(ir.index(j), *y)), data.shape[b + j]) for j in range(m)
        ]
        return data(*y[:b], *picked, *rest)

    return te.compute(shape, data.dtype, element, "gather_nd")


@te.lowering("one_hot")
def _one_hot(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``on_value`` where the index equals the position along the new axis, else
    ``off_value``, both converted as ``cast`` does."""
    assert isinstance(attrs, OneHotAttrs) and isinstance(out_type, TensorType)
    indices, on, off = (tensor_input(inputs, k) for k in range(3))
    dtype = out_type.dtype
    at = indices.ndim if attrs.axis == -1 else attrs.axis
    shape = (*indices.shape[:at], ir.index(attrs.depth), *indices.shape[at:])

    def element(idx: te.Indices) -> ir.PrimExpr:
        j = idx[at]
        value = indices(*idx[:at], *idx[at + 1 :])
        if value.dtype == "uint64":
            hit = ir.Binary(B.EQ, value, ir.Cast("uint64", j))
        else:
            hit = ir.Binary(B.EQ, to_index(value), j)
        return ir.Select(hit, convert(on(), dtype), convert(off(), dtype))

    return te.compute(shape, dtype, element, "one_hot")


@te.lowering("unravel_index")
def _unravel_index(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[i, p]`` is coordinate ``i`` of ``data[p]`` in the row-major shape: the floor
    quotients and remainders by the shape's entries from the last, in int64."""
    data, dims = tensor_input(inputs, 0), tensor_input(inputs, 1)
    s_dim = dims.shape[0]
    if not isinstance(s_dim, ir.Const):
        raise te.LoweringError("unravel_index", "the length of the shape vector is not known")
    s = int(s_dim.value)
    shape = (s_dim, *data.shape)

    def element(idx: te.Indices) -> ir.PrimExpr:
        flat = to_index(data(*idx[1:]))
        coords: list[ir.PrimExpr] = [ir.index(0)] * s
        for i in reversed(range(s)):
            d = to_index(dims(ir.index(i)))
            coords[i] = ir.Binary(B.FLOORMOD, flat, d)
            flat = ir.Binary(B.FLOORDIV, flat, d)
        out = coords[s - 1] if s else ir.index(0)
        for i in reversed(range(s - 1)):
            out = ir.Select(ir.Binary(B.EQ, idx[0], ir.index(i)), coords[i], out)
        return te.as_dtype(out, data.dtype)

    return te.compute(shape, data.dtype, element, "unravel_index")


def value_constant(value: float, dtype: str) -> ir.Const:
    """A float attribute converted to ``dtype`` as ``cast`` does (to bool: ordered ``!= 0``;
    an undefined conversion to an integer, of NaN, an infinity or an out-of-range value,
    gives 0)."""
    if is_float(dtype):
        return ir.const(value, dtype)
    if dtype == "bool":
        return ir.const(not math.isnan(value) and value != 0, dtype)
    if not math.isfinite(value):
        return ir.const(0, dtype)
    info = np.iinfo(np.dtype(dtype))
    whole = math.trunc(value)
    return ir.const(whole if info.min <= whole <= info.max else 0, dtype)


@te.lowering("sequence_mask")
def _sequence_mask(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``mask_value`` where the position along ``axis`` is at least the valid length of the
    position along the other of axes 0 and 1, else the data."""
    assert isinstance(attrs, SequenceMaskAttrs)
    data, valid = tensor_input(inputs, 0), tensor_input(inputs, 1)
    mask = value_constant(attrs.mask_value, data.dtype)
    axis = attrs.axis

    def element(idx: te.Indices) -> ir.PrimExpr:
        step, length = idx[axis], valid(idx[1 - axis])
        if length.dtype == "uint64":
            masked = ir.Binary(B.GE, ir.Cast("uint64", step), length)
        else:
            masked = ir.Binary(B.GE, step, to_index(length))
        return ir.Select(masked, mask, data(*idx))

    return te.compute(data.shape, data.dtype, element, "sequence_mask")


# ---------------------------------------------------------------------------------------------
# Scatters


def scatter_tensor(
    name: str,
    shape: tuple[ir.PrimExpr, ...],
    dtype: str,
    fill: Callable[[ir.Buffer], ir.Stmt],
) -> te.Scheduled:
    """A tensor written by ``fill(buffer)`` (statements that may store a position more than
    once). A fused consumer is applied by a nest over a local copy, after ``fill``."""

    def schedule(out: ir.Buffer, epilogue: te.Epilogue | None) -> ir.Stmt:
        if epilogue is None:
            return fill(out)
        local = ir.Buffer(f"{name}_tmp", shape, dtype, scope="local")
        apply = te.loop_nest(
            out.shape,
            lambda idx: ir.Store(
                out, idx, te.as_dtype(epilogue(ir.Load(local, idx), idx), out.dtype)
            ),
        )
        return ir.Allocate(local, ir.Seq((fill(local), apply)))

    return te.Scheduled(name, shape, dtype, schedule=schedule)


def _combine(mode: str, old: ir.PrimExpr, new: ir.PrimExpr) -> ir.PrimExpr:
    match mode:
        case "update":
            return new
        case "add":
            return ir.Binary(B.ADD, old, new)
        case "mul":
            return ir.Binary(B.MUL, old, new)
        case "min":
            return ir.Binary(B.MIN, old, new)
        case "max":
            return ir.Binary(B.MAX, old, new)
    raise te.LoweringError("scatter", f"unknown reduction {mode!r}")


def _copy(out: ir.Buffer, data: te.Tensor) -> ir.Stmt:
    return te.loop_nest(out.shape, lambda idx: ir.Store(out, idx, data(*idx)))


@te.lowering("scatter_elements")
def _scatter_elements(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """A copy of data, then for each position ``i`` of indices in row-major order
    ``out[i with i[axis] = indices[i] mod extent]`` combined with ``updates[i]``."""
    assert isinstance(attrs, ScatterElementsAttrs)
    data, indices, updates = (tensor_input(inputs, k) for k in range(3))
    axis = attrs.axis % data.ndim
    extent = data.shape[axis]

    def fill(out: ir.Buffer) -> ir.Stmt:
        def update(idx: te.Indices) -> ir.Stmt:
            target = list(idx)
            target[axis] = ir.Binary(B.FLOORMOD, to_index(indices(*idx)), extent)
            old = ir.Load(out, tuple(target))
            return ir.Store(out, tuple(target), _combine(attrs.reduction, old, updates(*idx)))

        scatter = te.loop_nest(indices.shape, update, hint="u", parallel=False)
        return ir.Seq((_copy(out, data), scatter))

    return scatter_tensor(ctx.fresh("scatter_elements"), data.shape, data.dtype, fill)


@te.lowering("scatter_nd")
def _scatter_nd(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """A copy of data, then for each index tuple ``indices[:, y]`` in row-major order of
    ``y`` the slice ``out[tuple, r]`` combined with ``updates[y, r]``."""
    assert isinstance(attrs, ScatterNDAttrs)
    data, indices, updates = (tensor_input(inputs, k) for k in range(3))
    m_dim = indices.shape[0]
    assert isinstance(m_dim, ir.Const)
    m, k = int(m_dim.value), indices.ndim - 1
    loops = (*indices.shape[1:], *data.shape[m:])

    def fill(out: ir.Buffer) -> ir.Stmt:
        def update(idx: te.Indices) -> ir.Stmt:
            y, rest = idx[:k], idx[k:]
            target = (*(to_index(indices(ir.index(j), *y)) for j in range(m)), *rest)
            old = ir.Load(out, target)
            return ir.Store(out, target, _combine(attrs.mode, old, updates(*idx)))

        scatter = te.loop_nest(loops, update, hint="u", parallel=False)
        return ir.Seq((_copy(out, data), scatter))

    return scatter_tensor(ctx.fresh("scatter_nd"), data.shape, data.dtype, fill)


@te.lowering("sparse_to_dense")
def _sparse_to_dense(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``default_value`` everywhere, then ``sparse_values[n]`` (or the scalar) at each index
    tuple ``sparse_indices[n]``, in order."""
    assert isinstance(attrs, SparseToDenseAttrs)
    indices, values, default = (tensor_input(inputs, k) for k in range(3))
    shape = tuple(ir.index(d) for d in attrs.output_shape)
    count = indices.shape[0] if indices.ndim else ir.index(1)

    def fill(out: ir.Buffer) -> ir.Stmt:
        def write(idx: te.Indices) -> ir.Stmt:
            (n,) = idx
            if indices.ndim == 2:
                target = tuple(to_index(indices(n, ir.index(j))) for j in range(len(shape)))
            elif indices.ndim == 1:
                target = (to_index(indices(n)),)
            else:
                target = (to_index(indices()),)
            return ir.Store(out, target, values(n) if values.ndim else values())

        init = te.loop_nest(shape, lambda idx: ir.Store(out, idx, default()))
        return ir.Seq((init, te.loop_nest((count,), write, hint="u", parallel=False)))

    return scatter_tensor(ctx.fresh("sparse_to_dense"), shape, values.dtype, fill)


@te.lowering("invert_permutation")
def _invert_permutation(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[data[i]] = i`` (positions clamped into range: a non-permutation is undefined)."""
    data = tensor_input(inputs, 0)
    (n,) = data.shape

    def fill(out: ir.Buffer) -> ir.Stmt:
        def write(idx: te.Indices) -> ir.Stmt:
            (i,) = idx
            target = clamp_index(to_index(data(i)), n)
            return ir.Store(out, (target,), te.as_dtype(i, data.dtype))

        return te.loop_nest((n,), write, hint="u", parallel=False)

    return scatter_tensor(ctx.fresh("invert_permutation"), data.shape, data.dtype, fill)


__all__ = ["clamp_index", "scatter_tensor", "take_position", "to_index", "value_constant"]
