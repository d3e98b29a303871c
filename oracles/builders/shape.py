"""Dataflow-generator builders of the operators of
``relay.semantics.ops.shape`` (well-typed calls by construction).

From the former ``builders_indexing`` module:

Dataflow-generator builders of the ``indexing`` operator group.

Index tensors whose values must lie in range (gather, gather_nd, the scatters,
sparse_to_dense, unravel_index, invert_permutation) and searchsorted's sorted sequence are
constants built here from Hypothesis draws, in range by construction; writes with mode
"update" go to distinct positions. Inputs whose every value is defined (one_hot's indices,
sequence_mask's lengths, the data of the sorts) come from the pool or fresh parameters.

From the former ``builders_shaping`` module:

Dataflow-generator builders of the ``shaping`` operator group.

Each builder makes a well-typed call whose meaning is defined for the default generated
arguments (see ``gen_dataflow``): shapes are derived so that the relation holds, attributes
are drawn from what the inputs allow, and results keep rank 4 or less. The second inputs of
the ``*_like`` operators, ``matrix_set_diag``'s diagonal and ``einsum``'s later operands are
asked for by exact type (a pool value of that type, or a fresh leaf). ``reverse_sequence``'s
lengths are defined for every value (``topi`` clamps them), but a fresh vector of lengths is
usually a constant with entries in ``[0, extent]`` so that the reversal does something.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.shape import (
    ConcatenateAttrs,
    ExpandDimsAttrs,
    LayoutTransformAttrs,
    MeshgridAttrs,
    NdarraySizeAttrs,
    RepeatAttrs,
    ReshapeAttrs,
    ReshapeLikeAttrs,
    ReverseAttrs,
    ReverseSequenceAttrs,
    ShapeOfAttrs,
    SlidingWindowAttrs,
    SplitAttrs,
    SqueezeAttrs,
    StackAttrs,
    TileAttrs,
    TransposeAttrs,
)
from relay.semantics.syntax import Constant, TensorType, TupleType

from .core import (
    ALL,
    MAX_RANK,
    SIGNED,
    Builder,
    Built,
    _dims,
    _divisors,
    _factorise,
    _Graph,
    _permutation,
)


def _newshape_walk(g: _Graph, shape: tuple[int, ...], allowzero: bool) -> list[int]:
    """A newshape read from the input left to right with the special values 0 (copy), -1
    (infer), -2 (copy the rest), -3 (merge two), -4 (split one) and sizes, keeping the output
    rank at most 4 (the invariant: outputs so far plus inputs left is at most 4)."""
    tokens: list[int] = []
    src = out = 0
    may_infer = 0 not in shape
    while src < len(shape):
        d = shape[src]
        options = ["rest"]
        if not allowzero:
            options.append("copy")
        if d > 0 or allowzero:
            options.append("size")
        if may_infer:
            options.append("infer")
        if src + 1 < len(shape):
            options.append("merge")
        if d >= 1 and out + 2 + len(shape) - src - 1 <= MAX_RANK:
            options.append("split")
        choice = g.pick(options)
        if choice == "rest":
            tokens.append(-2)
            break
        out += 1
        if choice == "copy":
            tokens.append(0)
        elif choice == "size":
            tokens.append(d)
        elif choice == "infer":
            tokens.append(-1)
            may_infer = False
        elif choice == "merge":
            # Only -3 merges: a positive size advances TVM's input position by one, however
            # large it is.
            tokens.append(-3)
            src += 1
        else:
            a = g.pick(_divisors(d))
            tokens += [-4, *g.pick([(a, d // a), (-1, d // a), (a, -1)])]
            out += 1
            may_infer = False  # TVM writes a later -1 at its position in newshape: wrong here
        src += 1
    return tokens


def _reshape(g: _Graph) -> Built:
    """A factorisation of the element count (perhaps with one -1), or a walk with TVM's special
    values."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    total = math.prod(shape)
    allowzero = g.flag()
    walk = g.flag()
    if not walk and total > 0:
        newshape = _factorise(g, total)
        if g.flag():
            newshape[g.integer(0, len(newshape) - 1)] = -1
    elif not walk and allowzero:
        # Any shape with a literal 0 holds no elements either.
        newshape = [g.dim() for _ in range(g.integer(0, MAX_RANK - 1))]
        newshape.insert(g.integer(0, len(newshape)), 0)
    else:
        newshape = _newshape_walk(g, shape, allowzero)
    return (data,), ReshapeAttrs.from_kwargs({"newshape": tuple(newshape), "allowzero": allowzero})


