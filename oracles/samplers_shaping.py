"""Samplers of the ``shaping`` operator group.

Each strategy draws one call: mostly well-typed (shapes derived from one another, attributes
chosen to fit), about one in five broken in one way (an axis out of range, a mismatched size,
a wrong dtype or attribute). Symbolic ``n`` and ``?`` sizes appear where the relation must
handle them. Everything shrinks towards small ranks, sizes 1, default attributes and the
valid variant (see ``samplers``).
"""

from __future__ import annotations

from hypothesis import strategies as st

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
from relay.semantics.syntax import DTYPES, Dim, TupleType

from .samplers import (
    FLOATS,
    INTEGERS,
    NUMERIC,
    SIGNED,
    N,
    Sample,
    Sampler,
    _axis_form,
    _bad_axis,
    _bad_size,
    _dim,
    _other,
    _shape,
    _tensor,
    _valid,
)


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


@st.composite
def _slice_like(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = list(_shape(draw, 1, symbolic=True, any_=True))
    like: list[Dim] = []
    for d in data[: draw(st.integers(0, len(data)))]:
        like.append(draw(st.integers(0, d)) if isinstance(d, int) else d)
    like += list(_shape(draw, 0, 1))
    ndim = len(data)
    axes: tuple[int, ...] | None = None
    shared = min(ndim, len(like))
    if shared and draw(st.booleans()):
        chosen = draw(
            st.lists(st.integers(0, shared - 1), min_size=1, max_size=shared, unique=True)
        )
        axes = tuple(_axis_form(draw, x, ndim) for x in chosen)
    if not valid:
        fault = draw(st.sampled_from(["empty", "axis", "size"]))
        if fault == "empty":
            axes = ()
        elif fault == "axis" or not like:
            axes = (_bad_axis(draw, ndim),)
        else:
            extent = draw(st.integers(0, 3))
            data[0] = extent
            like[0] = extent + 1 + draw(st.integers(0, 2))
            axes = (0,)
    dtype = draw(st.sampled_from(DTYPES))
    types = (_tensor(data, dtype), _tensor(like, draw(st.sampled_from(DTYPES))))
    return Sample(types, SliceLikeAttrs.from_kwargs({"axes": axes}), valid)


def _shape_reader(attrs_type: type[ShapeOfAttrs] | type[NdarraySizeAttrs]) -> Sampler:
    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        dtype = draw(st.sampled_from(["int32", "int64", *DTYPES])) if valid else ""
        data = _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(DTYPES)))
        return Sample((data,), attrs_type.from_kwargs({"dtype": dtype}), valid)

    return sample


@st.composite
def _einsum(draw: st.DrawFn) -> Sample:
    """One to three operands over a few labels (some shared), perhaps with an ellipsis
    span; an explicit output of distinct labels, or the implicit one."""
    valid = _valid(draw)
    labels = list(draw(st.sampled_from(["ij", "ijk", "abcd", "iJ"])))
    sizes: dict[str, Dim] = {c: _dim(draw, symbolic=True) for c in labels}
    ellipsis = list(_shape(draw, 0, 2)) if draw(st.integers(0, 3)) == 0 else None
    terms: list[str] = []
    shapes: list[list[Dim]] = []
    for _ in range(draw(st.integers(1, 3))):
        chosen = draw(st.lists(st.sampled_from(labels), max_size=3))
        term = "".join(chosen)
        shape = [sizes[c] for c in chosen]
        if ellipsis is not None:
            cut = draw(st.integers(0, len(ellipsis)))
            part = [d if draw(st.booleans()) else 1 for d in ellipsis[cut:]]
            term = "..." + term
            shape = part + shape
        terms.append(term)
        shapes.append(shape)
    used = sorted({c for t in terms for c in t if c.isalpha()})
    output = None
    if draw(st.booleans()):
        chosen_out = draw(st.permutations(used))[: draw(st.integers(0, len(used)))]
        output = ("..." if ellipsis is not None else "") + "".join(chosen_out)
    dtype = draw(st.sampled_from(NUMERIC))
    dtypes = [dtype] * len(shapes)
    if not valid:
        fault = draw(st.sampled_from(["size", "dtype", "terms", "label"]))
        named = [c for c in used if isinstance(sizes[c], int)]
        if fault == "size" and named:
            c = named[0]
            terms.append(c)
            shapes.append([_bad_size(draw, sizes[c])])
            dtypes.append(dtype)
        elif fault == "dtype" and len(shapes) > 1:
            dtypes[-1] = _other(draw, dtype, NUMERIC)
        elif fault in ("size", "dtype", "terms"):
            shapes.append([])
            dtypes.append(dtype)
        else:
            output = "Z"
    equation = ",".join(terms) + ("" if output is None else "->" + output)
    fields = tuple(_tensor(s, t) for s, t in zip(shapes, dtypes, strict=True))
    return Sample((TupleType(fields),), EinsumAttrs.from_kwargs({"equation": equation}), valid)


