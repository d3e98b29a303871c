"""Converters of ONNX's tensor-manipulation operators: constants, shapes, reshaping,
slicing, gathering and scattering, padding, sorting.

Relay takes shapes, axes and slice bounds as attributes, so the ONNX inputs that carry them
must be constants by import time (constant propagation in the importer makes the usual
``Shape``-derived ones so).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....semantics.syntax import Constant, Expr, If, Tuple, TupleGetItem
from .importer import NodeContext, relay_dtype, static_dims
from .table import converter


def _axis(axis: int, rank: int) -> int:
    return axis % rank if rank else axis


@converter("Constant")
def constant(ctx: NodeContext) -> Expr:
    """The ``value`` (or ``value_float(s)`` / ``value_int(s)``) attribute as a constant."""
    for key, dtype in (("value_float", "float32"), ("value_floats", "float32"),
                       ("value_int", "int64"), ("value_ints", "int64")):  # fmt: skip
        if key in ctx.attrs:
            return ctx.constant(np.array(ctx.attrs[key], dtype=dtype))
    value = ctx.attr("value")
    if not isinstance(value, np.ndarray):
        raise ctx.fail("only the value, value_float(s) and value_int(s) attributes are supported")
    if (
        value.dtype.name not in ("bool", "float16", "float32", "float64")
        and value.dtype.kind not in "iu"
    ):
        raise ctx.fail(f"a constant of numpy dtype {value.dtype} is not supported")
    return ctx.constant(value)


@converter("ConstantOfShape")
def constant_of_shape(ctx: NodeContext) -> Expr:
    """``full(value, shape)``: the shape input must be a constant."""
    shape = tuple(ctx.ints(0, "shape"))
    value = ctx.attr("value")
    fill = np.zeros((), np.float32) if value is None else np.asarray(value).reshape(())
    return ctx.call("full", ctx.constant(fill), shape=shape, dtype=fill.dtype.name)


def _shape_range(ctx: NodeContext, rank: int) -> tuple[int, int]:
    start = int(ctx.attr("start", 0))
    end = ctx.attr("end")
    begin = max(0, min(rank, start + rank if start < 0 else start))
    stop = rank if end is None else int(end)
    stop = max(0, min(rank, stop + rank if stop < 0 else stop))
    return begin, stop


@converter("Shape")
def shape(ctx: NodeContext) -> Expr:
    """The static shape as an int64 constant, else ``shape_of`` (sliced by start/end)."""
    dims = ctx.type(0).shape
    begin, stop = _shape_range(ctx, len(dims))
    picked = dims[begin:stop]
    if all(isinstance(d, int) for d in picked):
        return ctx.constant(np.array(picked, dtype=np.int64))
    out = ctx.call("shape_of", ctx.input(0), dtype="int64")
    if (begin, stop) != (0, len(dims)):
        out = ctx.call("strided_slice", out, begin=(begin,), end=(stop,), strides=(1,), axes=None)
    return out


@converter("Size")
def size(ctx: NodeContext) -> Expr:
    """The element count as an int64 constant when the shape is static, else
    ``ndarray_size``."""
    dims = static_dims(ctx.type(0).shape)
    if dims is not None:
        return ctx.scalar(int(np.prod(dims, dtype=np.int64)), "int64")
    return ctx.call("ndarray_size", ctx.input(0), dtype="int64")


@converter("Reshape")
def reshape_legacy(ctx: NodeContext) -> Expr:
    """Opsets 1-4: the shape is an attribute."""
    return ctx.call("reshape", ctx.input(0), newshape=tuple(int(d) for d in ctx.attr("shape")))


@converter("Reshape", since=5)
def reshape(ctx: NodeContext) -> Expr:
    """``reshape`` (0 copies a dimension unless ``allowzero``, -1 is inferred)."""
    newshape = tuple(ctx.ints(1, "shape"))
    allowzero = bool(ctx.attr("allowzero", 0))
    return ctx.call("reshape", ctx.input(0), newshape=newshape, allowzero=allowzero)


@converter("Flatten")
def flatten(ctx: NodeContext) -> Expr:
    """``reshape`` to (product of the dims before ``axis``, product of the rest)."""
    dims = ctx.shape(0)
    axis = int(ctx.attr("axis", 1))
    axis = axis + len(dims) if axis < 0 else axis
    rows = int(np.prod(dims[:axis], dtype=np.int64))
    cols = int(np.prod(dims[axis:], dtype=np.int64))
    return ctx.call("reshape", ctx.input(0), newshape=(rows, cols))


@converter("Transpose")
def transpose(ctx: NodeContext) -> Expr:
    """``transpose(perm)``; the default reverses the axes."""
    perm = ctx.attr("perm")
    axes = tuple(range(ctx.rank(0)))[::-1] if perm is None else tuple(int(p) for p in perm)
    return ctx.call("transpose", ctx.input(0), axes=axes)


def _axes_list(ctx: NodeContext, since: int) -> list[int] | None:
    if ctx.opset >= since:
        return None if ctx.optional(1) is None else ctx.ints(1, "axes")
    attr = ctx.attr("axes")
    return None if attr is None else [int(a) for a in attr]


@converter("Squeeze")
def squeeze(ctx: NodeContext) -> Expr:
    """``squeeze(axes)`` (``None``: every size-1 axis)."""
    axes = _axes_list(ctx, 13)
    rank = ctx.rank(0)
    normal = None if axes is None else tuple(sorted(_axis(a, rank) for a in axes))
    return ctx.call("squeeze", ctx.input(0), axis=normal)


@converter("Unsqueeze")
def unsqueeze(ctx: NodeContext) -> Expr:
    """One ``expand_dims`` per new axis, in increasing order of the output axes."""
    axes = _axes_list(ctx, 13)
    if axes is None:
        raise ctx.fail("axes are required")
    out_rank = ctx.rank(0) + len(axes)
    out = ctx.input(0)
    for a in sorted(_axis(a, out_rank) for a in axes):
        out = ctx.call("expand_dims", out, axis=a, num_newaxis=1)
    return out


@converter("Concat")
def concat(ctx: NodeContext) -> Expr:
    """``concatenate`` of the inputs along ``axis``."""
    parts = [ctx.input(i) for i in range(ctx.num_inputs)]
    axis = _axis(int(ctx.attr("axis", 0)), ctx.rank(0))
    return ctx.call("concatenate", Tuple(tuple(parts)), axis=axis)


@converter("Split")
def split(ctx: NodeContext) -> list[Expr]:
    """``split`` at the indices the ``split`` sizes (attribute, input from opset 13) give,
    or into ``num_outputs`` chunks of ``ceil(n / num_outputs)`` (the last smaller)."""
    dims = ctx.type(0).shape
    axis = _axis(int(ctx.attr("axis", 0)), len(dims))
    extent = dims[axis]
    outputs = len(ctx.node.output)
    if ctx.opset >= 13:
        sizes = None if ctx.optional(1) is None else ctx.ints(1, "split")
    else:
        attr = ctx.attr("split")
        sizes = None if attr is None else [int(s) for s in attr]
    if sizes is None:
        if not isinstance(extent, int):
            raise ctx.fail("needs a static size on the split axis")
        chunk = -(-extent // outputs)
        if ctx.attr("num_outputs") is not None or extent % outputs:
            sizes = [max(0, min(chunk, extent - i * chunk)) for i in range(outputs)]
        else:
            sizes = [extent // outputs] * outputs
    if 0 in sizes:  # Relay's split needs strictly increasing indices: slice each part
        starts = [0, *np.cumsum(sizes)[:-1].tolist()]
        rank = len(dims)
        parts: list[Expr] = []
        for start, n in zip(starts, sizes, strict=True):
            begin, end = [0] * rank, [int(d) if isinstance(d, int) else -1 for d in dims]
            begin[axis], end[axis] = int(start), int(start) + int(n)
            parts.append(ctx.call("strided_slice", ctx.input(0), begin=tuple(begin),
                                  end=tuple(end), strides=(1,) * rank, axes=None))  # fmt: skip
        return parts
    indices = tuple(int(i) for i in np.cumsum(sizes)[:-1])
    out = ctx.call("split", ctx.input(0), indices_or_sections=indices, axis=axis)
    return [TupleGetItem(out, i) for i in range(len(sizes))]


@converter("Slice")
def slice_legacy(ctx: NodeContext) -> Expr:
    """Opsets 1-9: starts, ends and axes are attributes."""
    starts = [int(v) for v in ctx.attr("starts")]
    ends = [int(v) for v in ctx.attr("ends")]
    axes = ctx.attr("axes")
    return _slice(ctx, starts, ends, None if axes is None else [int(a) for a in axes], None)


@converter("Slice", since=10)
def slice_(ctx: NodeContext) -> Expr:
    """``strided_slice`` on the bounds clamped as ONNX (and Python) clamp them; a negative
    step reverses the axis first."""
    starts, ends = ctx.ints(1, "starts"), ctx.ints(2, "ends")
    axes = None if ctx.optional(3) is None else ctx.ints(3, "axes")
    steps = None if ctx.optional(4) is None else ctx.ints(4, "steps")
    return _slice(ctx, starts, ends, axes, steps)


def _slice(
    ctx: NodeContext,
    starts: list[int],
    ends: list[int],
    axes: list[int] | None,
    steps: list[int] | None,
) -> Expr:
    dims = ctx.shape(0)
    rank = len(dims)
    axes = list(range(len(starts))) if axes is None else [_axis(a, rank) for a in axes]
    steps = [1] * len(starts) if steps is None else steps
    begin, end, stride = [0] * rank, list(dims), [1] * rank
    x = ctx.input(0)
    for a, b, e, s in zip(axes, starts, ends, steps, strict=True):
        if s == 0:
            raise ctx.fail("a step of 0 is not allowed")
        r = range(*slice(b, e, s).indices(dims[a]))
        if s < 0:  # read the reversed axis forwards
            x = ctx.call("reverse", x, axis=a)
            first = dims[a] - 1 - r.start if len(r) else 0
            s = -s
        else:
            first = r.start if len(r) else 0
        begin[a], end[a], stride[a] = first, first + len(r) * s - (s - 1), s
        if not len(r):
            end[a] = first
    return ctx.call("strided_slice", x, begin=tuple(begin), end=tuple(end),
                    strides=tuple(stride), axes=None)  # fmt: skip


@converter("Gather")
def gather(ctx: NodeContext) -> Expr:
    """``take(data, indices, axis, mode="wrap")``: wrapping reads ONNX's negative indices
    from the end (indices outside ``[-n, n)`` are invalid in ONNX)."""
    axis = _axis(int(ctx.attr("axis", 0)), ctx.rank(0))
    return ctx.call("take", ctx.input(0), ctx.input(1), axis=axis, mode="wrap")


def _non_negative(ctx: NodeContext, indices: Expr, extent: Expr | int) -> Expr:
    """``where(i < 0, i + extent, i)``."""
    dtype = ctx.tensor_type(indices).dtype
    zero = ctx.scalar(0, dtype)
    size = ctx.scalar(extent, dtype) if isinstance(extent, int) else extent
    negative = ctx.call("less", indices, zero)
    return ctx.call("where", negative, ctx.call("add", indices, size), indices)


@converter("GatherElements")
def gather_elements(ctx: NodeContext) -> Expr:
    """``gather(data, axis, indices)`` with negative indices made positive."""
    dims = ctx.shape(0)
    axis = _axis(int(ctx.attr("axis", 0)), len(dims))
    indices = _non_negative(ctx, ctx.input(1), dims[axis])
    data = ctx.input(0)
    index_dims = ctx.shape(1)
    if any(i != d for a, (i, d) in enumerate(zip(index_dims, dims, strict=True)) if a != axis):
        # ONNX lets the indices be smaller off the axis; Relay's gather wants data's extents
        # there, and the elements beyond the indices' extents are never read: slice them off.
        end = [i if a != axis else d for a, (i, d) in enumerate(zip(index_dims, dims, strict=True))]
        data = ctx.call("strided_slice", data, begin=(0,) * len(dims), end=tuple(end),
                        strides=(1,) * len(dims), axes=None)  # fmt: skip
    return ctx.call("gather", data, indices, axis=axis)


def _index_first(ctx: NodeContext, indices: Expr) -> Expr:
    """ONNX keeps the index tuple on the last axis, Relay on the first."""
    rank = ctx.rank(1)
    axes = (rank - 1, *range(rank - 1))
    return ctx.call("transpose", indices, axes=axes)


@converter("GatherND")
def gather_nd(ctx: NodeContext) -> Expr:
    """``gather_nd`` with the index axis moved first."""
    batch_dims = int(ctx.attr("batch_dims", 0))
    return ctx.call("gather_nd", ctx.input(0), _index_first(ctx, ctx.input(1)),
                    batch_dims=batch_dims, index_rank=None)  # fmt: skip


@converter("ScatterND")
def scatter_nd(ctx: NodeContext) -> Expr:
    """``scatter_nd`` with the index axis moved first; ``reduction`` none or add."""
    reduction = ctx.attr("reduction", "none")
    mode = {"none": "update", "add": "add"}.get(reduction)
    if mode is None:
        raise ctx.fail(f'reduction="{reduction}" is not supported (none, add)')
    return ctx.call("scatter_nd", ctx.input(0), _index_first(ctx, ctx.input(1)), ctx.input(2),
                    mode=mode)  # fmt: skip


@converter("ScatterElements")
def scatter_elements(ctx: NodeContext) -> Expr:
    """``scatter_elements`` with negative indices made positive."""
    dims = ctx.shape(0)
    axis = _axis(int(ctx.attr("axis", 0)), len(dims))
    reduction = ctx.attr("reduction", "none")
    mode = {"none": "update", "add": "add", "mul": "mul", "max": "max", "min": "min"}.get(reduction)
    if mode is None:
        raise ctx.fail(f'reduction="{reduction}" is not supported')
    indices = _non_negative(ctx, ctx.input(1), dims[axis])
    return ctx.call("scatter_elements", ctx.input(0), indices, ctx.input(2), axis=axis,
                    reduction=mode)  # fmt: skip


converter("Scatter")(scatter_elements)


def _broadcast_shape(ctx: NodeContext, a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    try:
        return tuple(int(d) for d in np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        raise ctx.fail(f"shapes {tuple(a)} and {tuple(b)} do not broadcast") from None


@converter("Expand")
def expand(ctx: NodeContext) -> Expr:
    """``broadcast_to`` the broadcast of the input's shape and the given one."""
    target = _broadcast_shape(ctx, ctx.shape(0), ctx.ints(1, "shape"))
    return ctx.call("broadcast_to", ctx.input(0), shape=target)