def _transpose(g: _Graph) -> Built:
    data = g.tensor(ALL)
    ndim = len(data[1].shape)
    axes: tuple[int, ...] | None = None
    if g.flag():
        perm = g.draw(st.permutations(range(ndim)))
        axes = tuple(perm) if not g.flag() else tuple(a - ndim for a in perm)
    return (data,), TransposeAttrs.from_kwargs({"axes": axes})


def _concatenable_axes(fields: tuple[TensorType, ...]) -> list[int]:
    """The axes along which ``fields`` concatenate (same rank >= 1 and dtype, other dims equal)."""
    first = _dims(fields[0])
    if not first or any(f.dtype != fields[0].dtype or len(f.shape) != len(first) for f in fields):
        return []
    return [
        axis
        for axis in range(len(first))
        if all(
            _dims(f)[:axis] == first[:axis] and _dims(f)[axis + 1 :] == first[axis + 1 :]
            for f in fields
        )
    ]


def _stackable(fields: tuple[TensorType, ...]) -> bool:
    """Whether ``fields`` stack: identical types of rank at most 3."""
    return len(fields[0].shape) < MAX_RANK and all(f == fields[0] for f in fields)


def _concatenate(g: _Graph) -> Built:
    """A tuple built here (from pool values and fresh leaves), a tuple value of the pool, or a
    fresh tuple parameter; fields of one dtype and rank, equal off the axis."""
    source = g.integer(0, 3)
    existing = g.tuple_values(lambda fs: bool(_concatenable_axes(fs))) if source == 2 else []
    if existing:
        entry = existing[g.integer(0, len(existing) - 1)]
        assert isinstance(entry.type, TupleType)
        fields = tuple(f for f in entry.type.fields if isinstance(f, TensorType))
        axis = g.pick(_concatenable_axes(fields))
        data = g.use(entry)
    elif source == 3:
        first = TensorType(g.shape(1), g.dtype(ALL))
        axis = g.integer(0, len(first.shape) - 1)
        types = [first]
        for _ in range(g.integer(0, 2)):
            dims = list(_dims(first))
            dims[axis] = g.dim()
            types.append(TensorType(tuple(dims), first.dtype))
        data = g.leaf(TupleType(tuple(types)))
    else:
        head = g.tensor(ALL, min_rank=1)
        shape = _dims(head[1])
        axis = g.integer(0, len(shape) - 1)
        built = [head]

        def fits(t: TensorType) -> bool:
            d = _dims(t)
            return (
                len(d) == len(shape)
                and d[:axis] + d[axis + 1 :] == shape[:axis] + shape[axis + 1 :]
            )

        def fresh() -> TensorType:
            return TensorType((*shape[:axis], g.dim(), *shape[axis + 1 :]), head[1].dtype)

        for _ in range(g.integer(0, 2)):
            built.append(g.tensor((head[1].dtype,), fits=fits, fresh=fresh))
        data = g.tuple_of(built)
    assert isinstance(data[1], TupleType)
    ndim = len(data[1].fields[0].shape)  # type: ignore[union-attr]
    return (data,), ConcatenateAttrs.from_kwargs({"axis": g.axis(axis, ndim)})


