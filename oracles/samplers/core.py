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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from hypothesis import strategies as st

from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import DenseAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.ops.shape import ConcatenateAttrs
from relay.semantics.syntax import ANY, Dim, TensorType, TupleType, Type, dim_symbol


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


def _bad_size(draw: st.DrawFn, size: Dim) -> int:
    """A concrete size that differs from ``size`` and from 1."""
    return draw(st.sampled_from([s for s in range(2, 8) if s != size]))


def _axis_form(draw: st.DrawFn, axis: int, ndim: int) -> int:
    """``axis`` or its negative spelling."""
    return axis - ndim if draw(st.booleans()) else axis


def _bad_axis(draw: st.DrawFn, ndim: int, extra: int = 0) -> int:
    """An axis outside [-(ndim + extra), ndim + extra)."""
    return draw(st.sampled_from([ndim + extra, ndim + extra + 1, -ndim - extra - 1]))


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


_SIGNED_UNARY = ("negative", "abs", "nn.relu", "floor", "ceil", "round")


_NOT_INTEGER = (*FLOATS, "bool")


def _pads(draw: st.DrawFn, nd: int, high: int) -> tuple[tuple[int, ...], list[int]]:
    """Padding of 1, ``nd`` or ``2 * nd`` values, and the total per spatial axis."""
    count = draw(st.sampled_from(sorted({1, nd, 2 * nd})))
    p = tuple(draw(st.integers(0, high)) for _ in range(count))
    if count == 1:
        return p, [2 * p[0]] * nd
    if count == nd:
        return p, [2 * v for v in p]
    return p, [p[i] + p[nd + i] for i in range(nd)]


def _ints(draw: st.DrawFn, nd: int, low: int, high: int) -> tuple[int, ...]:
    return tuple(draw(st.integers(low, high)) for _ in range(nd))


def _image(draw: st.DrawFn, valid: bool) -> tuple[tuple[Dim, ...], str]:
    """4-D data in NCHW or NHWC (broken: rank 3 or another layout)."""
    layout = draw(st.sampled_from(["NCHW", "NHWC"]))
    shape = _shape(draw, 4, 4, symbolic=True, any_=True)
    if not valid and draw(st.booleans()):
        if draw(st.booleans()):
            return shape[:3], layout
        return shape, draw(st.sampled_from(["NCHW4c", "HWCN", "NCDHW"]))
    return shape, layout