@converter("Tile")
def tile(ctx: NodeContext) -> Expr:
    """``tile(reps)``."""
    return ctx.call("tile", ctx.input(0), reps=tuple(ctx.ints(1, "repeats")))


@converter("Range")
def range_(ctx: NodeContext) -> Expr:
    """``arange(start, limit, delta)`` of the inputs' dtype (one-element inputs read as
    scalars)."""
    dtype = ctx.dtype(0)
    bounds = [ctx.input(i) for i in range(3)]
    bounds = [b if not ctx.tensor_type(b).shape else ctx.call("reshape", b, newshape=())
              for b in bounds]  # fmt: skip
    return ctx.call("arange", *bounds, dtype=dtype)


@converter("OneHot")
def one_hot(ctx: NodeContext) -> Expr:
    """``one_hot`` with ``values = [off, on]``; negative indices count from ``depth``."""
    depth = int(ctx.require_const(1, "depth").reshape(()))
    values = ctx.input(2)
    vtype = ctx.type(2)
    off = ctx.call("take", values, ctx.scalar(0, "int64"), axis=0, mode="clip")
    on = ctx.call("take", values, ctx.scalar(1, "int64"), axis=0, mode="clip")
    indices = ctx.input(0)
    if not ctx.dtype(0).startswith(("int", "uint")):  # ONNX casts other indices to int64
        indices = ctx.call("cast", indices, dtype="int64")
    indices = _non_negative(ctx, indices, depth)
    axis = int(ctx.attr("axis", -1))
    if axis < -1:  # ONNX counts a negative axis in the output's rank; Relay only takes -1
        axis += ctx.rank(0) + 1
    return ctx.call("one_hot", indices, on, off, depth=depth, axis=axis, dtype=vtype.dtype)