def _stack(g: _Graph) -> Built:
    """Like ``_concatenate``, with fields of one type of rank at most 3."""
    source = g.integer(0, 3)
    existing = g.tuple_values(_stackable) if source == 2 else []
    if existing:
        data = g.use(existing[g.integer(0, len(existing) - 1)])
    elif source == 3:
        t = TensorType(g.shape(0, MAX_RANK - 1), g.dtype(ALL))
        data = g.leaf(TupleType((t,) * g.integer(1, 3)))
    else:
        head = g.tensor(ALL, max_rank=MAX_RANK - 1)
        built = [head] + [g.exactly(head[1]) for _ in range(g.integer(0, 2))]
        data = g.tuple_of(built)
    assert isinstance(data[1], TupleType)
    ndim = len(data[1].fields[0].shape)  # type: ignore[union-attr]
    return (data,), StackAttrs.from_kwargs({"axis": g.axis(g.integer(0, ndim), ndim + 1)})


def _split(g: _Graph) -> Built:
    """Equal sections that divide the extent, or split indices strictly inside it."""
    data = g.tensor(ALL, min_rank=1)
    shape = _dims(data[1])
    axis = g.integer(0, len(shape) - 1)
    extent = shape[axis]
    spec: int | tuple[int, ...]
    if extent >= 1 and g.flag():
        spec = tuple(sorted(1 + i for i in g.subset(extent - 1, max_size=3)))
    else:
        spec = g.pick(_divisors(extent)) if extent else g.integer(1, 3)
    attrs = SplitAttrs.from_kwargs({"indices_or_sections": spec, "axis": g.axis(axis, len(shape))})
    return (data,), attrs


def _expand_dims(g: _Graph) -> Built:
    data = g.tensor(ALL)
    ndim = len(data[1].shape)
    axis = g.axis(g.integer(0, ndim), ndim + 1)
    count = g.integer(0, MAX_RANK - ndim)
    return (data,), ExpandDimsAttrs.from_kwargs({"axis": axis, "num_newaxis": count})


def _squeeze(g: _Graph) -> Built:
    """Every unit axis (``axis=None``), or some of them."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    axis: tuple[int, ...] | None = None
    if g.flag():
        units = [i for i, d in enumerate(shape) if d == 1]
        axis = tuple(g.axis(units[i], len(shape)) for i in g.subset(len(units)))
    return (data,), SqueezeAttrs.from_kwargs({"axis": axis})


def _broadcast_to(g: _Graph) -> Built:
    """A target shape: the data's, each unit dimension perhaps widened, perhaps with new leading
    dimensions."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    lead = [g.dim() for _ in range(g.integer(0, MAX_RANK - len(shape)))]
    target = (*lead, *(g.dim() if d == 1 else d for d in shape))
    return (data,), InitOpAttrs.from_kwargs({"shape": target, "dtype": ""})


def _meshgrid(g: _Graph) -> Built:
    """One to four scalars or vectors of one dtype."""
    first = g.tensor(ALL, max_rank=1)
    dtype = first[1].dtype
    fields = [first] + [g.tensor((dtype,), max_rank=1) for _ in range(g.integer(0, MAX_RANK - 1))]
    tup = g.tuple_of(fields)
    return (tup,), MeshgridAttrs.from_kwargs({"indexing": g.pick(["ij", "xy"])})


def _reverse(g: _Graph) -> Built:
    data = g.tensor(ALL, min_rank=1)
    ndim = len(data[1].shape)
    return (data,), ReverseAttrs.from_kwargs({"axis": g.axis(g.integer(0, ndim - 1), ndim)})


def _tile(g: _Graph) -> Built:
    """Up to four reps of 1 to 3 (the result's rank is the longer of data's and reps')."""
    data = g.tensor(ALL)
    reps = tuple(g.integer(1, 3) for _ in range(g.integer(0, MAX_RANK)))
    return (data,), TileAttrs.from_kwargs({"reps": reps})


def _repeat(g: _Graph) -> Built:
    data = g.tensor(ALL, min_rank=1)
    ndim = len(data[1].shape)
    axis = g.axis(g.integer(0, ndim - 1), ndim)
    return (data,), RepeatAttrs.from_kwargs({"repeats": g.integer(1, 3), "axis": axis})


