"""Lowerings of the ``shape`` operators (``semantics/ops/shape.py``): index remappings, each a
``Compute`` that reads its input at the source index of every output index.

``reshape``, ``reshape_like`` and the shape of ``squeeze``/``expand_dims`` come from the result
type; a reshape reads the row-major linear index of the output position unravelled over the
input's shape. ``concatenate`` selects the input by comparing the index along the axis with the
running offsets, ``stack`` by comparing the index on the new axis with each field's position;
``split`` gives a tuple of pieces; ``tile``, ``repeat``, ``reverse``, ``sliding_window``,
``layout_transform`` and ``reverse_sequence`` remap indices; ``collapse_sum_like`` is a
``te.Reduce`` (``sum`` as ``reduce`` defines it); ``shape_of`` and ``ndarray_size`` read the
input buffer's extents (literals or size parameters), not its elements.
"""

from __future__ import annotations

from ....semantics.ops.registry import Attrs
from ....semantics.ops.shape import (
    ConcatenateAttrs,
    LayoutTransformAttrs,
    MeshgridAttrs,
    RepeatAttrs,
    ReverseAttrs,
    ReverseSequenceAttrs,
    SlidingWindowAttrs,
    SplitAttrs,
    StackAttrs,
    TileAttrs,
    TransposeAttrs,
    _layouts,
)
from ....semantics.syntax import TensorType, Type
from .. import ir, te
from .broadcast import broadcast_read
from .elementwise import convert, tensor_input

B = ir.BinOp


def linear(idx: te.Indices, shape: tuple[ir.PrimExpr, ...]) -> ir.PrimExpr:
    """The row-major linear index of ``idx`` in ``shape``."""
    out: ir.PrimExpr = ir.index(0)
    for i, d in zip(idx, shape, strict=True):
        out = i if out == ir.index(0) else ir.Binary(B.ADD, ir.Binary(B.MUL, out, d), i)
    return out


def unravel(flat: ir.PrimExpr, shape: tuple[ir.PrimExpr, ...]) -> list[ir.PrimExpr]:
    """The index of the row-major position ``flat`` in ``shape``."""
    out: list[ir.PrimExpr] = []
    for k in reversed(range(len(shape))):
        d = shape[k]
        out.append(flat if k == 0 else ir.Binary(B.MOD, flat, d))
        flat = ir.Binary(B.DIV, flat, d)
    return list(reversed(out))


def _reshaped(x: te.Tensor, shape: tuple[ir.PrimExpr, ...], name: str) -> te.Tensor:
    return te.compute(shape, x.dtype, lambda idx: x(*unravel(linear(idx, shape), x.shape)), name)


def _to_result(name: str) -> te.LoweringFn:
    def lower(
        ctx: te.LowerContext,
        inputs: tuple[te.TensorResult, ...],
        attrs: Attrs,
        arg_types: tuple[Type, ...],
        out_type: Type,
    ) -> te.TensorResult:
        """The data's elements in row-major order, in the result type's shape."""
        assert isinstance(out_type, TensorType)
        return _reshaped(tensor_input(inputs, 0), ctx.shape(out_type), name)

    return lower


for _op in ("reshape", "reshape_like", "squeeze", "expand_dims"):
    te.lowering(_op)(_to_result(_op))


