"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.shape``.

From the former ``samplers_indexing`` module:

Samplers of the ``indexing`` operator group.

Each sampler draws a call that is valid four times in five, else broken in one way (a wrong
dtype, rank, extent or attribute). Symbolic ``n`` and ``?`` appear where relations must
handle them. All randomness comes from Hypothesis, shrinking to small valid calls.

From the former ``samplers_shaping`` module:

Samplers of the ``shaping`` operator group.

Each strategy draws one call: mostly well-typed (shapes derived from one another, attributes
chosen to fit), about one in five broken in one way (an axis out of range, a mismatched size,
a wrong dtype or attribute). Symbolic ``n`` and ``?`` sizes appear where the relation must
handle them. Everything shrinks towards small ranks, sizes 1, default attributes and the
valid variant (see ``samplers``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from hypothesis import strategies as st

from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.shape import (
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
from relay.semantics.syntax import DTYPES, Dim, TupleType

from .core import (
    FLOATS,
    NUMERIC,
    SIGNED,
    N,
    Sample,
    Sampler,
    _axis_form,
    _bad_axis,
    _bad_size,
    _concatenate,
    _other,
    _shape,
    _size,
    _tensor,
    _valid,
)


def _concrete(shape: Sequence[Dim]) -> bool:
    return all(isinstance(d, int) for d in shape)


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _factorise(draw: st.DrawFn, total: int) -> list[int]:
    """Up to four positive sizes whose product is ``total`` (> 0)."""
    dims = []
    rest = total
    for _ in range(draw(st.integers(0, 3))):
        d = draw(st.sampled_from(_divisors(rest)))
        dims.append(d)
        rest //= d
    return [*dims, rest]


def _newshape_walk(draw: st.DrawFn, shape: Sequence[Dim], allowzero: bool) -> list[int]:
    """A newshape built from the input left to right with 0, -1, -2, -3, -4 and sizes."""
    tokens: list[int] = []
    src = 0
    may_infer = 0 not in shape
    while src < len(shape):
        d = shape[src]
        options = ["rest"]
        if not allowzero:
            options.append("copy")
        if isinstance(d, int) and (d > 0 or allowzero):
            options.append("size")
        if may_infer:
            options.append("infer")
        if src + 1 < len(shape):
            options.append("merge")
        if isinstance(d, int) and d >= 1:
            options.append("split")
        choice = draw(st.sampled_from(options))
        if choice == "rest":
            tokens.append(-2)
            break
        if choice == "copy":
            tokens.append(0)
        elif choice == "size" and isinstance(d, int):
            tokens.append(d)
        elif choice == "infer":
            tokens.append(-1)
            may_infer = False
        elif choice == "merge":
            e = shape[src + 1]
            if isinstance(d, int) and isinstance(e, int) and d * e > 0 and draw(st.booleans()):
                tokens.append(d * e)
            else:
                tokens.append(-3)
            src += 1
        elif isinstance(d, int):
            a = draw(st.sampled_from(_divisors(d)))
            pair = draw(st.sampled_from([(a, d // a), (-1, d // a), (a, -1)]))
            tokens += [-4, *pair]
            may_infer = False  # TVM stores a later -1 at the wrong index after a -4
        src += 1
    return tokens


@st.composite
def _reshape(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, symbolic=True)
    allowzero = draw(st.booleans())
    total = math.prod(d for d in shape if isinstance(d, int))
    if _concrete(shape) and total > 0 and draw(st.booleans()):
        newshape = _factorise(draw, total)
        if draw(st.booleans()):
            newshape[draw(st.integers(0, len(newshape) - 1))] = -1
    elif _concrete(shape) and total == 0 and allowzero and draw(st.booleans()):
        # Any shape with a literal 0 holds no elements either.
        newshape = [_size(draw) for _ in range(draw(st.integers(0, 3)))]
        newshape.insert(draw(st.integers(0, len(newshape))), 0)
    else:
        newshape = _newshape_walk(draw, shape, allowzero)
    if not valid:
        fault = draw(st.sampled_from(["size", "two infers", "special"]))
        sizes = [i for i, v in enumerate(newshape) if v > 0]
        if fault == "size" and sizes:
            newshape[draw(st.sampled_from(sizes))] += 1
        elif fault == "size":
            newshape.append(2)
        elif fault == "two infers":
            newshape += [-1, -1]
        else:
            newshape.append(-5)
    attrs = ReshapeAttrs.from_kwargs({"newshape": tuple(newshape), "allowzero": allowzero})
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


@st.composite
def _transpose(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, symbolic=True, any_=True)
    ndim = len(shape)
    axes: tuple[int, ...] | None = None
    if draw(st.booleans()):
        perm = draw(st.permutations(range(ndim)))
        axes = tuple(_axis_form(draw, a, ndim) for a in perm)
    if not valid:
        fault = draw(st.sampled_from(["length", "repeat", "range"]))
        base = list(axes if axes is not None else range(ndim))
        if fault == "length" or not base:
            axes = (*base, 0)
        elif fault == "repeat" and len(base) > 1:
            axes = (base[1], *base[1:])
        else:
            axes = (*base[:-1], _bad_axis(draw, ndim))
    attrs = TransposeAttrs.from_kwargs({"axes": axes})
    return Sample((_tensor(shape, draw(st.sampled_from(DTYPES))),), attrs, valid)


@st.composite
def _stack(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    base = _shape(draw, 0, 3, symbolic=True)
    ndim = len(base)
    shapes = [list(base) for _ in range(draw(st.integers(1, 3)))]
    dtype = draw(st.sampled_from(NUMERIC))
    dtypes = [dtype] * len(shapes)
    axis = _axis_form(draw, draw(st.integers(0, ndim)), ndim + 1)
    if not valid:
        fault = draw(st.sampled_from(["size", "dtype", "axis"]))
        if fault == "size" and ndim and len(shapes) > 1:
            i = draw(st.integers(0, ndim - 1))
            shapes[0][i] = draw(st.integers(2, 6))
            shapes[-1][i] = _bad_size(draw, shapes[0][i])
        elif fault == "dtype" and len(shapes) > 1:
            dtypes[-1] = _other(draw, dtype, NUMERIC)
        else:
            axis = _bad_axis(draw, ndim, extra=1)
    fields = tuple(_tensor(s, t) for s, t in zip(shapes, dtypes, strict=True))
    return Sample((TupleType(fields),), StackAttrs.from_kwargs({"axis": axis}), valid)


@st.composite
def _split(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = list(_shape(draw, 1, 3, symbolic=True))
    ndim = len(shape)
    axis = draw(st.integers(0, ndim - 1))
    size = shape[axis]
    spec: int | tuple[int, ...]
    if draw(st.booleans()):
        # Split indices: strictly between 0 and the (concrete, positive) extent.
        shape[axis] = size = (
            size if isinstance(size, int) and size >= 1 else draw(st.integers(1, 6))
        )
        spec = (
            tuple(sorted(draw(st.sets(st.integers(1, size - 1), max_size=3)))) if size > 1 else ()
        )
    elif isinstance(size, int):
        spec = draw(st.sampled_from(_divisors(size) if size else [1, 2, 3]))
    else:
        spec = draw(st.sampled_from([1, 2]))
    attr_axis = _axis_form(draw, axis, ndim)
    if not valid:
        fault = draw(st.sampled_from(["sections", "order", "beyond", "axis"]))
        shape[axis] = size = draw(st.integers(2, 6))
        if fault == "sections":
            spec = draw(st.sampled_from([0, *[s for s in range(2, 7) if size % s]]))
        elif fault == "order":
            spec = (1, 1) if size == 2 else (size - 1, 1)
        elif fault == "beyond":
            spec = (1, size) if draw(st.booleans()) else (size + 1,)
        else:
            attr_axis = _bad_axis(draw, ndim)
    attrs = SplitAttrs.from_kwargs({"indices_or_sections": spec, "axis": attr_axis})
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


@st.composite
def _expand_dims(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, symbolic=True, any_=True)
    ndim = len(shape)
    axis = _axis_form(draw, draw(st.integers(0, ndim)), ndim + 1)
    count = draw(st.integers(0, 2))
    if not valid:
        if draw(st.booleans()):
            axis = _bad_axis(draw, ndim, extra=1)
        else:
            count = -1
    attrs = ExpandDimsAttrs.from_kwargs({"axis": axis, "num_newaxis": count})
    return Sample((_tensor(shape, draw(st.sampled_from(DTYPES))),), attrs, valid)


@st.composite
def _squeeze(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = list(_shape(draw, symbolic=True, any_=True))
    ndim = len(shape)
    axis: tuple[int, ...] | None = None
    if not _concrete(shape) or draw(st.booleans()):
        chosen = draw(st.lists(st.integers(0, ndim - 1), unique=True)) if ndim else []
        for i in chosen:
            shape[i] = 1
        axis = tuple(_axis_form(draw, i, ndim) for i in chosen)
    if not valid:
        if ndim and draw(st.booleans()):
            i = draw(st.integers(0, ndim - 1))
            shape[i] = draw(st.integers(2, 6))
            axis = (*(axis or ()), i)
        else:
            axis = (*(axis or ()), _bad_axis(draw, ndim))
    attrs = SqueezeAttrs.from_kwargs({"axis": axis})
    return Sample((_tensor(shape, draw(st.sampled_from(DTYPES))),), attrs, valid)


@st.composite
def _broadcast_to(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    target = [_size(draw) for _ in range(draw(st.integers(0, 4)))]
    rank = draw(st.integers(0, len(target)))
    data = [t if draw(st.booleans()) else 1 for t in target[len(target) - rank :]]
    dtype = draw(st.sampled_from(NUMERIC))
    shape: tuple[int, ...] | None = tuple(target)
    if not valid:
        fault = draw(st.sampled_from(["size", "rank", "none"]))
        if fault == "size" and data:
            i = draw(st.integers(0, len(data) - 1))
            data[i] = _bad_size(draw, target[len(target) - len(data) + i])
        elif fault in ("size", "rank"):
            data = [draw(st.integers(2, 6)), *[1] * len(target)]
        else:
            shape = None
    attrs = InitOpAttrs.from_kwargs({"shape": shape, "dtype": draw(st.sampled_from(["", dtype]))})
    return Sample((_tensor(data, dtype),), attrs, valid)


@st.composite
def _meshgrid(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    count = draw(st.integers(1, 4))
    dtype = draw(st.sampled_from(NUMERIC))
    fields = [_tensor(_shape(draw, 0, 1, symbolic=True, any_=True), dtype) for _ in range(count)]
    indexing = draw(st.sampled_from(["ij", "xy"]))
    if not valid:
        fault = draw(st.sampled_from(["dtype", "rank", "indexing"]))
        if fault == "dtype":
            fields.append(_tensor((2,), "bool"))
        elif fault == "rank":
            fields.append(_tensor((2, 2), dtype))
        else:
            indexing = "yx"
    attrs = MeshgridAttrs.from_kwargs({"indexing": indexing})
    return Sample((TupleType(tuple(fields)),), attrs, valid)


@st.composite
def _reverse(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1 if valid else 0, symbolic=True, any_=True)
    ndim = len(shape)
    axis: int | None = _axis_form(draw, draw(st.integers(0, ndim - 1)), ndim) if ndim else 0
    if not valid:
        axis = None if draw(st.booleans()) else _bad_axis(draw, ndim)
    data = _tensor(shape, draw(st.sampled_from(DTYPES)))
    return Sample((data,), ReverseAttrs.from_kwargs({"axis": axis}), valid)


@st.composite
def _tile(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, symbolic=True, any_=True)
    reps = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 4)))]
    if not valid:
        reps.append(draw(st.sampled_from([0, -1])))
    data = _tensor(shape, draw(st.sampled_from(DTYPES)))
    return Sample((data,), TileAttrs.from_kwargs({"reps": tuple(reps)}), valid)


@st.composite
def _repeat(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1, symbolic=True, any_=True)
    ndim = len(shape)
    repeats = draw(st.integers(1, 3))
    axis: int | None = _axis_form(draw, draw(st.integers(0, ndim - 1)), ndim)
    if not valid:
        fault = draw(st.sampled_from(["repeats", "axis", "none"]))
        if fault == "repeats":
            repeats = draw(st.sampled_from([0, -2]))
        elif fault == "axis":
            axis = _bad_axis(draw, ndim)
        else:
            axis = None
    attrs = RepeatAttrs.from_kwargs({"repeats": repeats, "axis": axis})
    return Sample((_tensor(shape, draw(st.sampled_from(DTYPES))),), attrs, valid)


_LETTERS = "NCHWD"


@st.composite
def _layout_transform(draw: st.DrawFn) -> Sample:
    """Two orders of the same primal letters, each perhaps with one split axis (the src
    split's extent is its factor; a dst split's factor divides the primal extent)."""
    valid = _valid(draw)
    rank = draw(st.integers(1, 4))
    letters = _LETTERS[:rank]
    extents: dict[str, Dim] = {c: draw(st.sampled_from([1, 2, 4, 6, 8, N])) for c in letters}
    src = list(draw(st.permutations(letters)))
    dst = list(draw(st.permutations(letters)))
    shape: list[Dim] = [extents[c] for c in src]
    if draw(st.booleans()):
        c = draw(st.sampled_from(letters))
        f = draw(st.sampled_from([2, 4]))
        src.insert(draw(st.integers(0, len(src))), f"{f}{c.lower()}")
        shape.insert(src.index(f"{f}{c.lower()}"), f)
    if draw(st.booleans()):
        c = draw(st.sampled_from(letters))
        f = draw(st.sampled_from([1, 2, 4]))
        dst.insert(draw(st.integers(0, len(dst))), f"{f}{c.lower()}")
    if not valid:
        fault = draw(st.sampled_from(["letters", "rank", "factor", "syntax"]))
        if fault == "letters":
            dst = [x.replace(letters[0], "Z") for x in dst]
        elif fault == "rank":
            shape.append(2)
        elif fault == "factor":
            dst.append(f"5{letters[0].lower()}")
        else:
            dst.append("4")
    attrs = LayoutTransformAttrs.from_kwargs(
        {"src_layout": "".join(src), "dst_layout": "".join(dst)}
    )
    return Sample((_tensor(shape, draw(st.sampled_from(DTYPES))),), attrs, valid)


def _end_form(draw: st.DrawFn, end: int, rank: int) -> int | None:
    """``end`` as written: itself, None when it is the rank, or negative below the rank."""
    form = draw(st.integers(0, 2))
    if form == 1 and end == rank:
        return None
    if form == 2 and end < rank:
        return end - rank
    return end


@st.composite
def _reshape_like(draw: st.DrawFn) -> Sample:
    """data = prefix + middle + suffix; shape_like holds a factorisation of middle's count
    (or symbolic sizes) between arbitrary other sizes."""
    valid = _valid(draw)
    prefix = list(_shape(draw, 0, 1))
    middle = list(_shape(draw, 0, 2, symbolic=True))
    suffix = list(_shape(draw, 0, 1))
    count = 1
    for d in middle:
        count = count * d if isinstance(d, int) and isinstance(count, int) else 0
    if all(isinstance(d, int) for d in middle) and count > 0 and draw(st.booleans()):
        first = draw(st.sampled_from([k for k in range(1, count + 1) if count % k == 0]))
        taken: list[Dim] = [first, count // first]
    else:
        taken = list(middle)
    lead = list(_shape(draw, 0, 1))
    trail = list(_shape(draw, 0, 1))
    like = lead + taken + trail
    data = prefix + middle + suffix
    lb, le = len(prefix), len(prefix) + len(middle)
    rb, re = len(lead), len(lead) + len(taken)
    kwargs: dict[str, object] = {
        "lhs_begin": lb - len(data) if lb < len(data) and draw(st.booleans()) else lb,
        "lhs_end": _end_form(draw, le, len(data)),
        "rhs_begin": rb,
        "rhs_end": _end_form(draw, re, len(like)),
    }
    if not valid:
        fault = draw(st.sampled_from(["bounds", "count"]))
        if fault == "bounds":
            kwargs["lhs_begin"] = len(data) + 1
        else:
            data = [*data, 7]
            kwargs["lhs_end"] = le
    dtype = draw(st.sampled_from(DTYPES))
    types = (_tensor(data, dtype), _tensor(like, draw(st.sampled_from(DTYPES))))
    return Sample(types, ReshapeLikeAttrs.from_kwargs(kwargs), valid)


def _broadcasting(collapse: bool) -> Sampler:
    """A target shape and a source that broadcasts onto it (for collapse_sum_like the
    roles swap: collapse_type is the source)."""

    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        big = list(_shape(draw, symbolic=True, any_=True))
        rank = draw(st.integers(0, len(big)))
        small: list[Dim] = [d if draw(st.booleans()) else 1 for d in big[len(big) - rank :]]
        dtype = draw(st.sampled_from(DTYPES))
        other = dtype
        if not valid:
            fault = draw(st.sampled_from(["size", "dtype", "rank"]))
            if fault == "size" and small:
                i = draw(st.integers(0, len(small) - 1))
                big[len(big) - len(small) + i] = draw(st.integers(2, 5))
                small[i] = _bad_size(draw, big[len(big) - len(small) + i])
            elif fault == "dtype":
                other = _other(draw, dtype, DTYPES)
            else:
                small = [2, *big]
        big_t, small_t = _tensor(big, dtype), _tensor(small, other)
        args = (big_t, small_t) if collapse else (small_t, big_t)
        return Sample(args, None, valid)

    return sample


def _shape_reader(attrs_type: type[ShapeOfAttrs] | type[NdarraySizeAttrs]) -> Sampler:
    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        dtype = draw(st.sampled_from(["int32", "int64", *DTYPES])) if valid else ""
        data = _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(DTYPES)))
        return Sample((data,), attrs_type.from_kwargs({"dtype": dtype}), valid)

    return sample


@st.composite
def _sliding_window(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = list(_shape(draw, 1, symbolic=True))
    ndim = len(shape)
    axis = draw(st.integers(0, ndim - 1))
    windows = [
        draw(st.integers(1, d)) if isinstance(d, int) and d >= 1 else 1 for d in shape[axis:]
    ]
    if any(d == 0 for d in shape[axis:]):
        shape = [max(1, d) if isinstance(d, int) else d for d in shape]
    strides = [draw(st.integers(1, 3)) for _ in windows]
    if not valid:
        fault = draw(st.sampled_from(["axis", "length", "window", "stride"]))
        if fault == "axis":
            axis = draw(st.sampled_from([-1, ndim]))
        elif fault == "length":
            strides.append(1)
        elif fault == "window":
            shape[-1] = draw(st.integers(1, 3))
            windows[-1] = shape[-1] + 1  # type: ignore[operator]
        else:
            strides[-1] = 0
    attrs = SlidingWindowAttrs.from_kwargs(
        {"axis": axis, "window_shape": tuple(windows), "strides": tuple(strides)}
    )
    return Sample((_tensor(shape, draw(st.sampled_from(DTYPES))),), attrs, valid)


@st.composite
def _reverse_sequence(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1, symbolic=True, any_=True)
    ndim = len(shape)
    batch = draw(st.integers(0, ndim - 1))
    seq = draw(st.integers(0, ndim - 1))
    lengths: list[Dim] = [shape[batch]]
    dtype = draw(st.sampled_from(SIGNED))
    kwargs: dict[str, object] = {
        "batch_axis": _axis_form(draw, batch, ndim),
        "seq_axis": _axis_form(draw, seq, ndim),
    }
    if not valid:
        fault = draw(st.sampled_from(["size", "dtype", "axis", "rank"]))
        if fault == "size":
            lengths = [7 if shape[batch] != 7 else 6]
            if not isinstance(shape[batch], int):
                lengths = [shape[batch], 1]
        elif fault == "dtype":
            dtype = draw(st.sampled_from(["uint8", "uint32", *FLOATS]))
        elif fault == "axis":
            kwargs["seq_axis"] = _bad_axis(draw, ndim)
        else:
            lengths = []
    types = (_tensor(shape, draw(st.sampled_from(DTYPES))), _tensor(lengths, dtype))
    return Sample(types, ReverseSequenceAttrs.from_kwargs(kwargs), valid)


SAMPLERS: dict[str, Sampler] = {
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
    "broadcast_to_like": _broadcasting(collapse=False),
    "collapse_sum_like": _broadcasting(collapse=True),
    "shape_of": _shape_reader(ShapeOfAttrs),
    "ndarray_size": _shape_reader(NdarraySizeAttrs),
    "sliding_window": _sliding_window,
    "reverse_sequence": _reverse_sequence,
}
"""This module's entries, by op name."""