@converter("Pad")
def pad_legacy(ctx: NodeContext) -> Expr:
    """Opsets 1-10: pads and value are attributes."""
    pads = [int(p) for p in ctx.attr("pads", ctx.attr("paddings", []))]
    value = float(ctx.attr("value", 0.0))
    return _pad(ctx, pads, ctx.scalar(value, ctx.dtype(0)), None)


@converter("Pad", since=11)
def pad(ctx: NodeContext) -> Expr:
    """``nn.pad`` (constant, edge or reflect) or slices concatenated around the data (wrap);
    pads per axis from ``axes`` when given."""
    pads = ctx.ints(1, "pads")
    value = ctx.optional(2)
    fill = ctx.scalar(0, ctx.dtype(0)) if value is None else value
    if value is not None and ctx.tensor_type(value).shape:
        fill = ctx.call("reshape", value, newshape=())
    axes = None if ctx.optional(3) is None else ctx.ints(3, "axes")
    return _pad(ctx, pads, fill, axes)


def _pad(ctx: NodeContext, pads: list[int], fill: Expr, axes: list[int] | None) -> Expr:
    rank = ctx.rank(0)
    axes = list(range(rank)) if axes is None else [_axis(a, rank) for a in axes]
    n = len(axes)
    width = [[0, 0] for _ in range(rank)]
    for i, a in enumerate(axes):
        width[a] = [pads[i], pads[i + n]]
    if any(p < 0 for pair in width for p in pair):
        raise ctx.fail("negative pads (cropping) are not supported")
    mode = ctx.attr("mode", "constant")
    if mode == "wrap":
        return _wrap_pad(ctx, width)
    if mode not in ("constant", "edge", "reflect"):
        raise ctx.fail(f'mode="{mode}" is not supported (constant, edge, reflect)')
    pad_width = tuple(tuple(p) for p in width)
    return ctx.call("nn.pad", ctx.input(0), fill, pad_width=pad_width, pad_mode=mode)