_PRIMAL = "NCHW"


def _layout_transform(g: _Graph) -> Built:
    """Data read in a src layout (a permutation of primal letters, one non-empty axis perhaps
    a sub-axis whose factor is its extent), written in a dst permutation, perhaps splitting
    one primal axis by a divisor of its logical extent while the result stays at rank 4."""
    data = g.tensor(ALL, min_rank=1)
    shape = _dims(data[1])
    rank = len(shape)
    candidates = [i for i, d in enumerate(shape) if d >= 1]
    src_sub = g.pick(candidates) if rank >= 2 and candidates and g.flag() else None
    primal = list(_PRIMAL[: rank - (src_sub is not None)])
    order = [primal[i] for i in _permutation(g, len(primal))]
    sub_of = g.pick(primal) if src_sub is not None else ""
    src: list[str] = []
    logical: dict[str, int] = {}
    letters = iter(order)
    for i, d in enumerate(shape):
        if i == src_sub:
            src.append(f"{d}{sub_of.lower()}")
        else:
            c = next(letters)
            src.append(c)
            logical[c] = d
    if src_sub is not None:
        logical[sub_of] *= shape[src_sub]
    dst = [primal[i] for i in _permutation(g, len(primal))]
    if len(primal) < MAX_RANK and g.flag():
        c = g.pick(primal)
        factor = g.pick(_divisors(logical[c]) or [1])
        dst.insert(g.integer(0, len(dst)), f"{factor}{c.lower()}")
    attrs = LayoutTransformAttrs.from_kwargs(
        {"src_layout": "".join(src), "dst_layout": "".join(dst)}
    )
    return (data,), attrs


def _sizes(g: _Graph, total: int, count: int) -> list[int]:
    """``count`` sizes whose product is ``total`` (``count`` >= 1 unless ``total`` is 1)."""
    if count == 0:
        return []
    if total == 0:
        return [0] + [g.dim() for _ in range(count - 1)]
    out = []
    rest = total
    for _ in range(count - 1):
        d = g.pick(_divisors(rest))
        out.append(d)
        rest //= d
    return [*out, rest]


def _reshape_like(g: _Graph) -> Built:
    """data.shape[lb:le] replaced by shape_like.shape[rb:re], a factorisation of its element
    count between other sizes of shape_like; bounds sometimes negative or None."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    ndim = len(shape)
    lb = g.integer(0, ndim)
    le = g.integer(lb, ndim)
    total = math.prod(shape[lb:le])
    room = MAX_RANK - (ndim - (le - lb))
    count = g.integer(0 if total == 1 else 1, room)
    taken = _sizes(g, total, count)
    lead = [g.dim() for _ in range(g.integer(0, MAX_RANK - len(taken)))]
    trail = [g.dim() for _ in range(g.integer(0, MAX_RANK - len(taken) - len(lead)))]
    like_shape = (*lead, *taken, *trail)
    like = g.exactly(TensorType(like_shape, g.dtype(ALL)))
    rb, re = len(lead), len(lead) + len(taken)
    kwargs: dict[str, object] = {
        "lhs_begin": lb - ndim if lb < ndim and g.flag() else lb,
        "lhs_end": _end(g, le, ndim),
        "rhs_begin": rb - len(like_shape) if rb < len(like_shape) and g.flag() else rb,
        "rhs_end": _end(g, re, len(like_shape)),
    }
    return (data, like), ReshapeLikeAttrs.from_kwargs(kwargs)


def _end(g: _Graph, end: int, rank: int) -> int | None:
    """An end bound as written: itself, None for the rank, or negative below it."""
    form = g.integer(0, 2)
    if form == 1 and end == rank:
        return None
    if form == 2 and end < rank:
        return end - rank
    return end


def _broadcast_to_like(g: _Graph) -> Built:
    """broadcast_type: data's shape, unit sizes perhaps widened, perhaps new leading sizes;
    the same dtype."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    lead = [g.dim() for _ in range(g.integer(0, MAX_RANK - len(shape)))]
    target = (*lead, *(g.dim() if d == 1 else d for d in shape))
    return (data, g.exactly(TensorType(target, data[1].dtype))), None