@st.composite
def _matrix_set_diag(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    batch = list(_shape(draw, 0, 2, symbolic=True, any_=True))
    rows, cols = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    k1 = draw(st.integers(-(rows - 1), cols - 1))
    k2 = draw(st.integers(k1, cols - 1)) if draw(st.booleans()) else k1
    length = min(rows + min(k2, 0), cols - max(k1, 0))
    diag: list[Dim] = [*batch, *([k2 - k1 + 1] if k2 > k1 else []), length]
    kwargs: dict[str, object] = {
        "k1": k1,
        "k2": k2,
        "super_diag_right_align": draw(st.booleans()),
        "sub_diag_right_align": draw(st.booleans()),
    }
    dtype = draw(st.sampled_from(DTYPES))
    diag_dtype = dtype
    if not valid:
        fault = draw(st.sampled_from(["order", "length", "exists", "dtype"]))
        if fault == "order":
            kwargs.update(k1=k2 + 1, k2=k2)
        elif fault == "length":
            diag[-1] = length + 1
        elif fault == "exists":
            kwargs["k2"] = cols + draw(st.integers(0, 2))
        else:
            diag_dtype = _other(draw, dtype, DTYPES)
    types = (_tensor([*batch, rows, cols], dtype), _tensor(diag, diag_dtype))
    return Sample(types, MatrixSetDiagAttrs.from_kwargs(kwargs), valid)


@st.composite
def _trilu(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 2, symbolic=True, any_=True)
    k_shape: tuple[Dim, ...] = ()
    k_dtype = draw(st.sampled_from(INTEGERS))
    if not valid:
        fault = draw(st.sampled_from(["rank", "k", "dtype"]))
        if fault == "rank":
            shape = shape[:1]
        elif fault == "k":
            k_shape = (draw(st.integers(1, 3)),)
        else:
            k_dtype = draw(st.sampled_from([*FLOATS, "bool"]))
    types = (_tensor(shape, draw(st.sampled_from(DTYPES))), _tensor(k_shape, k_dtype))
    return Sample(types, TriluAttrs.from_kwargs({"upper": draw(st.booleans())}), valid)


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
    "reverse": _reverse,
    "tile": _tile,
    "repeat": _repeat,
    "layout_transform": _layout_transform,
    "reshape_like": _reshape_like,
    "broadcast_to_like": _broadcasting(collapse=False),
    "collapse_sum_like": _broadcasting(collapse=True),
    "slice_like": _slice_like,
    "shape_of": _shape_reader(ShapeOfAttrs),
    "ndarray_size": _shape_reader(NdarraySizeAttrs),
    "einsum": _einsum,
    "matrix_set_diag": _matrix_set_diag,
    "trilu": _trilu,
    "sliding_window": _sliding_window,
    "reverse_sequence": _reverse_sequence,
}
"""The samplers of this group's operators, by name (merged into ``samplers.SAMPLERS``)."""