def _wrap_pad(ctx: NodeContext, width: list[list[int]]) -> Expr:
    """``mode="wrap"``: per axis, the last ``before`` and the first ``after`` elements
    concatenated around the data (each at most the axis' size)."""
    out = ctx.input(0)
    dims = list(ctx.shape(0))
    rank = len(dims)
    for a, (before, after) in enumerate(width):
        if not before and not after:
            continue
        if before > dims[a] or after > dims[a]:
            raise ctx.fail("wrap padding wider than the axis is not supported")
        parts: list[Expr] = []
        for start, stop in ((dims[a] - before, dims[a]), (0, dims[a]), (0, after)):
            if stop > start:
                begin, end = [0] * rank, list(dims)
                begin[a], end[a] = start, stop
                parts.append(ctx.call("strided_slice", out, begin=tuple(begin), end=tuple(end),
                                      strides=(1,) * rank, axes=None))  # fmt: skip
        out = ctx.call("concatenate", Tuple(tuple(parts)), axis=a)
        dims[a] += before + after
    return out


@converter("DepthToSpace")
def depth_to_space(ctx: NodeContext) -> Expr:
    """``nn.depth_to_space`` (DCR or CRD)."""
    return ctx.call("nn.depth_to_space", ctx.input(0), block_size=int(ctx.attr("blocksize")),
                    mode=ctx.attr("mode", "DCR"))  # fmt: skip


