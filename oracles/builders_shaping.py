"""Dataflow-generator builders of the ``shaping`` operator group.

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

from relay.semantics.ops.index import SliceLikeAttrs
from relay.semantics.ops.linalg import EinsumAttrs, MatrixSetDiagAttrs, TriluAttrs
from relay.semantics.ops.shape import (
    LayoutTransformAttrs,
    NdarraySizeAttrs,
    RepeatAttrs,
    ReshapeLikeAttrs,
    ReverseAttrs,
    ReverseSequenceAttrs,
    ShapeOfAttrs,
    SlidingWindowAttrs,
    TileAttrs,
)
from relay.semantics.syntax import Constant, TensorType

from .gen_dataflow import (
    ALL,
    INTEGERS,
    MAX_RANK,
    NUMERIC,
    SIGNED,
    Builder,
    Built,
    _dims,
    _divisors,
    _Graph,
)


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


def _permutation(g: _Graph, n: int) -> list[int]:
    """A permutation of ``range(n)`` (shrinks towards the identity)."""
    rest = list(range(n))
    return [rest.pop(g.integer(0, len(rest) - 1)) for _ in range(n)]


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


def _slice_like(g: _Graph) -> Built:
    """shape_like no larger than data on the sliced axes (all shared axes, or some)."""
    data = g.tensor(ALL, min_rank=1)
    shape = _dims(data[1])
    ndim = len(shape)
    like_rank = g.integer(1, MAX_RANK)
    shared = min(ndim, like_rank)
    axes: list[int] | None = None
    if g.flag():
        axes = g.subset(shared, min_size=1)
    sliced = list(range(shared)) if axes is None else axes
    like = []
    for i in range(like_rank):
        if i in sliced:
            like.append(g.integer(min(1, shape[i]), shape[i]))
        else:
            like.append(g.dim())
    shape_like = g.exactly(TensorType(tuple(like), g.dtype(ALL)))
    written = None if axes is None else tuple(g.axis(x, ndim) for x in axes)
    return (data, shape_like), SliceLikeAttrs.from_kwargs({"axes": written})


_COUNT_DTYPES = ("int32", "int64", "uint32", "uint64", "float32", "float64")
"""Dtypes that hold every shape entry and element count of a generated tensor exactly."""


def _shape_of(g: _Graph) -> Built:
    return (g.tensor(ALL),), ShapeOfAttrs.from_kwargs({"dtype": g.dtype(_COUNT_DTYPES)})


def _ndarray_size(g: _Graph) -> Built:
    return (g.tensor(ALL),), NdarraySizeAttrs.from_kwargs({"dtype": g.dtype(_COUNT_DTYPES)})


_LABELS = "abcdefgh"


def _einsum(g: _Graph) -> Built:
    """A first operand of rank <= 3 (a numeric dtype: bool contractions are undefined) whose
    axes get labels (equal sizes may share one: a diagonal); perhaps a second operand of the
    same dtype reusing some of those labels and adding new ones; an explicit output of at
    most four distinct labels, or the implicit one when it has at most four."""
    first = g.tensor(NUMERIC, max_rank=3)
    dtype = first[1].dtype
    shape = _dims(first[1])
    sizes: dict[str, int] = {}
    term = ""
    for d in shape:
        same = [c for c, s in sizes.items() if s == d]
        if same and g.integer(0, 3) == 3:
            term += same[0]
        else:
            c = _LABELS[len(sizes)]
            sizes[c] = d
            term += c
    terms = [term]
    fields = [first]
    if g.flag():
        second = ""
        for _ in range(g.integer(0, 3)):
            known = list(sizes)
            if g.flag() and known:
                second += g.pick(known)
            else:
                c = _LABELS[len(sizes)]
                sizes[c] = g.dim()
                second += c
        shape2 = tuple(sizes[c] for c in second)
        fields.append(g.exactly(TensorType(shape2, dtype)))
        terms.append(second)
    used = [c for t in terms for c in t]
    once = sorted(c for c in set(used) if used.count(c) == 1)
    equation = ",".join(terms)
    if len(once) > MAX_RANK or g.flag():
        labels = sorted(set(used))
        out = [labels[i] for i in _permutation(g, len(labels))][: g.integer(0, MAX_RANK)]
        equation += "->" + "".join(out)
    return (g.tuple_of(fields),), EinsumAttrs.from_kwargs({"equation": equation})


def _matrix_set_diag(g: _Graph) -> Built:
    """Input with non-empty matrices; a diagonal range that exists; the diagonal's type
    follows (same dtype)."""
    data = g.tensor(ALL, min_rank=2, fits=lambda t: min(_dims(t)[-2:]) >= 1)
    shape = _dims(data[1])
    rows, cols = shape[-2], shape[-1]
    k1 = g.integer(-(rows - 1), cols - 1)
    k2 = g.integer(k1, cols - 1) if g.flag() else k1
    length = min(rows + min(k2, 0), cols - max(k1, 0))
    diag = (*shape[:-2], *((k2 - k1 + 1,) if k2 > k1 else ()), length)
    attrs = MatrixSetDiagAttrs.from_kwargs(
        {
            "k1": k1,
            "k2": k2,
            "super_diag_right_align": not g.flag(),
            "sub_diag_right_align": g.flag(),
        }
    )
    return (data, g.exactly(TensorType(diag, data[1].dtype))), attrs


def _trilu(g: _Graph) -> Built:
    """Any rank-0 integer k is defined (out of range it keeps all or nothing)."""
    data = g.tensor(ALL, min_rank=2)
    k = g.tensor(INTEGERS, max_rank=0)
    return (data, k), TriluAttrs.from_kwargs({"upper": not g.flag()})


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
    "reverse": _reverse,
    "tile": _tile,
    "repeat": _repeat,
    "layout_transform": _layout_transform,
    "reshape_like": _reshape_like,
    "broadcast_to_like": _broadcast_to_like,
    "collapse_sum_like": _collapse_sum_like,
    "slice_like": _slice_like,
    "shape_of": _shape_of,
    "ndarray_size": _ndarray_size,
    "einsum": _einsum,
    "matrix_set_diag": _matrix_set_diag,
    "trilu": _trilu,
    "sliding_window": _sliding_window,
    "reverse_sequence": _reverse_sequence,
}
"""How to build a call of each of this group's operators (merged into ``gen_dataflow.BUILDERS``)."""