@te.lowering("broadcast_to", "broadcast_to_like")
def _broadcast_to(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The data broadcast (numpy's rules) to the result type's shape."""
    assert isinstance(out_type, TensorType)
    x = tensor_input(inputs, 0)
    shape = ctx.shape(out_type)
    return te.compute(shape, x.dtype, lambda idx: broadcast_read(x, idx), "broadcast_to")


@te.lowering("transpose")
def _transpose(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[i_0, ..., i_n] = x[...]`` with ``x``'s axis ``axes[k]`` at ``i_k`` (``axes``
    reversed by default; negative axes count from the end)."""
    assert isinstance(attrs, TransposeAttrs)
    x = tensor_input(inputs, 0)
    n = x.ndim
    axes = [a % n if n else a for a in attrs.axes] if attrs.axes else list(reversed(range(n)))
    shape = tuple(x.shape[a] for a in axes)

    def element(idx: te.Indices) -> ir.PrimExpr:
        src: list[ir.PrimExpr] = [ir.index(0)] * n
        for k, a in enumerate(axes):
            src[a] = idx[k]
        return x(*src)

    return te.compute(shape, x.dtype, element, "transpose")


@te.lowering("concatenate")
def _concatenate(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The fields of the tuple ``data`` one after another along ``axis``."""
    assert isinstance(attrs, ConcatenateAttrs) and isinstance(out_type, TensorType)
    fields = inputs[0]
    assert isinstance(fields, tuple)
    parts = [f for f in fields if isinstance(f, te.Tensor)]
    n = parts[0].ndim
    axis = attrs.axis % n
    # A part that is statically empty along the axis contributes nothing (and must not be
    # loaded from at all: a select evaluates both arms).
    nonempty = [p for p in parts if p.shape[axis] != ir.index(0)]
    parts = nonempty or parts[:1]
    offsets: list[ir.PrimExpr] = [ir.index(0)]
    for p in parts:
        last = offsets[-1]
        d = p.shape[axis]
        offsets.append(d if last == ir.index(0) else ir.Binary(B.ADD, last, d))
    shape = tuple(offsets[-1] if k == axis else parts[0].shape[k] for k in range(n))

    def element(idx: te.Indices) -> ir.PrimExpr:
        # Loads of a part are only evaluated where its index is in range: the select chain is
        # built so that each arm's index is clamped to 0 when it is not chosen.
        out = _clamped(parts[-1], idx, axis, offsets[-2], len(parts) - 1)
        for k in reversed(range(len(parts) - 1)):
            below = ir.Binary(B.LT, idx[axis], offsets[k + 1])
            out = ir.Select(below, _clamped(parts[k], idx, axis, offsets[k], k), out)
        return out

    return te.compute(shape, parts[0].dtype, element, "concatenate")


def _clamped(
    part: te.Tensor, idx: te.Indices, axis: int, offset: ir.PrimExpr, k: int
) -> ir.PrimExpr:
    """``part`` read at ``idx`` shifted by ``offset`` along ``axis``, the shifted index
    clamped into ``[0, extent)`` (both arms of a select are evaluated, so a load must stay in
    bounds even where its value is not chosen)."""
    src = list(idx)
    shifted = ir.Binary(B.SUB, idx[axis], offset) if k else idx[axis]
    last = ir.Binary(B.SUB, part.shape[axis], ir.index(1))
    src[axis] = ir.Binary(B.MAX, ir.index(0), ir.Binary(B.MIN, shifted, last))
    return part(*src)


def _fields(inputs: tuple[te.TensorResult, ...]) -> list[te.Tensor]:
    value = inputs[0]
    assert isinstance(value, tuple)
    return [f for f in value if isinstance(f, te.Tensor)]


def _static(d: ir.PrimExpr) -> int | None:
    return int(d.value) if isinstance(d, ir.Const) else None


def _div(d: ir.PrimExpr, k: int) -> ir.PrimExpr:
    n = _static(d)
    if n is not None:
        return ir.index(n // k)
    return d if k == 1 else ir.Binary(B.FLOORDIV, d, ir.index(k))


def _mul(d: ir.PrimExpr, k: int) -> ir.PrimExpr:
    n = _static(d)
    if n is not None:
        return ir.index(n * k)
    return d if k == 1 else ir.Binary(B.MUL, d, ir.index(k))


def _offset(i: ir.PrimExpr, k: ir.PrimExpr) -> ir.PrimExpr:
    return i if k == ir.index(0) else ir.Binary(B.ADD, i, k)


@te.lowering("stack")
def _stack(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[.., k, ..] = fields[k][..]``: the field chosen by the index on the new axis."""
    assert isinstance(attrs, StackAttrs)
    parts = _fields(inputs)
    n = parts[0].ndim
    axis = attrs.axis + n + 1 if attrs.axis < 0 else attrs.axis
    shape = (*parts[0].shape[:axis], ir.index(len(parts)), *parts[0].shape[axis:])

    def element(idx: te.Indices) -> ir.PrimExpr:
        rest = (*idx[:axis], *idx[axis + 1 :])
        out = parts[-1](*rest)
        for k in reversed(range(len(parts) - 1)):
            out = ir.Select(ir.Binary(B.EQ, idx[axis], ir.index(k)), parts[k](*rest), out)
        return out

    return te.compute(shape, parts[0].dtype, element, "stack")


@te.lowering("split")
def _split(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """A tuple of pieces along the axis, piece ``k`` reading data shifted by its offset."""
    assert isinstance(attrs, SplitAttrs)
    x = tensor_input(inputs, 0)
    axis = attrs.axis % x.ndim
    extent = x.shape[axis]
    bounds: list[tuple[ir.PrimExpr, ir.PrimExpr]] = []  # (offset, length)
    spec = attrs.indices_or_sections
    if isinstance(spec, int):
        piece = _div(extent, spec)
        for k in range(spec):
            start = ir.index(0) if k == 0 else _mul(piece, k)
            bounds.append((start, piece))
    else:
        begin = 0
        for index in spec:
            bounds.append((ir.index(begin), ir.index(index - begin)))
            begin = index
        n = _static(extent)
        last = ir.index(n - begin) if n is not None else ir.Binary(B.SUB, extent, ir.index(begin))
        bounds.append((ir.index(begin), last))

    def piece_of(start: ir.PrimExpr, length: ir.PrimExpr, k: int) -> te.Tensor:
        shape = (*x.shape[:axis], length, *x.shape[axis + 1 :])

        def element(idx: te.Indices) -> ir.PrimExpr:
            src = list(idx)
            src[axis] = _offset(idx[axis], start)
            return x(*src)

        return te.compute(shape, x.dtype, element, f"split{k}")

    return tuple(piece_of(start, length, k) for k, (start, length) in enumerate(bounds))


@te.lowering("reverse")
def _reverse(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[.., i, ..] = data[.., n - 1 - i, ..]`` on the axis."""
    assert isinstance(attrs, ReverseAttrs) and attrs.axis is not None
    x = tensor_input(inputs, 0)
    axis = attrs.axis % x.ndim
    last = ir.Binary(B.SUB, x.shape[axis], ir.index(1))

    def element(idx: te.Indices) -> ir.PrimExpr:
        src = list(idx)
        src[axis] = ir.Binary(B.SUB, last, idx[axis])
        return x(*src)

    return te.compute(x.shape, x.dtype, element, "reverse")


@te.lowering("tile")
def _tile(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """numpy's ``tile``: data and reps padded with leading 1s to one rank; ``out[i] =
    data[i mod extent]`` per axis."""
    assert isinstance(attrs, TileAttrs)
    x = tensor_input(inputs, 0)
    rank = max(x.ndim, len(attrs.reps))
    pad = rank - x.ndim
    reps = (1,) * (rank - len(attrs.reps)) + tuple(attrs.reps)
    dims = (ir.index(1),) * pad + x.shape
    shape = tuple(_mul(d, r) for d, r in zip(dims, reps, strict=True))

    def element(idx: te.Indices) -> ir.PrimExpr:
        src: list[ir.PrimExpr] = []
        for k in range(x.ndim):
            i, d, r = idx[pad + k], x.shape[k], reps[pad + k]
            src.append(ir.index(0) if d == ir.index(1) else i if r == 1 else ir.Binary(B.MOD, i, d))
        return x(*src)

    return te.compute(shape, x.dtype, element, "tile")


@te.lowering("repeat")
def _repeat(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """numpy's ``repeat``: ``out[.., i, ..] = data[.., i / repeats, ..]`` on the axis."""
    assert isinstance(attrs, RepeatAttrs) and attrs.axis is not None
    x = tensor_input(inputs, 0)
    axis = attrs.axis % x.ndim
    r = attrs.repeats
    shape = tuple(_mul(d, r) if k == axis else d for k, d in enumerate(x.shape))

    def element(idx: te.Indices) -> ir.PrimExpr:
        src = list(idx)
        src[axis] = _div(idx[axis], r) if r != 1 else idx[axis]
        return x(*src)

    return te.compute(shape, x.dtype, element, "repeat")


@te.lowering("layout_transform")
def _layout_transform(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The same logical tensor in ``dst_layout``: the logical index of a primal axis ``C``
    with a sub-axis ``fc`` is ``C * f + c`` in either layout; the source index is the logical
    one split by the source's factor (quotient on ``C``, remainder on ``c``)."""
    assert isinstance(attrs, LayoutTransformAttrs) and isinstance(out_type, TensorType)
    x = tensor_input(inputs, 0)
    src, dst = _layouts(attrs)
    dst_names = [c for c, _ in dst]
    src_factor = {c.upper(): f for c, f in src if f}
    dst_factor = {c.upper(): f for c, f in dst if f}
    shape = ctx.shape(out_type)

    def element(idx: te.Indices) -> ir.PrimExpr:
        logical: dict[str, ir.PrimExpr] = {}
        for c, f in dst:
            if f:
                continue
            i = idx[dst_names.index(c)]
            if c in dst_factor:
                sub = idx[dst_names.index(c.lower())]
                i = ir.Binary(B.ADD, ir.Binary(B.MUL, i, ir.index(dst_factor[c])), sub)
            logical[c] = i
        read: list[ir.PrimExpr] = []
        for c, f in src:
            if f:
                read.append(ir.Binary(B.MOD, logical[c.upper()], ir.index(f)))
            elif c in src_factor:
                read.append(ir.Binary(B.DIV, logical[c], ir.index(src_factor[c])))
            else:
                read.append(logical[c])
        return x(*read)

    return te.compute(shape, x.dtype, element, "layout_transform")


@te.lowering("collapse_sum_like")
def _collapse_sum_like(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``sum`` (``any`` on bool; float16 accumulated in float32) over data's leading axes and
    the axes where the target has a static 1 and data does not."""
    x, like = tensor_input(inputs, 0), tensor_input(inputs, 1)
    lead = x.ndim - like.ndim
    summed = list(range(lead)) + [
        lead + i
        for i, d in enumerate(like.shape)
        if d == ir.index(1) and x.shape[lead + i] != ir.index(1)
    ]
    kept = [i for i in range(x.ndim) if i not in summed]
    shape = like.shape
    if not summed:
        return te.compute(shape, x.dtype, lambda idx: x(*idx), "collapse_sum_like")
    extents = tuple(x.shape[i] for i in summed)

    def element(idx: te.Indices, r: te.Indices) -> ir.PrimExpr:
        full: list[ir.PrimExpr] = [ir.index(0)] * x.ndim
        for i, e in zip(summed, r, strict=True):
            full[i] = e
        for i in kept:
            full[i] = idx[i - lead]
        return x(*full)

    combiner = "any" if x.dtype == "bool" else "sum"
    acc = "float32" if x.dtype == "float16" else x.dtype
    return te.reduce(shape, x.dtype, extents, combiner, element, "collapse_sum_like", acc_dtype=acc)


@te.lowering("sliding_window")
def _sliding_window(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[pre.., i.., w..] = data[pre.., i * stride + w ..]``."""
    assert isinstance(attrs, SlidingWindowAttrs) and isinstance(out_type, TensorType)
    x = tensor_input(inputs, 0)
    axis, span = attrs.axis, x.ndim - attrs.axis
    shape = ctx.shape(out_type)

    def element(idx: te.Indices) -> ir.PrimExpr:
        pre, counts, windows = idx[:axis], idx[axis : axis + span], idx[axis + span :]
        read = [
            ir.Binary(B.ADD, ir.Binary(B.MUL, i, ir.index(s)) if s != 1 else i, w)
            for i, w, s in zip(counts, windows, attrs.strides, strict=True)
        ]
        return x(*pre, *read)

    return te.compute(shape, x.dtype, element, "sliding_window")


@te.lowering("reverse_sequence")
def _reverse_sequence(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Along ``seq_axis``, with ``L`` the length of the element's batch index: position ``i``
    reads ``min(L, extent) - 1 - i`` when ``1 < L`` and ``i < L``, else ``i``."""
    assert isinstance(attrs, ReverseSequenceAttrs)
    x, lengths = tensor_input(inputs, 0), tensor_input(inputs, 1)
    batch, seq = attrs.batch_axis % x.ndim, attrs.seq_axis % x.ndim
    extent = x.shape[seq]

    def element(idx: te.Indices) -> ir.PrimExpr:
        i = idx[seq]
        length = lengths(idx[batch])
        n = length if length.dtype == ir.INDEX else ir.Cast(ir.INDEX, length)
        keep = ir.Binary(B.OR, ir.Binary(B.LE, n, ir.index(1)), ir.Binary(B.LE, n, i))
        clamped = ir.Binary(B.MIN, n, extent)
        flipped = ir.Binary(B.SUB, ir.Binary(B.SUB, clamped, ir.index(1)), i)
        src = list(idx)
        # The select's arms are both evaluated: the flipped position is clamped into range.
        src[seq] = ir.Select(keep, i, ir.Binary(B.MAX, ir.index(0), flipped))
        return x(*src)

    return te.compute(x.shape, x.dtype, element, "reverse_sequence")


@te.lowering("meshgrid")
def _meshgrid(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """Grid ``k`` holds ``data[k][i_k]`` at ``(i_0, i_1, ..)`` ("ij"); "xy" swaps the first
    two grid axes."""
    assert isinstance(attrs, MeshgridAttrs)
    parts = _fields(inputs)
    n = len(parts)
    grid = [p.shape[0] if p.ndim else ir.index(1) for p in parts]
    xy = attrs.indexing == "xy" and n >= 2
    if xy:
        grid[0], grid[1] = grid[1], grid[0]

    def grid_of(k: int, p: te.Tensor) -> te.Tensor:
        along = 1 - k if xy and k < 2 else k
        if p.ndim == 0:
            return te.compute(tuple(grid), p.dtype, lambda idx: p(), f"meshgrid{k}")
        return te.compute(tuple(grid), p.dtype, lambda idx: p(idx[along]), f"meshgrid{k}")

    return tuple(grid_of(k, p) for k, p in enumerate(parts))


@te.lowering("shape_of")
def shape_of_lowering(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[k]`` is the data's extent ``k`` (a literal, or a size parameter read off the
    input buffer) converted to the dtype as ``cast`` does."""
    assert isinstance(out_type, TensorType)
    x = tensor_input(inputs, 0)
    dtype = out_type.dtype

    def element(idx: te.Indices) -> ir.PrimExpr:
        if not x.shape:
            return ir.const(0, dtype)  # an empty result: never evaluated
        out = convert(x.shape[-1], dtype)
        for k in reversed(range(x.ndim - 1)):
            out = ir.Select(ir.Binary(B.EQ, idx[0], ir.index(k)), convert(x.shape[k], dtype), out)
        return out

    return te.compute((ir.index(x.ndim),), dtype, element, "shape_of")


@te.lowering("ndarray_size")
def _ndarray_size(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The product of the data's extents (int64) converted to the dtype as ``cast`` does."""
    assert isinstance(out_type, TensorType)
    x = tensor_input(inputs, 0)
    size: ir.PrimExpr = ir.index(1)
    for d in x.shape:
        size = d if size == ir.index(1) else ir.Binary(B.MUL, size, d)
    dtype = out_type.dtype
    return te.compute((), dtype, lambda idx: convert(size, dtype), "ndarray_size")