def _collapse_sum_like(g: _Graph) -> Built:
    """collapse_type: a suffix of data's shape with some sizes made 1; the same dtype."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    rank = g.integer(0, len(shape))
    target = tuple(1 if g.flag() else d for d in shape[len(shape) - rank :])
    return (data, g.exactly(TensorType(target, data[1].dtype))), None


_COUNT_DTYPES = ("int32", "int64", "uint32", "uint64", "float32", "float64")
"""Dtypes that hold every shape entry and element count of a generated tensor exactly."""


def _shape_of(g: _Graph) -> Built:
    return (g.tensor(ALL),), ShapeOfAttrs.from_kwargs({"dtype": g.dtype(_COUNT_DTYPES)})


def _ndarray_size(g: _Graph) -> Built:
    return (g.tensor(ALL),), NdarraySizeAttrs.from_kwargs({"dtype": g.dtype(_COUNT_DTYPES)})


def _sliding_window(g: _Graph) -> Built:
    """Rank 1 to 3 with axis at least 2 * rank - 4 (the result has rank 2 * rank - axis);
    windows no longer than their (non-empty) axes; strides 1 to 3."""
    data = g.tensor(
        ALL,
        min_rank=1,
        max_rank=3,
        fits=lambda t: min(_dims(t)[max(0, 2 * len(t.shape) - 4) :]) >= 1,
    )
    shape = _dims(data[1])
    ndim = len(shape)
    axis = g.integer(max(0, 2 * ndim - 4), ndim - 1)
    windows = tuple(g.integer(1, d) for d in shape[axis:])
    strides = tuple(g.integer(1, 3) for _ in windows)
    attrs = SlidingWindowAttrs.from_kwargs(
        {"axis": axis, "window_shape": windows, "strides": strides}
    )
    return (data,), attrs


def _reverse_sequence(g: _Graph) -> Built:
    """Any batch and sequence axes; seq_lengths a signed integer vector of the batch extent:
    usually a constant with lengths in [0, extent of seq_axis], else any such value."""
    data = g.tensor(ALL, min_rank=1)
    shape = _dims(data[1])
    ndim = len(shape)
    batch = g.integer(0, ndim - 1)
    seq = g.integer(0, ndim - 1)
    vector = TensorType((shape[batch],), g.dtype(SIGNED))
    if g.integer(0, 3) != 0:
        values = [g.integer(0, shape[seq]) for _ in range(shape[batch])]
        constant = Constant(np.array(values, dtype=vector.dtype))
        lengths = g.use(g.add(constant, vector, (False,)))
        assert isinstance(lengths[1], TensorType)
        seq_lengths = (lengths[0], lengths[1])
    else:
        seq_lengths = g.exactly(vector)
    attrs = ReverseSequenceAttrs.from_kwargs(
        {"batch_axis": g.axis(batch, ndim), "seq_axis": g.axis(seq, ndim)}
    )
    return (data, seq_lengths), attrs


BUILDERS: dict[str, Builder] = {
    "reshape": _reshape,
    "transpose": _transpose,
    "concatenate": _concatenate,
    "stack": _stack,
    "split": _split,
    "expand_dims": _expand_dims,
    "squeeze": _squeeze,
    "broadcast_to": _broadcast_to,
    "meshgrid": _meshgrid,
    "reverse": _reverse,
    "tile": _tile,
    "repeat": _repeat,
    "layout_transform": _layout_transform,
    "reshape_like": _reshape_like,
    "broadcast_to_like": _broadcast_to_like,
    "collapse_sum_like": _collapse_sum_like,
    "shape_of": _shape_of,
    "ndarray_size": _ndarray_size,
    "sliding_window": _sliding_window,
    "reverse_sequence": _reverse_sequence,
}
"""This module's entries, by op name."""