@converter("SpaceToDepth")
def space_to_depth(ctx: NodeContext) -> Expr:
    """``nn.space_to_depth`` (DCR); CRD (opset 28) as ONNX defines it, a reshape to
    ``(N, C, H/b, b, W/b, b)``, a transpose to ``(N, C, b, b, H/b, W/b)`` and a reshape."""
    block = int(ctx.attr("blocksize"))
    mode = ctx.attr("mode", "DCR")
    if mode == "DCR":
        return ctx.call("nn.space_to_depth", ctx.input(0), block_size=block)
    if mode != "CRD":
        raise ctx.fail(f'mode="{mode}" is not DCR or CRD')
    n, c, h, w = ctx.shape(0)
    blocks = ctx.call(
        "reshape", ctx.input(0), newshape=(n, c, h // block, block, w // block, block)
    )
    moved = ctx.call("transpose", blocks, axes=(0, 1, 3, 5, 2, 4))
    return ctx.call("reshape", moved, newshape=(n, c * block * block, h // block, w // block))


@converter("CenterCropPad", since=18)
def center_crop_pad(ctx: NodeContext) -> Expr:
    """Per axis in ``axes`` (default all): a centred ``strided_slice`` where the target is
    smaller, a centred ``nn.pad`` with zeros where it is larger (the extra element goes at
    the end)."""
    dims = ctx.shape(0)
    rank = len(dims)
    target = ctx.ints(1, "shape")
    axes_attr = ctx.attr("axes")
    axes = list(range(rank)) if axes_attr is None else [_axis(int(a), rank) for a in axes_attr]
    begin, end = [0] * rank, list(dims)
    width = [[0, 0] for _ in range(rank)]
    for a, t in zip(axes, target, strict=True):
        if t < dims[a]:
            begin[a] = (dims[a] - t) // 2
            end[a] = begin[a] + t
        elif t > dims[a]:
            width[a] = [(t - dims[a]) // 2, t - dims[a] - (t - dims[a]) // 2]
    out = ctx.call("strided_slice", ctx.input(0), begin=tuple(begin), end=tuple(end),
                   strides=(1,) * rank, axes=None)  # fmt: skip
    if any(p for pair in width for p in pair):
        zero = ctx.scalar(0, ctx.dtype(0))
        out = ctx.call("nn.pad", out, zero, pad_width=tuple(tuple(p) for p in width))
    return out


@converter("Trilu")
def trilu(ctx: NodeContext) -> Expr:
    """``trilu(data, k, upper)``; k defaults to 0."""
    k = ctx.optional(1)
    if k is None:
        k = ctx.scalar(0, "int64")
    elif ctx.tensor_type(k).shape:
        k = ctx.call("reshape", k, newshape=())
    return ctx.call("trilu", ctx.input(0), k, upper=bool(ctx.attr("upper", 1)))


def _scan(ctx: NodeContext, op: str) -> Expr:
    axis = _axis(int(ctx.require_const(1, "axis").reshape(())), ctx.rank(0))
    x = ctx.input(0)
    reverse = bool(ctx.attr("reverse", 0))
    if reverse:
        x = ctx.call("reverse", x, axis=axis)
    out = ctx.call(op, x, axis=axis, exclusive=bool(ctx.attr("exclusive", 0)))
    return ctx.call("reverse", out, axis=axis) if reverse else out


@converter("CumSum")
def cum_sum(ctx: NodeContext) -> Expr:
    """``cumsum`` (reversed around when ``reverse``)."""
    return _scan(ctx, "cumsum")


@converter("CumProd")
def cum_prod(ctx: NodeContext) -> Expr:
    """``cumprod`` (reversed around when ``reverse``)."""
    return _scan(ctx, "cumprod")


@converter("TopK")
def top_k(ctx: NodeContext) -> list[Expr]:
    """``topk`` (values and int64 indices); ``largest=0`` sorts ascending."""
    k = ctx.ints(1, "k")[0] if ctx.opset >= 10 else int(ctx.attr("k"))
    axis = int(ctx.attr("axis", -1))
    out = ctx.call("topk", ctx.input(0), k=k, axis=axis, ret_type="both",
                   is_ascend=not bool(ctx.attr("largest", 1)), dtype="int64")  # fmt: skip
    return [TupleGetItem(out, 0), TupleGetItem(out, 1)]


@converter("Einsum")
def einsum(ctx: NodeContext) -> Expr:
    """``einsum`` of the inputs."""
    parts = tuple(ctx.input(i) for i in range(ctx.num_inputs))
    equation = str(ctx.attr("equation")).replace(" ", "")
    return ctx.call("einsum", Tuple(parts), equation=equation)


@converter("ReverseSequence")
def reverse_sequence(ctx: NodeContext) -> Expr:
    """``reverse_sequence(seq_axis=time_axis, batch_axis)``."""
    return ctx.call("reverse_sequence", ctx.input(0), ctx.input(1),
                    seq_axis=int(ctx.attr("time_axis", 0)),
                    batch_axis=int(ctx.attr("batch_axis", 1)))  # fmt: skip


@converter("EyeLike")
def eye_like(ctx: NodeContext) -> Expr:
    """The identity matrix of the input's (static) shape, shifted by ``k``, as a constant."""
    rows, cols = ctx.shape(0)
    dtype_code = ctx.attr("dtype")
    dtype = ctx.dtype(0) if dtype_code is None else relay_dtype(int(dtype_code), "dtype")
    return ctx.constant(np.eye(rows, cols, k=int(ctx.attr("k", 0)), dtype=dtype))


@converter("TensorScatter", since=24)
def tensor_scatter(ctx: NodeContext) -> Expr:
    """``scatter_elements`` of ``update`` into ``past_cache`` along ``axis`` at positions
    ``write_indices[batch] + s`` for the update's position ``s`` (modulo the cache length in
    ``circular`` mode); without ``write_indices``, from position 0."""
    cache, update = ctx.input(0), ctx.input(1)
    cache_shape, update_shape = ctx.shape(0), ctx.shape(1)
    rank = len(cache_shape)
    axis = _axis(int(ctx.attr("axis", -2)), rank)
    mode = str(ctx.attr("mode", "linear"))
    if mode not in ("linear", "circular"):
        raise ctx.fail(f'mode="{mode}" is not linear or circular')
    along = [1] * rank
    along[axis] = update_shape[axis]
    positions = ctx.constant(np.arange(update_shape[axis], dtype=np.int64).reshape(along))
    starts = ctx.optional(2)
    index: Expr = positions
    if starts is not None:
        per_batch = [1] * rank
        per_batch[0] = cache_shape[0]
        start = ctx.call(
            "reshape", ctx.call("cast", starts, dtype="int64"), newshape=tuple(per_batch)
        )
        index = ctx.call("add", start, positions)
    if mode == "circular":
        index = ctx.call("floor_mod", index, ctx.scalar(cache_shape[axis], "int64"))
    index = ctx.call("broadcast_to", index, shape=update_shape)
    return ctx.call("scatter_elements", cache, index, update, axis=axis, reduction="update")


@converter("If")
def if_(ctx: NodeContext) -> Expr | list[Expr]:
    """The branch a constant condition selects; otherwise Relay's ``if`` on the condition
    (as a rank-0 bool) over the two branches' outputs (a tuple when there are several), whose
    types must then agree."""
    known = ctx.const(0)
    if known is not None:  # the other branch need not even type-check for these shapes
        return ctx.subgraph("then_branch" if bool(known.reshape(-1)[0]) else "else_branch")
    then_outputs = ctx.subgraph("then_branch")
    else_outputs = ctx.subgraph("else_branch")
    cond = ctx.input(0)
    if ctx.type(0).shape:
        cond = ctx.call("reshape", cond, newshape=())
    if len(then_outputs) == 1:
        return If(cond, then_outputs[0], else_outputs[0])
    both = If(cond, Tuple(tuple(then_outputs)), Tuple(tuple(else_outputs)))
    return [TupleGetItem(both, i) for i in range(len(then_outputs))]


@converter("Scan", since=9)
def scan(ctx: NodeContext) -> list[Expr]:
    """Unrolled over the static scan length: the body is imported once per step with the
    current states and the step's slice of each scan input (along its axis, backwards for
    direction 1); the results are the final states and the per-step outputs stacked along
    their axes (reversed for direction 1)."""
    n_scan = int(ctx.attr("num_scan_inputs"))
    n_state = ctx.num_inputs - n_scan
    states = [ctx.input(i) for i in range(n_state)]
    scans = [ctx.input(n_state + j) for j in range(n_scan)]
    in_axes = [int(a) for a in ctx.attr("scan_input_axes", [0] * n_scan)]
    in_dirs = [int(d) for d in ctx.attr("scan_input_directions", [0] * n_scan)]
    in_axes = [_axis(a, len(ctx.static_shape(x))) for a, x in zip(in_axes, scans, strict=True)]
    lengths = {ctx.static_shape(x)[a] for x, a in zip(scans, in_axes, strict=True)}
    if len(lengths) != 1:
        raise ctx.fail("the scan inputs have different lengths")
    steps = lengths.pop()
    per_step: list[list[Expr]] = []
    for t in range(steps):
        slices = []
        for x, a, d in zip(scans, in_axes, in_dirs, strict=True):
            index = steps - 1 - t if d else t
            slices.append(ctx.call("take", x, ctx.scalar(index, "int64"), axis=a, mode="clip"))
        outs = ctx.subgraph("body", [*states, *slices])
        states = outs[:n_state]
        per_step.append(outs[n_state:])
    n_out = len(ctx.node.output) - n_state
    out_axes = [int(a) for a in ctx.attr("scan_output_axes", [0] * n_out)]
    out_dirs = [int(d) for d in ctx.attr("scan_output_directions", [0] * n_out)]
    results = list(states)
    for k in range(n_out):
        items = [per_step[t][k] for t in range(steps)]
        if out_dirs[k]:
            items.reverse()
        rank = len(ctx.static_shape(items[0])) + 1
        results.append(ctx.call("stack", Tuple(tuple(items)), axis=_axis(out_axes[k], rank)))
    return results


LOOP_LIMIT = 4096
"""The most iterations ``Loop`` is unrolled to."""


@converter("Loop", since=11)
def loop(ctx: NodeContext) -> list[Expr]:
    """Unrolled: the trip count ``M`` (when given) and the condition must be constants by
    import time, and so must the condition each body step computes; the body is imported once
    per step with the iteration number, the condition and the loop-carried values. The
    results are the final carried values and the per-step scan outputs stacked on axis 0."""
    trips = ctx.const(0)
    limit = LOOP_LIMIT if trips is None else int(trips.reshape(()))
    if trips is None and ctx.optional(0) is not None:
        ctx.require_const(0, "M")
    cond_value = ctx.const(1)
    if ctx.optional(1) is not None and cond_value is None:
        ctx.require_const(1, "cond")
    running = True if cond_value is None else bool(cond_value.reshape(-1)[0])
    carried = [ctx.input(i) for i in range(2, ctx.num_inputs)]
    n_carried = len(carried)
    scanned: list[list[Expr]] = []
    step = 0
    while running and step < limit:
        cond_in = ctx.scalar(True, "bool")
        outs = ctx.subgraph("body", [ctx.scalar(step, "int64"), cond_in, *carried])
        cond_out, carried = outs[0], outs[1 : 1 + n_carried]
        scanned.append(outs[1 + n_carried :])
        if not isinstance(cond_out, Constant):
            raise ctx.fail("a loop condition computed from run-time values is not supported")
        running = bool(cond_out.data.reshape(-1)[0])
        step += 1
    if running and trips is None:
        raise ctx.fail(f"the loop did not stop within {LOOP_LIMIT} unrolled steps")
    n_scan = len(ctx.node.output) - n_carried
    results = list(carried)
    for k in range(n_scan):
        if not scanned:
            raise ctx.fail("a loop that runs no step has no scan output shape")
        results.append(ctx.call("stack", Tuple(tuple(s[k] for s in scanned)), axis=0))
    return results
