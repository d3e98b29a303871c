"""Per-op Hypothesis samplers: argument types and attributes for one call of each op.

``SAMPLERS[op_name]()`` is a strategy of ``Sample``s. Most samples are built so that the call
is well-typed (shapes derived from one another, attributes chosen to fit them); about one in
five is deliberately broken in one way (a mismatched size, an out-of-range axis, a wrong
dtype or attribute length) to exercise rejection. ``Sample.valid`` records which was aimed
for; it is informative only, the validator decides. Ranks are at most 4 and sizes at most 6;
some samples use the symbolic size ``n`` or ``?`` where the relation must handle them.

All randomness is drawn from Hypothesis (no filters or ``assume``), so every sample shrinks
towards small ranks, small sizes, default attributes and the valid variant.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from hypothesis import strategies as st

from relay.semantics.ops import OPS
from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.elementwise import CastAttrs, ClipAttrs
from relay.semantics.ops.index import StridedSliceAttrs, TakeAttrs
from relay.semantics.ops.nn.activation import LeakyReluAttrs, SoftmaxAttrs
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import BiasAddAttrs, DenseAttrs
from relay.semantics.ops.nn.norm import BatchNormAttrs, DropoutAttrs
from relay.semantics.ops.nn.pool import AvgPool2DAttrs, GlobalPool2DAttrs, MaxPool2DAttrs
from relay.semantics.ops.nn.shape import PadAttrs
from relay.semantics.ops.reduce import ArgReduceAttrs, ReduceAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.ops.shape import (
    ConcatenateAttrs,
    ExpandDimsAttrs,
    ReshapeAttrs,
    SplitAttrs,
    SqueezeAttrs,
    StackAttrs,
    TransposeAttrs,
)
from relay.semantics.syntax import ANY, DTYPES, Dim, TensorType, TupleType, Type, dim_symbol


@dataclass(frozen=True)
class Sample:
    """One call: argument types, attributes, and whether the sampler aimed for a valid call."""

    arg_types: tuple[Type, ...]
    attrs: Attrs | None
    valid: bool = True


Sampler: TypeAlias = Callable[[], st.SearchStrategy[Sample]]

N = dim_symbol("n")
"""The symbolic size used by the samplers."""

FLOATS = ("float16", "float32", "float64")
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGERS = SIGNED + UNSIGNED
NUMERIC = INTEGERS + FLOATS


# ---------------------------------------------------------------------------------------------
# Building blocks


def _valid(draw: st.DrawFn) -> bool:
    """Aim for a valid call four times in five (shrinks to valid)."""
    return draw(st.integers(0, 4)) != 4


_SIZES = (1, 2, 3, 0, 1, 4, 5, 6, 0)
"""Sizes 0 to 6, with the edge cases 0 and 1 twice as likely (shrinks to 1)."""


def _size(draw: st.DrawFn) -> int:
    return draw(st.sampled_from(_SIZES))


def _dim(draw: st.DrawFn, *, symbolic: bool = False, any_: bool = False) -> Dim:
    """A size in [0, 6]; with ``symbolic``/``any_`` sometimes ``n`` / ``?``."""
    kinds = ["size"] * 8 + (["n"] if symbolic else []) + (["?"] if any_ else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "n":
        return N
    if kind == "?":
        return ANY
    return _size(draw)


def _shape(
    draw: st.DrawFn,
    min_rank: int = 0,
    max_rank: int = 4,
    *,
    symbolic: bool = False,
    any_: bool = False,
) -> tuple[Dim, ...]:
    rank = draw(st.integers(min_rank, max_rank))
    return tuple(_dim(draw, symbolic=symbolic, any_=any_) for _ in range(rank))


def _tensor(shape: Sequence[Dim], dtype: str) -> TensorType:
    return TensorType(tuple(shape), dtype)


def _other(draw: st.DrawFn, value: str, options: Sequence[str]) -> str:
    """An element of ``options`` other than ``value``."""
    rest = [o for o in options if o != value]
    return draw(st.sampled_from(rest))


def _concrete(shape: Sequence[Dim]) -> bool:
    return all(isinstance(d, int) for d in shape)


def _bad_size(draw: st.DrawFn, size: Dim) -> int:
    """A concrete size that differs from ``size`` and from 1."""
    return draw(st.sampled_from([s for s in range(2, 8) if s != size]))


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _axis_form(draw: st.DrawFn, axis: int, ndim: int) -> int:
    """``axis`` or its negative spelling."""
    return axis - ndim if draw(st.booleans()) else axis


def _bad_axis(draw: st.DrawFn, ndim: int, extra: int = 0) -> int:
    """An axis outside [-(ndim + extra), ndim + extra)."""
    return draw(st.sampled_from([ndim + extra, ndim + extra + 1, -ndim - extra - 1]))


# ---------------------------------------------------------------------------------------------
# Elementwise


def _unary(
    dtypes: Sequence[str],
    attrs: Callable[[st.DrawFn], Attrs] | None = None,
    wrong: Sequence[str] = (),
) -> Sampler:
    """Any shape (``n`` and ``?`` included) of one of ``dtypes``; with ``wrong`` dtypes,
    sometimes one of those instead."""

    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = not wrong or _valid(draw)
        shape = _shape(draw, symbolic=True, any_=True)
        data = _tensor(shape, draw(st.sampled_from(dtypes if valid else wrong)))
        return Sample((data,), attrs(draw) if attrs else None, valid)

    return sample


def _clip_attrs(draw: st.DrawFn) -> Attrs:
    low = draw(st.integers(-3, 3))
    return ClipAttrs.from_kwargs(
        {"a_min": float(low), "a_max": float(low + draw(st.integers(0, 3)))}
    )


def _leaky_attrs(draw: st.DrawFn) -> Attrs:
    return LeakyReluAttrs.from_kwargs({"alpha": draw(st.sampled_from([0.0, 0.1, 0.25]))})


def _cast_attrs(draw: st.DrawFn) -> Attrs:
    return CastAttrs.from_kwargs({"dtype": draw(st.sampled_from(DTYPES))})


def _broadcast_operands(draw: st.DrawFn, count: int, *, valid: bool) -> list[tuple[Dim, ...]]:
    """``count`` shapes that broadcast together (or, if not ``valid`` and possible, clash
    at one position): each is a suffix of a common shape with some sizes replaced by 1."""
    out = _shape(draw, symbolic=True, any_=True)
    shapes = []
    for _ in range(count):
        rank = len(out) if draw(st.booleans()) else draw(st.integers(0, len(out)))
        suffix = out[len(out) - rank :]
        shapes.append(tuple(d if draw(st.booleans()) else 1 for d in suffix))
    if not valid:
        a, b = draw(st.sampled_from([(i, j) for i in range(count) for j in range(count) if i < j]))
        common = min(len(shapes[a]), len(shapes[b]))
        if common:
            k = draw(st.integers(1, common))
            x = draw(st.integers(2, 6))
            sa, sb = list(shapes[a]), list(shapes[b])
            sa[-k], sb[-k] = x, _bad_size(draw, x)
            shapes[a], shapes[b] = tuple(sa), tuple(sb)
    return shapes


def _binary(dtypes: Sequence[str], wrong: Sequence[str] = NUMERIC) -> Sampler:
    """Broadcasting operands of one of ``dtypes``; broken ones clash at one position, or
    differ in dtype, or (with ``wrong``) share a wrong dtype."""

    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        lhs, rhs = _broadcast_operands(draw, 2, valid=valid or draw(st.booleans()))
        dtype = draw(st.sampled_from(dtypes))
        other = dtype
        if not valid and draw(st.booleans()):
            other = _other(draw, dtype, NUMERIC)
        elif not valid and set(wrong) - set(dtypes) and draw(st.booleans()):
            dtype = other = draw(st.sampled_from([d for d in wrong if d not in dtypes]))
        return Sample((_tensor(lhs, dtype), _tensor(rhs, other)), None, valid)

    return sample


@st.composite
def _where(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    cond, x, y = _broadcast_operands(draw, 3, valid=valid or draw(st.booleans()))
    dtype = draw(st.sampled_from(NUMERIC))
    other = dtype if valid or draw(st.booleans()) else _other(draw, dtype, NUMERIC)
    types = (_tensor(cond, "bool"), _tensor(x, dtype), _tensor(y, other))
    return Sample(types, None, valid)


@st.composite
def _full_like(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(NUMERIC)))
    fill = _tensor(() if valid else (draw(st.integers(1, 3)),), draw(st.sampled_from(NUMERIC)))
    return Sample((data, fill), None, valid)


# ---------------------------------------------------------------------------------------------
# Reductions


def _reduction(attrs_type: type[ReduceAttrs] | type[ArgReduceAttrs], min_rank: int) -> Sampler:
    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        shape = _shape(draw, min_rank if valid else 0, symbolic=True, any_=True)
        ndim = len(shape)
        form = draw(st.sampled_from(["none", "empty", "some"] if ndim else ["none", "empty"]))
        axis: tuple[int, ...] | None = None if form == "none" else ()
        if form == "some":
            chosen = draw(st.lists(st.integers(0, ndim - 1), min_size=1, unique=True))
            axis = tuple(_axis_form(draw, a, ndim) for a in chosen)
        if not valid and draw(st.booleans()):
            axis = (*(axis or ()), _bad_axis(draw, ndim))
        kwargs: dict[str, object] = {
            "axis": axis,
            "keepdims": draw(st.booleans()),
            "exclude": draw(st.booleans()),
        }
        if attrs_type is ArgReduceAttrs:
            kwargs["select_last_index"] = draw(st.booleans())
        data = _tensor(shape, draw(st.sampled_from(NUMERIC)))
        return Sample((data,), attrs_type.from_kwargs(kwargs), valid)

    return sample


# ---------------------------------------------------------------------------------------------
# Transforms


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
def _concatenate(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    base = list(_shape(draw, 1, symbolic=True))
    ndim = len(base)
    axis = draw(st.integers(0, ndim - 1))
    dtype = draw(st.sampled_from(NUMERIC))
    shapes = []
    for _ in range(draw(st.integers(1, 3))):
        s = list(base)
        s[axis] = _dim(draw, symbolic=True)
        shapes.append(s)
    dtypes = [dtype] * len(shapes)
    attr_axis = _axis_form(draw, axis, ndim)
    if not valid:
        fault = draw(st.sampled_from(["size", "dtype", "axis", "rank"]))
        others = [i for i in range(ndim) if i != axis]
        if fault == "size" and others and len(shapes) > 1:
            i = draw(st.sampled_from(others))
            shapes[-1][i] = _bad_size(draw, shapes[0][i])
            shapes[0][i] = draw(st.integers(2, 6)) if shapes[0][i] == N else shapes[0][i]
        elif fault == "dtype" and len(shapes) > 1:
            dtypes[-1] = _other(draw, dtype, NUMERIC)
        elif fault == "rank":
            shapes[-1] = shapes[-1][:-1]
        else:
            attr_axis = _bad_axis(draw, ndim)
    fields = tuple(_tensor(s, t) for s, t in zip(shapes, dtypes, strict=True))
    attrs = ConcatenateAttrs.from_kwargs({"axis": attr_axis})
    return Sample((TupleType(fields),), attrs, valid)


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
def _take(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = list(_shape(draw, 0, 3, symbolic=True))
    indices = list(_shape(draw, 0, 2, symbolic=True))
    ndim = len(data)
    axis: int | None = None
    batch_dims = 0
    if ndim and draw(st.booleans()):
        axis = draw(st.integers(0, ndim - 1))
        if axis >= 1 and len(indices) > 0 and draw(st.booleans()):
            batch_dims = 1
            indices[0] = data[0]
        axis = _axis_form(draw, axis, ndim)
    index_dtype = draw(st.sampled_from(INTEGERS))
    mode = draw(st.sampled_from(["clip", "wrap", "fast"]))
    if not valid:
        fault = draw(st.sampled_from(["axis", "dtype", "batch", "mode"]))
        if fault == "axis":
            axis = draw(st.sampled_from([ndim, ndim + 1, -ndim - 1]))
        elif fault == "dtype":
            index_dtype = draw(st.sampled_from(FLOATS))
        elif fault == "batch":
            axis, batch_dims = 0, draw(st.sampled_from([1, -1]))
        else:
            mode = "raise"
    attrs = TakeAttrs.from_kwargs({"axis": axis, "batch_dims": batch_dims, "mode": mode})
    types = (_tensor(data, draw(st.sampled_from(NUMERIC))), _tensor(indices, index_dtype))
    return Sample(types, attrs, valid)


def _canonical(index: int, dim: int, stride: int) -> int:
    """A slice index made non-negative and clamped, as strided_slice reads it."""
    lo, hi = (-1, dim - 1) if stride < 0 else (0, dim)
    return min(max(index + dim if index < 0 else index, lo), hi)


@st.composite
def _strided_slice(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape: list[Dim] = [_size(draw) for _ in range(draw(st.integers(1, 4)))]
    ndim = len(shape)
    size_mode = draw(st.integers(0, 4)) == 0
    axes: list[int] | None = None
    if draw(st.booleans()):
        axes = draw(st.lists(st.integers(0, ndim - 1), min_size=1, unique=True))
        sliced = axes
        for i in range(ndim):
            if i not in axes and draw(st.integers(0, 3)) == 0:
                shape[i] = N
    else:
        sliced = list(range(draw(st.integers(0, ndim))))
    begin, end, strides = [], [], []
    for ax in sliced:
        dim = shape[ax]
        assert isinstance(dim, int)
        if size_mode:
            b = draw(st.integers(0, dim))
            begin.append(b)
            end.append(draw(st.integers(-1, dim - b)))
            strides.append(1)
            continue
        s = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
        b, e = draw(st.integers(-dim - 2, dim + 2)), draw(st.integers(-dim - 2, dim + 2))
        if (_canonical(b, dim, s) > _canonical(e, dim, s)) == (s > 0):
            b, e = e, b
        begin.append(b)
        end.append(e)
        strides.append(s)
    if not valid:
        fault = draw(st.sampled_from(["stride", "order", "lengths", "axis"]))
        if fault == "stride" and strides and not size_mode:
            strides[-1] = 0
        elif fault == "order" and begin and not size_mode:
            dim = shape[sliced[-1]]
            assert isinstance(dim, int)
            begin[-1], end[-1], strides[-1] = dim, 0, 1
        elif fault == "lengths":
            begin.append(0)
            if axes is None:
                begin += [0] * (ndim + 1 - len(begin))
        else:
            axes = [*(axes or [0]), ndim]
            begin, end, strides = [*begin, 0], [*end, 1], [*strides, 1]
    attrs = StridedSliceAttrs.from_kwargs(
        {
            "begin": tuple(begin),
            "end": tuple(end),
            "strides": tuple(strides),
            "slice_mode": "size" if size_mode else "end",
            "axes": None if axes is None else tuple(axes),
        }
    )
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


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


def _init_shape(draw: st.DrawFn, valid: bool) -> tuple[int, ...] | None:
    shape = tuple(_size(draw) for _ in range(draw(st.integers(0, 4))))
    if valid:
        return shape
    return None if draw(st.booleans()) else (*shape, -1)


@st.composite
def _zeros_or_ones(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    no_dtype = not valid and draw(st.booleans())
    shape = _init_shape(draw, valid or no_dtype)
    dtype = "" if no_dtype else draw(st.sampled_from(DTYPES))
    return Sample((), InitOpAttrs.from_kwargs({"shape": shape, "dtype": dtype}), valid)


@st.composite
def _full(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    fault = "" if valid else draw(st.sampled_from(["shape", "fill"]))
    shape = _init_shape(draw, fault != "shape")
    fill = _tensor(
        (draw(st.integers(1, 3)),) if fault == "fill" else (), draw(st.sampled_from(DTYPES))
    )
    attrs = InitOpAttrs.from_kwargs({"shape": shape, "dtype": draw(st.sampled_from(["", *DTYPES]))})
    return Sample((fill,), attrs, valid)


# ---------------------------------------------------------------------------------------------
# Neural-network operators


@st.composite
def _softmax(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1 if valid else 0, symbolic=True, any_=True)
    ndim = len(shape)
    axis = (
        _axis_form(draw, draw(st.integers(0, ndim - 1)), ndim) if valid else _bad_axis(draw, ndim)
    )
    attrs = SoftmaxAttrs.from_kwargs({"axis": axis})
    return Sample((_tensor(shape, draw(st.sampled_from(FLOATS))),), attrs, valid)


@st.composite
def _dense(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    batch = _shape(draw, 0, 2, symbolic=True, any_=True)
    k = _dim(draw, symbolic=True)
    units = _size(draw)
    weight: list[Dim] = [units, k]
    attr_units: int | None = units if draw(st.booleans()) else None
    data = [*batch, k]
    if not valid:
        fault = draw(st.sampled_from(["k", "units", "rank"]))
        if fault == "k":
            data[-1] = draw(st.integers(2, 6))
            weight[1] = _bad_size(draw, data[-1])
        elif fault == "units":
            attr_units = units + 1
        else:
            weight = [units]
    dtype = draw(st.sampled_from(NUMERIC))
    attrs = DenseAttrs.from_kwargs(
        {"units": attr_units, "out_dtype": draw(st.sampled_from(["", "float32", "int32"]))}
    )
    return Sample((_tensor(data, dtype), _tensor(weight, dtype)), attrs, valid)


@st.composite
def _bias_add(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1, symbolic=True, any_=True)
    ndim = len(shape)
    axis = draw(st.integers(0, ndim - 1))
    dtype = draw(st.sampled_from(NUMERIC))
    bias, bias_dtype, attr_axis = [shape[axis]], dtype, _axis_form(draw, axis, ndim)
    if not valid:
        fault = draw(st.sampled_from(["size", "dtype", "axis"]))
        if fault == "size":
            bias = [_bad_size(draw, shape[axis])] if isinstance(shape[axis], int) else [1, 1]
        elif fault == "dtype":
            bias_dtype = _other(draw, dtype, NUMERIC)
        else:
            attr_axis = _bad_axis(draw, ndim)
    types = (_tensor(shape, dtype), _tensor(bias, bias_dtype))
    return Sample(types, BiasAddAttrs.from_kwargs({"axis": attr_axis}), valid)


@st.composite
def _batch_flatten(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1 if valid else 0, 4 if valid else 0, symbolic=True, any_=True)
    return Sample((_tensor(shape, draw(st.sampled_from(FLOATS))),), None, valid)


def _in_layout(values: Mapping[str, Dim], layout: str) -> tuple[Dim, ...]:
    return tuple(values[c] for c in layout)


def _padding(draw: st.DrawFn, high: int) -> tuple[tuple[int, ...], int, int]:
    """Padding of 1, 2 or 4 values, and the total height and width padding it gives."""
    p = tuple(draw(st.integers(0, high)) for _ in range(draw(st.sampled_from([1, 2, 4]))))
    if len(p) == 1:
        return p, 2 * p[0], 2 * p[0]
    if len(p) == 2:
        return p, 2 * p[0], 2 * p[1]
    return p, p[0] + p[2], p[1] + p[3]


@st.composite
def _conv2d(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data_layout, kernel_layout = draw(
        st.sampled_from([("NCHW", "OIHW"), ("NHWC", "HWIO"), ("NCHW", "OHWI"), ("NHWC", "OIHW")])
    )
    grouping = draw(st.sampled_from(["plain", "plain", "grouped", "depthwise", "multiplier"]))
    groups = {"plain": 1, "grouped": 2}.get(grouping) or draw(st.integers(2, 4))
    per_group = draw(st.integers(1, 3)) if grouping in ("plain", "grouped") else 1
    out_per_group = draw(st.integers(1, 2)) if grouping in ("plain", "grouped") else 1
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    strides = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding, pad_h, pad_w = _padding(draw, 2)
    h = max(0, 1 + (kh - 1) * dilation[0] - pad_h) + draw(st.integers(0, 3))
    w = max(0, 1 + (kw - 1) * dilation[1] - pad_w) + draw(st.integers(0, 3))
    n: Dim = draw(st.sampled_from([1, 2, N]))
    height: Dim = N if draw(st.integers(0, 5)) == 0 else h
    c, o = groups * per_group, groups * out_per_group
    weight = {"O": o, "I": per_group, "H": kh, "W": kw}
    channels: int | None = o if draw(st.booleans()) else None
    kernel_size: tuple[int, int] | None = (kh, kw) if draw(st.booleans()) else None
    if grouping == "multiplier":
        # TVM's depthwise weight (C, multiplier, kh, kw), read so given channels and kernel_size.
        weight["I"] = draw(st.integers(1, 3))
        channels, kernel_size = groups * weight["I"], (kh, kw)
    kwargs: dict[str, object] = {
        "strides": strides,
        "padding": padding,
        "dilation": dilation,
        "groups": groups,
        "channels": channels,
        "kernel_size": kernel_size,
        "data_layout": data_layout,
        "kernel_layout": kernel_layout,
        "out_layout": draw(st.sampled_from(["", "NCHW", "NHWC"])),
        "out_dtype": draw(st.sampled_from(["", "float32"])),
    }
    rank = 4
    if not valid:
        fault = draw(
            st.sampled_from(["in_channels", "kernel_size", "channels", "pad", "small", "rank"])
        )
        if fault == "in_channels":
            weight["I"] = per_group + 1
        elif fault == "kernel_size":
            kwargs["kernel_size"] = (kh + 1, kw)
        elif fault == "channels":
            kwargs["channels"] = (channels or o) + groups
        elif fault == "pad":
            kwargs["padding"] = (1, 1, 1)
        elif fault == "small":
            kwargs.update(padding=(0,), strides=(1, 1), dilation=(1, 1))
            weight["H"] = kh = 3
            height = draw(st.integers(0, 1))
        else:
            rank = 3
    data = _in_layout({"N": n, "C": c, "H": height, "W": w}, data_layout)[:rank]
    dtype = draw(st.sampled_from(FLOATS))
    types = (_tensor(data, dtype), _tensor(_in_layout(weight, kernel_layout), dtype))
    return Sample(types, Conv2DAttrs.from_kwargs(kwargs), valid)


def _pool2d(attrs_type: type[MaxPool2DAttrs] | type[AvgPool2DAttrs]) -> Sampler:
    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        layout = draw(st.sampled_from(["NCHW", "NHWC"]))
        pool = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        strides = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
        dilation = (draw(st.sampled_from([1, 1, 2])), draw(st.sampled_from([1, 1, 2])))
        padding, pad_h, pad_w = _padding(draw, 1)
        h = max(0, 1 + (pool[0] - 1) * dilation[0] - pad_h) + draw(st.integers(0, 3))
        w = max(0, 1 + (pool[1] - 1) * dilation[1] - pad_w) + draw(st.integers(0, 3))
        height: Dim = N if draw(st.integers(0, 4)) == 0 else h
        kwargs: dict[str, object] = {
            "pool_size": pool,
            "strides": strides,
            "dilation": dilation,
            "padding": padding,
            "layout": layout,
            "ceil_mode": draw(st.booleans()),
        }
        if attrs_type is AvgPool2DAttrs:
            kwargs["count_include_pad"] = draw(st.booleans())
        if not valid:
            fault = draw(st.sampled_from(["pad", "pool", "small", "layout"]))
            if fault == "pad":
                kwargs["padding"] = (0, 0, 0)
            elif fault == "pool":
                kwargs["pool_size"] = (pool[0],)
            elif fault == "small":
                kwargs.update(pool_size=(3, 3), strides=(1, 1), dilation=(1, 1), padding=(0,))
                height = 0
            else:
                kwargs["layout"] = "NCDW"
        sizes = {"N": draw(st.integers(1, 2)), "C": _dim(draw, symbolic=True), "H": height, "W": w}
        data = _tensor(_in_layout(sizes, layout), draw(st.sampled_from(FLOATS)))
        return Sample((data,), attrs_type.from_kwargs(kwargs), valid)

    return sample


@st.composite
def _global_avg_pool2d(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    layout = draw(st.sampled_from(["NCHW", "NHWC"]))
    shape = _shape(draw, 4, 4, symbolic=True, any_=True)
    if not valid:
        if draw(st.booleans()):
            shape = shape[:3]
        else:
            layout = "NCDW"
    attrs = GlobalPool2DAttrs.from_kwargs({"layout": layout})
    return Sample((_tensor(shape, draw(st.sampled_from(FLOATS))),), attrs, valid)


@st.composite
def _batch_norm(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1, symbolic=True, any_=True)
    ndim = len(shape)
    axis = draw(st.integers(-1, ndim - 1))
    dtype = draw(st.sampled_from(FLOATS))
    channels = shape[axis]
    vectors = [_tensor((channels,), dtype) for _ in range(4)]
    if not valid:
        fault = draw(st.sampled_from(["axis", "size", "dtype"]))
        k = draw(st.integers(0, 3))
        if fault == "axis":
            axis = draw(st.sampled_from([ndim, -2] if ndim >= 2 else [ndim]))
        elif fault == "size" and isinstance(channels, int):
            vectors[k] = _tensor((_bad_size(draw, channels),), dtype)
        elif fault == "size":
            vectors[k] = _tensor((1, 1), dtype)
        else:
            vectors[k] = _tensor((channels,), _other(draw, dtype, FLOATS))
    attrs = BatchNormAttrs.from_kwargs(
        {"axis": axis, "center": draw(st.booleans()), "scale": draw(st.booleans())}
    )
    return Sample((_tensor(shape, dtype), *vectors), attrs, valid)


@st.composite
def _dropout(draw: st.DrawFn) -> Sample:
    data = _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(FLOATS)))
    attrs = DropoutAttrs.from_kwargs({"rate": draw(st.sampled_from([0.0, 0.5, 0.9]))})
    return Sample((data,), attrs)


@st.composite
def _pad(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, symbolic=True, any_=True)
    widths: list[tuple[int, ...]] = []
    for d in shape:
        low = -(d // 2) if isinstance(d, int) else 0
        widths.append((draw(st.integers(low, 2)), draw(st.integers(low, 2))))
    mode = draw(st.sampled_from(["constant", "edge", "reflect"]))
    if not valid:
        fault = draw(st.sampled_from(["count", "pair", "negative", "mode"]))
        if fault == "mode":
            mode = "wrap"
        elif fault == "count" or not shape:
            widths.append((0, 0))
        elif fault == "pair":
            widths[-1] = (0, 0, 0)
        else:
            widths[-1] = (-7, 0)
    dtype = draw(st.sampled_from(NUMERIC))
    attrs = PadAttrs.from_kwargs({"pad_width": tuple(widths), "pad_mode": mode})
    return Sample((_tensor(shape, dtype), _tensor((), dtype)), attrs, valid)


# ---------------------------------------------------------------------------------------------
# The table

_FLOAT_UNARY = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid")
_SIGNED_UNARY = ("negative", "abs", "nn.relu", "floor", "ceil", "round")
_ARITHMETIC = (
    *("add", "subtract", "multiply", "divide", "floor_divide", "mod", "floor_mod"),
    *("maximum", "minimum"),
)
_COMPARISON = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")

SAMPLERS: dict[str, Sampler] = {
    **{name: _unary(FLOATS, wrong=INTEGERS) for name in _FLOAT_UNARY},
    **{name: _unary(SIGNED + FLOATS) for name in _SIGNED_UNARY},
    "logical_not": _unary(("bool",), wrong=NUMERIC),
    "zeros_like": _unary(DTYPES),
    "ones_like": _unary(DTYPES),
    "clip": _unary(NUMERIC, _clip_attrs),
    "nn.leaky_relu": _unary(FLOATS, _leaky_attrs),
    "cast": _unary(DTYPES, _cast_attrs),
    **{name: _binary(NUMERIC) for name in _ARITHMETIC},
    "power": _binary(FLOATS),
    **{name: _binary(DTYPES) for name in _COMPARISON},
    "logical_and": _binary(("bool",)),
    "logical_or": _binary(("bool",)),
    "where": _where,
    "full_like": _full_like,
    **{name: _reduction(ReduceAttrs, 0) for name in ("sum", "mean", "max", "min", "prod")},
    "argmax": _reduction(ArgReduceAttrs, 1),
    "argmin": _reduction(ArgReduceAttrs, 1),
    "reshape": _reshape,
    "transpose": _transpose,
    "concatenate": _concatenate,
    "stack": _stack,
    "split": _split,
    "expand_dims": _expand_dims,
    "squeeze": _squeeze,
    "take": _take,
    "strided_slice": _strided_slice,
    "broadcast_to": _broadcast_to,
    "zeros": _zeros_or_ones,
    "ones": _zeros_or_ones,
    "full": _full,
    "nn.softmax": _softmax,
    "nn.log_softmax": _softmax,
    "nn.dense": _dense,
    "nn.bias_add": _bias_add,
    "nn.batch_flatten": _batch_flatten,
    "nn.conv2d": _conv2d,
    "nn.max_pool2d": _pool2d(MaxPool2DAttrs),
    "nn.avg_pool2d": _pool2d(AvgPool2DAttrs),
    "nn.global_avg_pool2d": _global_avg_pool2d,
    "nn.batch_norm": _batch_norm,
    "nn.dropout": _dropout,
    "nn.pad": _pad,
}
"""A strategy of calls for every registered op, by op name."""


# The other operator groups' samplers, each in its own module (they import from this one).
from . import (  # noqa: E402
    samplers_arith,
    samplers_dynq,
    samplers_indexing,
    samplers_nnconv,
    samplers_nnnorm,
    samplers_shaping,
)

for _group in (
    samplers_arith,
    samplers_indexing,
    samplers_shaping,
    samplers_nnconv,
    samplers_nnnorm,
    samplers_dynq,
):
    SAMPLERS.update(_group.SAMPLERS)


def missing_samplers() -> list[str]:
    """Registered ops without an entry in ``SAMPLERS``."""
    return sorted(set(OPS) - set(SAMPLERS))


__all__ = ["SAMPLERS", "N", "Sample", "Sampler", "missing_samplers"]
