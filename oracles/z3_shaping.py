"""Z3 encodings of the type relations of the ``shaping`` operator group.

Written from TVM 0.18's relations (``src/relay/op/tensor/transform.cc``, ``unary.cc``,
``math.cc``) and the departures ``relay.semantics.ops.shaping`` documents, independently of
the relation functions there; each encoding's docstring states its rule. Sizes are Z3 terms;
what ranks and attributes alone decide is checked in Python (``IllTyped``).
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.index import SliceLikeAttrs
from relay.semantics.ops.linalg import EinsumAttrs, MatrixSetDiagAttrs, TriluAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.ops.shape import (
    LayoutTransformAttrs,
    RepeatAttrs,
    ReshapeLikeAttrs,
    ReverseAttrs,
    ReverseSequenceAttrs,
    SlidingWindowAttrs,
    TileAttrs,
)
from relay.semantics.syntax import DTYPES

from .z3_relations import (
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
    _broadcast,
    _tensor,
    _tuple,
    const_value,
    floordiv,
    product,
    well_typed,
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


def _slice_like(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SliceLike: the axes (None: 0 .. min(ranks) - 1; else non-empty, each in [-ndim, ndim)
    and below like's rank) take like's size, which is at most data's."""
    data, like = _tensor(args, 0), _tensor(args, 1)
    axes = _attrs(attrs, SliceLikeAttrs).axes
    ndim = len(data.shape)
    if axes is None:
        chosen = list(range(min(ndim, len(like.shape))))
    elif not axes:
        raise IllTyped("axes is empty")
    else:
        chosen = [_axis(x, ndim) for x in axes]
        if any(x >= len(like.shape) for x in chosen):
            raise IllTyped("an axis beyond shape_like's rank")
    out = list(data.shape)
    cons: list[Cond] = []
    for x in chosen:
        out[x] = like.shape[x]
        cons.append(like.shape[x] <= data.shape[x])
    return well_typed([out], cons, [data.dtype])


def _dtype_result(shape: Shape) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """ShapeOf / NdarraySize: a (rank,) or () tensor of the (required) dtype attribute."""
        data = _tensor(args, 0)
        dtype = getattr(attrs, "dtype", "")
        if dtype not in DTYPES:
            raise IllTyped("a dtype is required")
        return well_typed([[z3.IntVal(len(data.shape))] if shape else []], dtypes=[dtype])

    return encode


def _einsum_labels(term: str) -> list[str]:
    if term.count("...") > 1:
        raise IllTyped(f"two ellipses in {term!r}")
    parts = term.split("...")
    if any(not (c.isascii() and c.isalpha()) for p in parts for c in p):
        raise IllTyped(f"bad label in {term!r}")
    labels = list(parts[0])
    if len(parts) == 2:
        labels += [".", *parts[1]]
    return labels


def _einsum(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Einsum: one dtype; one term per operand, its letters plus an ellipsis span covering
    the rank; a letter's sizes are all equal; ellipsis spans broadcast (right-aligned); the
    output (explicit: distinct known letters, "..." iff an input has one; implicit: "..." then
    the letters used once, sorted) takes those sizes."""
    fields = _tuple(args, 0)
    equation = _attrs(attrs, EinsumAttrs).equation
    if len({f.dtype for f in fields}) != 1:
        raise IllTyped("einsum operands of different dtypes")
    if equation.count("->") > 1:
        raise IllTyped("two arrows")
    lhs, _, rhs = equation.partition("->")
    terms = [_einsum_labels(t) for t in lhs.split(",")]
    if len(terms) != len(fields):
        raise IllTyped("term count differs from operand count")
    sizes: dict[str, list[Term]] = {}
    ellipsis: Shape = []
    cons: list[Cond] = []
    for term, f in zip(terms, fields, strict=True):
        span = len(f.shape) - (len(term) - term.count("."))
        if span < 0 or (span and "." not in term):
            raise IllTyped("a term does not fit its operand's rank")
        at = 0
        for c in term:
            if c == ".":
                part = f.shape[at : at + span]
                ellipsis, more = _broadcast(ellipsis, part)
                cons += more
                at += span
            else:
                sizes.setdefault(c, []).append(f.shape[at])
                at += 1
    for values in sizes.values():
        cons += [v == values[0] for v in values[1:]]
    has_ellipsis = any("." in t for t in terms)
    if "->" in equation:
        output = _einsum_labels(rhs)
        if len(set(output)) != len(output) or any(c != "." and c not in sizes for c in output):
            raise IllTyped("bad output term")
        if ("." in output) != has_ellipsis:
            raise IllTyped("output ellipsis mismatch")
    else:
        counts = [c for t in terms for c in t if c != "."]
        output = (["."] if has_ellipsis else []) + sorted(c for c in sizes if counts.count(c) == 1)
    out: Shape = []
    for c in output:
        out += ellipsis if c == "." else [sizes[c][0]]
    return well_typed([out], cons, [fields[0].dtype])


def _matrix_set_diag(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """MatrixSetDiag: k1 <= k2; input (.., M, N) with M > -k1 and N > k2; diagonal of
    input's dtype, shaped (.., [k2 - k1 + 1 if k1 < k2,] min(M + min(k2, 0), N - max(k1,
    0))); out = input."""
    data, diag = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, MatrixSetDiagAttrs)
    if a.k1 > a.k2 or len(data.shape) < 2 or data.dtype != diag.dtype:
        raise IllTyped("bad k range, rank or dtype")
    *batch, m, n = data.shape
    want = batch + ([z3.IntVal(a.k2 - a.k1 + 1)] if a.k1 < a.k2 else [])
    first, second = m + min(a.k2, 0), n - max(a.k1, 0)
    want.append(z3.If(first <= second, first, second))
    if len(diag.shape) != len(want):
        raise IllTyped("diagonal of the wrong rank")
    cons = [m > -a.k1, n > a.k2, *(d == w for d, w in zip(diag.shape, want, strict=True))]
    return well_typed([data.shape], cons, [data.dtype])


def _trilu(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """trilu: data of rank >= 2; k rank 0 of an int or uint dtype; out = data."""
    data, k = _tensor(args, 0), _tensor(args, 1)
    _attrs(attrs, TriluAttrs)
    if len(data.shape) < 2 or k.shape or not k.dtype.startswith(("int", "uint")):
        raise IllTyped("trilu needs rank >= 2 data and an integer scalar k")
    return well_typed([data.shape], dtypes=[data.dtype])


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
    "reverse": _reverse,
    "tile": _tile,
    "repeat": _repeat,
    "layout_transform": _layout_transform,
    "reshape_like": _reshape_like,
    "broadcast_to_like": _broadcast_to_like,
    "collapse_sum_like": _collapse_sum_like,
    "slice_like": _slice_like,
    "shape_of": _dtype_result([ONE]),
    "ndarray_size": _dtype_result([]),
    "einsum": _einsum,
    "matrix_set_diag": _matrix_set_diag,
    "trilu": _trilu,
    "sliding_window": _sliding_window,
    "reverse_sequence": _reverse_sequence,
}
"""The encodings of this group's operators, by name (merged into ``Z3_ENCODINGS``)."""
