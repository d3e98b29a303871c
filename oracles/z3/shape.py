"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.shape``.

From the former ``z3_indexing`` module:

Z3 encodings of the type relations of the ``indexing`` operator group.

Written from TVM 0.18's relations (``src/relay/op/tensor/transform.cc``,
``src/relay/op/algorithm/*.cc``) and the departures ``ops.indexing`` documents, independently
of the relation functions there. Each encoding's docstring states its rule.

From the former ``z3_shaping`` module:

Z3 encodings of the type relations of the ``shaping`` operator group.

Written from TVM 0.18's relations (``src/relay/op/tensor/transform.cc``, ``unary.cc``,
``math.cc``) and the departures ``relay.semantics.ops.shaping`` documents, independently of
the relation functions there; each encoding's docstring states its rule. Sizes are Z3 terms;
what ranks and attributes alone decide is checked in Python (``IllTyped``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import z3

from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.ops.shape import (
    ExpandDimsAttrs,
    LayoutTransformAttrs,
    MeshgridAttrs,
    RepeatAttrs,
    ReshapeAttrs,
    ReshapeLikeAttrs,
    ReverseAttrs,
    ReverseSequenceAttrs,
    SlidingWindowAttrs,
    SplitAttrs,
    SqueezeAttrs,
    StackAttrs,
    TileAttrs,
    TransposeAttrs,
)
from relay.semantics.syntax import DTYPES

from .core import (
    ONE,
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    Shape,
    Term,
    _attrs,
    _axis,
    _concatenate,
    _same_dtypes,
    _shape_attr,
    _tensor,
    _tuple,
    const_value,
    floordiv,
    product,
    well_typed,
)


def _reshape(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ReshapeRel: newshape entries are sizes or 0 (copy the input size at this position;
    a literal 0 with allowzero), -1 (the remaining input sizes over the literal sizes, which
    must not be 0), -2 (copy the remaining input sizes), -3 (merge the next two), -4 a b
    (split the next into a, b, each positive, 0 or -1, not both -1); element counts equal.

    Positive sizes and -1 also advance the input position. A TVM quirk that ``ops.transform``
    keeps: the inferred size is written at the index the -1 had in newshape (the -1's own
    output position keeps 1), which differs after -2 and -4.
    """
    data = _tensor(args, 0)
    a = _attrs(attrs, ReshapeAttrs)
    ishape, new = data.shape, list(a.newshape)
    out: list[Term] = []
    used: set[int] = set()
    literal = 1
    infer_at: int | None = None
    src = 0
    i = 0
    while i < len(new):
        v = new[i]
        if v > 0 or (v == 0 and a.allowzero):
            out.append(z3.IntVal(v))
            literal *= v
            src += 1
        elif v == 0:
            if src >= len(ishape):
                raise IllTyped(f"newshape copies input axis {src} of a rank-{len(ishape)} input")
            used.add(src)
            out.append(ishape[src])
            src += 1
        elif v == -1:
            if infer_at is not None:
                raise IllTyped("at most one -1 in newshape")
            infer_at = i
            out.append(ONE)
            src += 1
        elif v == -2:
            while src < len(ishape):
                used.add(src)
                out.append(ishape[src])
                src += 1
        elif v == -3:
            if src + 1 >= len(ishape):
                raise IllTyped("-3 needs two more input axes")
            used.update((src, src + 1))
            out.append(ishape[src] * ishape[src + 1])
            src += 2
        elif v == -4:
            if i + 2 >= len(new) or src >= len(ishape):
                raise IllTyped("-4 needs two values after it and one more input axis")
            d0, d1, d2 = ishape[src], new[i + 1], new[i + 2]
            used.add(src)
            src += 1
            i += 2
            if min(d1, d2) < -1 or (d1 == -1 and d2 == -1) or (-1 in (d1, d2) and 0 in (d1, d2)):
                raise IllTyped(f"-4 cannot split into ({d1}, {d2})")
            first = floordiv(d0, d2) if d1 == -1 else z3.IntVal(d1)
            second = floordiv(d0, d1) if d2 == -1 else z3.IntVal(d2)
            out += [first, second]
        else:
            raise IllTyped(f"unsupported special value {v} in newshape")
        i += 1
    if infer_at is not None:
        if literal == 0:
            raise IllTyped("cannot infer -1 next to a zero-size literal dimension")
        if infer_at >= len(out):
            raise IllTyped(f"the -1 at index {infer_at} of newshape has no output position")
        rest = product([d for j, d in enumerate(ishape) if j not in used])
        out[infer_at] = floordiv(rest, literal)
    return well_typed([out], [product(out) == product(ishape)], [data.dtype])


def _transpose(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """TransposeRel: axes (default: reversed) is a permutation of the input axes; out[i] =
    data[axes[i]]."""
    data = _tensor(args, 0)
    axes = _attrs(attrs, TransposeAttrs).axes
    ndim = len(data.shape)
    if axes is None:
        perm = list(range(ndim - 1, -1, -1))
    else:
        if len(axes) != ndim:
            raise IllTyped(f"axes {axes} has {len(axes)} entries for a rank-{ndim} input")
        perm = [_axis(x, ndim) for x in axes]
        if len(set(perm)) != ndim:
            raise IllTyped(f"axes {axes} repeats an axis")
    return well_typed([[data.shape[p] for p in perm]], dtypes=[data.dtype])


def _stack(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """StackRel: one or more tensors of equal rank and dtype and equal sizes; a new axis of
    size the field count goes at axis in [-(ndim+1), ndim]. A TVM quirk that ``ops.transform``
    keeps (the run-time result is undefined): the sizes at input position axis are not
    compared."""
    fields = _tuple(args, 0)
    ndim = len(fields[0].shape)
    if any(len(f.shape) != ndim for f in fields):
        raise IllTyped("stack needs tensors of equal rank")
    dtype = _same_dtypes([f.dtype for f in fields], "field")
    axis = _axis(_attrs(attrs, StackAttrs).axis, ndim + 1)
    first = fields[0].shape
    cons = [f.shape[i] == first[i] for f in fields[1:] for i in range(ndim) if i != axis]
    out = [*first[:axis], z3.IntVal(len(fields)), *first[axis:]]
    return well_typed([out], cons, [dtype])


def _split(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SplitRel: rank >= 1; k >= 1 equal sections (k divides the size), or strictly
    increasing indices 0 < i1 < ... < ik < size giving k + 1 pieces; a tuple result."""
    data = _tensor(args, 0)
    a = _attrs(attrs, SplitAttrs)
    if not data.shape:
        raise IllTyped("split needs an input of rank >= 1")
    axis = _axis(a.axis, len(data.shape))
    size = data.shape[axis]

    def piece(extent: Term) -> Shape:
        return [extent if i == axis else d for i, d in enumerate(data.shape)]

    spec = a.indices_or_sections
    if isinstance(spec, int):
        if spec < 1:
            raise IllTyped(f"cannot split into {spec} sections")
        pieces = [piece(size / spec) for _ in range(spec)]
        cons = [size % spec == 0]
    else:
        bounds = [0, *spec]
        if any(lo >= hi for lo, hi in itertools.pairwise(bounds)):
            raise IllTyped(f"split indices {spec} must be positive and strictly increasing")
        pieces = [piece(z3.IntVal(hi - lo)) for lo, hi in itertools.pairwise(bounds)]
        pieces.append(piece(size - bounds[-1]))
        cons = [size > bounds[-1]]
    return well_typed(pieces, cons, [data.dtype] * len(pieces), tuple_output=True)


def _expand_dims(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ExpandDimsRel: num_newaxis >= 0 unit axes inserted at axis in [-ndim-1, ndim]."""
    data = _tensor(args, 0)
    a = _attrs(attrs, ExpandDimsAttrs)
    if a.num_newaxis < 0:
        raise IllTyped(f"num_newaxis {a.num_newaxis} < 0")
    pivot = _axis(a.axis, len(data.shape) + 1)
    out = [*data.shape[:pivot], *([ONE] * a.num_newaxis), *data.shape[pivot:]]
    return well_typed([out], dtypes=[data.dtype])


def _squeeze(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SqueezeRel: the listed axes (in range, size 1) are removed; with axis None every
    axis of constant size 1 is, and every size must be a constant."""
    data = _tensor(args, 0)
    axis = _attrs(attrs, SqueezeAttrs).axis
    if axis is None:
        values = [const_value(d) for d in data.shape]
        if any(v is None for v in values):
            raise IllTyped("squeeze without axis needs constant sizes")
        return well_typed([[d for d in data.shape if const_value(d) != 1]], dtypes=[data.dtype])
    drop = {_axis(x, len(data.shape)) for x in axis}
    out = [d for i, d in enumerate(data.shape) if i not in drop]
    return well_typed([out], [data.shape[i] == 1 for i in drop], [data.dtype])


def _broadcast_to(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BroadCastToRel: out = shape (data's dtype); data broadcasts to it exactly: rank <=
    len(shape) and each aligned size equal to the target's or 1."""
    data = _tensor(args, 0)
    target = _shape_attr(_attrs(attrs, InitOpAttrs).shape)
    if len(data.shape) > len(target):
        raise IllTyped("broadcast_to cannot lower the rank")
    aligned = zip(data.shape, target[len(target) - len(data.shape) :], strict=True)
    return well_typed([target], [z3.Or(d == t, d == 1) for d, t in aligned], [data.dtype])


def _meshgrid(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Meshgrid: a tuple of scalars and vectors of one dtype; indexing ij or xy; one grid
    per field of extents (n_0, n_1, ...), a scalar counting 1, the first two swapped with
    xy."""
    fields = _tuple(args, 0)
    a = _attrs(attrs, MeshgridAttrs)
    if a.indexing not in ("ij", "xy"):
        raise IllTyped(f"indexing {a.indexing}")
    if len({f.dtype for f in fields}) != 1 or any(len(f.shape) > 1 for f in fields):
        raise IllTyped("dtypes or ranks")
    grid = [f.shape[0] if f.shape else ONE for f in fields]
    if a.indexing == "xy" and len(grid) >= 2:
        grid[0], grid[1] = grid[1], grid[0]
    return well_typed(
        [list(grid) for _ in fields], dtypes=[fields[0].dtype] * len(fields), tuple_output=True
    )


def _reverse(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Reverse: axis given and in [-ndim, ndim); out = data."""
    data = _tensor(args, 0)
    a = _attrs(attrs, ReverseAttrs)
    if a.axis is None:
        raise IllTyped("reverse needs an axis")
    _axis(a.axis, len(data.shape))
    return well_typed([data.shape], dtypes=[data.dtype])


def _tile(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Tile: reps > 0; shapes right-aligned, the shorter padded with 1; out = size * rep."""
    data = _tensor(args, 0)
    reps = list(_attrs(attrs, TileAttrs).reps)
    if any(r <= 0 for r in reps):
        raise IllTyped(f"non-positive rep in {reps}")
    n = max(len(reps), len(data.shape))
    dims = [ONE] * (n - len(data.shape)) + data.shape
    reps = [1] * (n - len(reps)) + reps
    return well_typed([[d * r for d, r in zip(dims, reps, strict=True)]], dtypes=[data.dtype])


def _repeat(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Repeat: repeats >= 1, axis given and in [-ndim, ndim); that size times repeats."""
    data = _tensor(args, 0)
    a = _attrs(attrs, RepeatAttrs)
    if a.repeats < 1 or a.axis is None:
        raise IllTyped(f"repeat needs repeats >= 1 and an axis, found {a.repeats}, {a.axis}")
    axis = _axis(a.axis, len(data.shape))
    out = list(data.shape)
    out[axis] = out[axis] * a.repeats
    return well_typed([out], dtypes=[data.dtype])


def _layout(text: str) -> list[tuple[str, int]]:
    """A layout as (letter, factor) tokens; factor 0 for an upper-case primal axis."""
    tokens: list[tuple[str, int]] = []
    digits = ""
    for c in text:
        if c.isdigit():
            digits += c
            continue
        if not (c.isascii() and c.isalpha()):
            raise IllTyped(f"bad character in layout {text!r}")
        if c.isupper() == bool(digits) or (digits and int(digits) == 0):
            raise IllTyped(f"bad factor before {c} in layout {text!r}")
        tokens.append((c, int(digits or 0)))
        digits = ""
    letters = [c for c, _ in tokens]
    if digits or not tokens or len(set(letters)) != len(letters):
        raise IllTyped(f"malformed layout {text!r}")
    if any(c.islower() and c.upper() not in letters for c in letters):
        raise IllTyped(f"sub-axis without its primal axis in {text!r}")
    return tokens


def _layout_transform(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """layout_transform: both layouts well formed with the same primal letters; data rank =
    len(src); a src sub-axis's size is its factor; logical P = size(P) * factor(p); a dst
    factor f divides P, out P = P / f and out p = f."""
    data = _tensor(args, 0)
    a = _attrs(attrs, LayoutTransformAttrs)
    src, dst = _layout(a.src_layout), _layout(a.dst_layout)
    if {c for c, f in src if not f} != {c for c, f in dst if not f}:
        raise IllTyped("layouts with different primal axes")
    if len(src) != len(data.shape):
        raise IllTyped("src_layout does not fit data's rank")
    size = dict(zip((c for c, _ in src), data.shape, strict=True))
    cons: list[Cond] = []
    logical: dict[str, Term] = {}
    for c, f in src:
        if f:
            cons.append(size[c] == f)
        else:
            logical[c] = size[c] * (dict(src).get(c.lower()) or 1)
    split = {c.upper(): f for c, f in dst if f}
    out: Shape = []
    for c, f in dst:
        if f:
            out.append(z3.IntVal(f))
        elif c in split:
            cons.append(logical[c] % split[c] == 0)
            out.append(logical[c] / split[c])
        else:
            out.append(logical[c])
    return well_typed([out], cons, [data.dtype])


def _span(begin: int, end: int | None, rank: int) -> tuple[int, int]:
    b = begin if begin >= 0 else begin + rank
    e = rank if end is None else (end if end >= 0 else end + rank)
    if b < 0 or b > e or e > rank:
        raise IllTyped(f"bounds {begin}, {end} do not fit rank {rank}")
    return b, e


def _reshape_like(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ReshapeLike: out = data[:lb] + like[rb:re] + data[le:] (bounds in range after adding
    the rank to negatives); equal element counts when every size is a known constant."""
    data, like = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, ReshapeLikeAttrs)
    lb, le = _span(a.lhs_begin, a.lhs_end, len(data.shape))
    rb, re = _span(a.rhs_begin, a.rhs_end, len(like.shape))
    out = data.shape[:lb] + like.shape[rb:re] + data.shape[le:]
    cons: list[Cond] = []
    if all(const_value(d) is not None for d in [*data.shape, *out]):
        cons.append(product(out) == product(data.shape))
    return well_typed([out], cons, [data.dtype])


def _onto(source: Shape, target: Shape) -> list[Cond]:
    """``source`` broadcasts to exactly ``target``: no higher rank; each aligned size equal
    or 1."""
    if len(source) > len(target):
        raise IllTyped("broadcasting cannot lower the rank")
    aligned = zip(source, target[len(target) - len(source) :], strict=True)
    return [z3.Or(s == t, s == 1) for s, t in aligned]


def _broadcast_to_like(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BroadCastToLike: same dtypes; data broadcasts onto like's shape; out = like."""
    data, like = _tensor(args, 0), _tensor(args, 1)
    if data.dtype != like.dtype:
        raise IllTyped("dtypes differ")
    return well_typed([like.shape], _onto(data.shape, like.shape), [like.dtype])


def _collapse_sum_like(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """CollapseSumLike: same dtypes; like broadcasts onto data's shape; out = like."""
    data, like = _tensor(args, 0), _tensor(args, 1)
    if data.dtype != like.dtype:
        raise IllTyped("dtypes differ")
    return well_typed([like.shape], _onto(like.shape, data.shape), [like.dtype])


def _dtype_result(shape: Shape) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """ShapeOf / NdarraySize: a (rank,) or () tensor of the (required) dtype attribute."""
        data = _tensor(args, 0)
        dtype = getattr(attrs, "dtype", "")
        if dtype not in DTYPES:
            raise IllTyped("a dtype is required")
        return well_typed([[z3.IntVal(len(data.shape))] if shape else []], dtypes=[dtype])

    return encode


def _sliding_window(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SlidingWindow: 0 <= axis < ndim; ndim - axis windows (>= 1, at most the size) and
    strides (>= 1); out = data[:axis] + ceil((size - window + 1) / stride) + windows."""
    data = _tensor(args, 0)
    a = _attrs(attrs, SlidingWindowAttrs)
    ndim = len(data.shape)
    if not 0 <= a.axis < ndim:
        raise IllTyped(f"axis {a.axis} outside [0, {ndim})")
    rest = data.shape[a.axis :]
    if len(a.window_shape) != len(rest) or len(a.strides) != len(rest):
        raise IllTyped("window_shape and strides must cover the axes from axis on")
    if min(a.window_shape) < 1 or min(a.strides) < 1:
        raise IllTyped("windows and strides must be >= 1")
    windows = zip(rest, a.window_shape, a.strides, strict=True)
    counts = [floordiv(d - w + 1 + s - 1, s) for d, w, s in windows]
    cons = [d >= w for d, w in zip(rest, a.window_shape, strict=True)]
    out = data.shape[: a.axis] + counts + [z3.IntVal(w) for w in a.window_shape]
    return well_typed([out], cons, [data.dtype])


def _reverse_sequence(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ReverseSequence: seq_lengths a signed-int vector as long as data's batch axis; both
    axes in [-ndim, ndim); out = data."""
    data, lengths = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, ReverseSequenceAttrs)
    if len(lengths.shape) != 1 or not lengths.dtype.startswith("int"):
        raise IllTyped("seq_lengths must be a vector of a signed integer dtype")
    batch = _axis(a.batch_axis, len(data.shape))
    _axis(a.seq_axis, len(data.shape))
    return well_typed([data.shape], [lengths.shape[0] == data.shape[batch]], [data.dtype])


RULES: dict[str, Encoding] = {
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
    "shape_of": _dtype_result([ONE]),
    "ndarray_size": _dtype_result([]),
    "sliding_window": _sliding_window,
    "reverse_sequence": _reverse_sequence,
}
"""This module's entries, by op name."""
