"""Z3 encodings of the operators' type relations, one per registered op.

An encoding states, as Z3 formulas over dimension sizes, what TVM 0.18's relation for the op
means: given the argument shapes (lists of Z3 ``Int`` terms; ranks are Python ints) and dtypes,
and the attributes, it returns the output shape(s) as terms and the constraints that must hold
for the call to be well-typed. Anything decidable from the ranks and attributes alone (axis
bounds, attribute lengths, dtype rules) is checked in Python and reported as ``ill_typed``.

These encodings are written from TVM's documented behaviour and its relation sources
(``src/relay/op/type_relations.cc``, ``tensor/transform.cc``, ``tensor/reduce.cc``,
``nn/nn.cc``, ``nn/convolution.h``, ``nn/pooling.cc``, ``nn/pad.cc``), independently of the
relation functions in ``relay.semantics.ops``: ``relay.oracles.validate`` checks one against
the other. Where TVM's code departs from what the op means, the encodings follow what the op
modules document as the spec: their deliberate departures (float-only math and ``power``,
bool-only logical ops; ``take`` rejecting ``axis == ndim`` and a negative ``batch_dims``;
convolution and pooling windows that must fit the padded input; ``zeros`` and ``ones``
needing a dtype) and the TVM quirks they keep (``reshape`` writing an inferred ``-1`` at its
index in ``newshape``; ``stack`` not comparing the sizes at input position ``axis``). Each
encoding's docstring states its rule.

Every output size is additionally constrained to be at least 0 (``well_typed``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias, TypeVar

import z3

from relay.semantics.ops import OPS
from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.elementwise import CastAttrs
from relay.semantics.ops.index import StridedSliceAttrs, TakeAttrs
from relay.semantics.ops.nn.activation import SoftmaxAttrs
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import BiasAddAttrs, DenseAttrs
from relay.semantics.ops.nn.norm import BatchNormAttrs
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

Term: TypeAlias = z3.ArithRef
"""A Z3 integer term: one dimension size."""

Cond: TypeAlias = z3.BoolRef
"""A Z3 boolean formula over dimension sizes."""

Shape: TypeAlias = list[Term]


@dataclass(frozen=True)
class TensorArg:
    """A tensor argument: its dimensions as Z3 terms (the rank is ``len(shape)``) and dtype."""

    shape: Shape
    dtype: str


@dataclass(frozen=True)
class TupleArg:
    """A tuple argument (``concatenate``, ``stack``): one ``TensorArg`` per field."""

    fields: list[TensorArg]


Arg: TypeAlias = TensorArg | TupleArg


@dataclass(frozen=True)
class Encoded:
    """What an encoding says about one call.

    ``outputs`` holds one shape per result tensor (one for a tensor result, one per field for
    a tuple result, ``tuple_output`` telling which); ``constraints`` must all hold for the call
    to be well-typed; ``dtypes`` are the result dtypes (``None``: not determined, e.g. a
    ``zeros`` without a dtype); ``ill_typed`` is set, with the reason, when the call is
    ill-typed whatever the sizes are.
    """

    outputs: list[Shape]
    constraints: list[Cond]
    dtypes: list[str] | None
    ill_typed: str | None = None
    tuple_output: bool = False


Encoding: TypeAlias = Callable[[Sequence[Arg], "Attrs | None"], Encoded]
"""An op's encoding: from its arguments and attributes to an ``Encoded``."""


class IllTyped(Exception):
    """Raised inside an encoding for a call that is ill-typed whatever the sizes are."""


def well_typed(
    outputs: list[Shape],
    constraints: Sequence[Cond] = (),
    dtypes: list[str] | None = None,
    *,
    tuple_output: bool = False,
) -> Encoded:
    """An ``Encoded`` for a call that may be well-typed; every output size must be >= 0."""
    simplified = [[z3.simplify(d) for d in shape] for shape in outputs]
    sizes = [d >= 0 for shape in simplified for d in shape]
    return Encoded(simplified, [*constraints, *sizes], dtypes, None, tuple_output)


def ill_typed(reason: str) -> Encoded:
    """An ``Encoded`` for a call that is ill-typed whatever the sizes are."""
    return Encoded([], [], None, reason)


# ---------------------------------------------------------------------------------------------
# Helpers

ONE = z3.IntVal(1)


def _int(x: int | Term) -> Term:
    return z3.IntVal(x) if isinstance(x, int) else x


def const_value(t: Term) -> int | None:
    """The value of ``t`` if it simplifies to an integer constant, else ``None``."""
    v = z3.simplify(t)
    return int(v.as_long()) if z3.is_int_value(v) else None


def floordiv(a: int | Term, b: int | Term) -> Term:
    """``floor(a / b)``; Z3's integer division is Euclidean, which is floor for ``b > 0``."""
    a, b = _int(a), _int(b)
    return z3.If(b > 0, a / b, (-a) / (-b))


def product(dims: Sequence[int | Term]) -> Term:
    """The product of ``dims`` (1 for none)."""
    out: Term = ONE
    for d in dims:
        out = out * _int(d)
    return out


def _broadcast(a: Shape, b: Shape) -> tuple[Shape, list[Cond]]:
    """Numpy broadcasting from the right: aligned sizes are equal or one is 1; the result
    takes the size that is not 1."""
    n = max(len(a), len(b))
    pa = [ONE] * (n - len(a)) + a
    pb = [ONE] * (n - len(b)) + b
    out = [z3.If(x == 1, y, x) for x, y in zip(pa, pb, strict=True)]
    cons = [z3.Or(x == y, x == 1, y == 1) for x, y in zip(pa, pb, strict=True)]
    return out, cons


def _axis(axis: int, ndim: int, what: str = "axis") -> int:
    """``axis`` in ``[-ndim, ndim)`` as an index, else ill-typed."""
    if not -ndim <= axis < ndim:
        raise IllTyped(f"{what} {axis} is out of range for rank {ndim}")
    return axis + ndim if axis < 0 else axis


def _tensor(args: Sequence[Arg], i: int, what: str = "") -> TensorArg:
    if i >= len(args):
        raise IllTyped(f"missing argument {i}")
    a = args[i]
    if not isinstance(a, TensorArg):
        raise IllTyped(f"argument {what or i} must be a tensor")
    return a


def _tuple(args: Sequence[Arg], i: int) -> list[TensorArg]:
    a = args[i] if i < len(args) else None
    if not isinstance(a, TupleArg):
        raise IllTyped(f"argument {i} must be a tuple of tensors")
    fields = a.fields
    if not fields:
        raise IllTyped("the tuple must have at least one field")
    return list(fields)


A = TypeVar("A", bound=Attrs)


def _attrs(attrs: Attrs | None, cls: type[A]) -> A:
    if not isinstance(attrs, cls):
        raise IllTyped(f"expected {cls.__name__}")
    return attrs


def _is_integer_dtype(dtype: str) -> bool:
    """TVM's ``is_int() || is_uint()``; bool is ``uint1`` there, so it counts."""
    return dtype.startswith(("int", "uint")) or dtype == "bool"


def _same_dtypes(dtypes: Sequence[str], what: str) -> str:
    if len(set(dtypes)) != 1:
        raise IllTyped(f"{what} dtypes differ: {', '.join(dtypes)}")
    return dtypes[0]


# ---------------------------------------------------------------------------------------------
# Elementwise


def _identity(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """IdentityRel: out = data, same shape and dtype (any dtype)."""
    data = _tensor(args, 0)
    return well_typed([data.shape], dtypes=[data.dtype])


def _kind(dtype: str, kind: str | None, what: str) -> None:
    """``kind`` "float" or "bool" restricts ``dtype``; ``None`` allows any."""
    if kind == "float" and not dtype.startswith("float"):
        raise IllTyped(f"{what} must be a float, found {dtype}")
    if kind == "bool" and dtype != "bool":
        raise IllTyped(f"{what} must be bool, found {dtype}")


def _unary(kind: str | None) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """IdentityRel: out = data; float math needs a float, logical_not a bool."""
        data = _tensor(args, 0)
        _kind(data.dtype, kind, "data")
        return well_typed([data.shape], dtypes=[data.dtype])

    return encode


def _binary(result_dtype: str | None, kind: str | None = None) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """BroadcastRel: lhs and rhs dtypes equal (float for power, bool for the logical
        ops); shapes broadcast; out dtype lhs's (or bool for comparisons)."""
        lhs, rhs = _tensor(args, 0), _tensor(args, 1)
        dtype = _same_dtypes([lhs.dtype, rhs.dtype], "lhs and rhs")
        _kind(dtype, kind, "lhs and rhs")
        out, cons = _broadcast(lhs.shape, rhs.shape)
        return well_typed([out], cons, [result_dtype or dtype])

    return encode


def _where(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """WhereRel: x and y dtypes equal; condition, x and y broadcast together; out dtype x's."""
    cond, x, y = _tensor(args, 0), _tensor(args, 1), _tensor(args, 2)
    dtype = _same_dtypes([x.dtype, y.dtype], "x and y")
    xy, c1 = _broadcast(x.shape, y.shape)
    out, c2 = _broadcast(cond.shape, xy)
    return well_typed([out], c1 + c2, [dtype])


def _cast(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """CastRel: out has data's shape and the dtype attribute."""
    data = _tensor(args, 0)
    return well_typed([data.shape], dtypes=[_attrs(attrs, CastAttrs).dtype])


def _full_like(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """FullLikeRel: fill_value is a scalar (any dtype); out = data's shape and dtype."""
    data, fill = _tensor(args, 0), _tensor(args, 1)
    if fill.shape:
        raise IllTyped("fill_value must be a scalar")
    return well_typed([data.shape], dtypes=[data.dtype])


# ---------------------------------------------------------------------------------------------
# Reductions


def _reduce_axes(ndim: int, axis: tuple[int, ...] | None, exclude: bool) -> list[int]:
    """The reduced axes: all for None or (), else the listed ones (or the others with
    exclude); each in [-ndim, ndim), no repeats."""
    if not axis:
        return list(range(ndim))
    listed = [_axis(a, ndim) for a in axis]
    if len(set(listed)) != len(listed):
        raise IllTyped(f"repeated reduction axis in {axis}")
    return [i for i in range(ndim) if (i in listed) != exclude]


def _reduce_shape(shape: Shape, axes: list[int], keepdims: bool) -> Shape:
    if keepdims:
        return [ONE if i in axes else d for i, d in enumerate(shape)]
    return [d for i, d in enumerate(shape) if i not in axes]


def _reduce(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ReduceRel: reduced axes dropped (or kept as 1 with keepdims); dtype unchanged."""
    data = _tensor(args, 0)
    a = _attrs(attrs, ReduceAttrs)
    axes = _reduce_axes(len(data.shape), a.axis, a.exclude)
    return well_typed([_reduce_shape(data.shape, axes, a.keepdims)], dtypes=[data.dtype])


def _arg_reduce(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ArgReduceRel: as ReduceRel, but data has rank >= 1 and the result is int32."""
    data = _tensor(args, 0)
    a = _attrs(attrs, ArgReduceAttrs)
    if not data.shape:
        raise IllTyped("argmax/argmin need an input of rank >= 1")
    axes = _reduce_axes(len(data.shape), a.axis, a.exclude)
    return well_typed([_reduce_shape(data.shape, axes, a.keepdims)], dtypes=["int32"])


# ---------------------------------------------------------------------------------------------
# Transforms


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


def _concatenate(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ConcatenateRel: one or more tensors of equal rank and dtype, equal off the axis; the
    axis sizes add up."""
    fields = _tuple(args, 0)
    ndim = len(fields[0].shape)
    if any(len(f.shape) != ndim for f in fields):
        raise IllTyped("concatenate needs tensors of equal rank")
    dtype = _same_dtypes([f.dtype for f in fields], "field")
    axis = _axis(_attrs(attrs, ConcatenateAttrs).axis, ndim)
    first = fields[0].shape
    cons = [f.shape[i] == first[i] for f in fields[1:] for i in range(ndim) if i != axis]
    out = list(first)
    out[axis] = sum((f.shape[axis] for f in fields[1:]), first[axis])
    return well_typed([out], cons, [dtype])


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


def _take(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """TakeRel: integer indices, mode clip, wrap or fast; axis None gives indices' shape;
    else data[:axis] + indices[batch_dims:] + data[axis+1:], with 0 <= batch_dims <=
    min(axis, indices rank) and equal leading batch sizes. (TVM accepts axis == ndim,
    mishandles a negative batch_dims and does not compare the batch sizes; ``ops.transform``
    rejects all three.)"""
    data, indices = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, TakeAttrs)
    if not _is_integer_dtype(indices.dtype):
        raise IllTyped(f"indices must be integers, found {indices.dtype}")
    if a.mode not in ("clip", "wrap", "fast"):
        raise IllTyped(f"unknown mode {a.mode}")
    if a.axis is None:
        return well_typed([indices.shape], dtypes=[data.dtype])
    axis = _axis(a.axis, len(data.shape))
    if not 0 <= a.batch_dims <= min(axis, len(indices.shape)):
        raise IllTyped(f"batch_dims {a.batch_dims} out of range")
    cons = [data.shape[i] == indices.shape[i] for i in range(a.batch_dims)]
    out = [*data.shape[:axis], *indices.shape[a.batch_dims :], *data.shape[axis + 1 :]]
    return well_typed([out], cons, [data.dtype])


_MAX_RANGE = 2**63 - 1


def _canonical(index: int | Term, dim: Term, stride: int) -> Term:
    """A slice index made non-negative (+dim) and clamped to [0, dim] (stride > 0) or
    [-1, dim - 1] (stride < 0)."""
    index = _int(index)
    shifted = z3.If(index < 0, index + dim, index)
    lo, hi = (z3.IntVal(-1), dim - 1) if stride < 0 else (z3.IntVal(0), dim)
    return z3.If(shifted < lo, lo, z3.If(shifted > hi, hi, shifted))


def _strided_slice(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """StridedSliceRel: per sliced axis (axes, each in [0, ndim), or every axis with
    begin, end, strides padded to whole-axis slices) the clamped begin <= end (>= for a
    negative stride), nonzero stride, size ceil(|end - begin| / |stride|); slice_mode="size"
    reads end as a size (negative: to the end) and ignores strides. At least one axis is
    sliced (TVM reads begin[0])."""
    data = _tensor(args, 0)
    a = _attrs(attrs, StridedSliceAttrs)
    if a.begin is None or a.end is None or a.strides is None:
        raise IllTyped("strided_slice needs begin, end and strides")
    if a.slice_mode not in ("end", "size"):
        raise IllTyped(f"unknown slice_mode {a.slice_mode}")
    ndim = len(data.shape)
    begin, end, strides = list(a.begin), list(a.end), list(a.strides)
    if a.axes is not None:
        if not len(a.axes) == len(begin) == len(end) == len(strides):
            raise IllTyped("axes, begin, end and strides need equal lengths")
        if any(not 0 <= x < ndim for x in a.axes):
            raise IllTyped(f"axes {a.axes} out of range [0, {ndim})")
        axes = list(a.axes)
        if len(set(axes)) != len(axes):
            raise IllTyped(f"axes {a.axes} repeats an axis")
    else:
        if max(len(begin), len(end), len(strides)) > ndim:
            raise IllTyped(f"begin, end and strides longer than the rank {ndim}")
        axes = list(range(ndim))
        strides += [1] * (ndim - len(strides))
        begin += [0 if s > 0 else _MAX_RANGE for s in strides[len(begin) :]]
        end += [0 if s < 0 else _MAX_RANGE for s in strides[len(end) :]]
    if not axes:
        raise IllTyped("strided_slice of no axes")
    out = list(data.shape)
    cons: list[Cond] = []
    for ax, b, e, s in zip(axes, begin, end, strides, strict=True):
        if a.slice_mode == "size":
            s = 1
            e = _MAX_RANGE if e < 0 else b + e
        if s == 0:
            raise IllTyped("a stride of 0")
        dim = data.shape[ax]
        cb, ce = _canonical(b, dim, s), _canonical(e, dim, s)
        if s > 0:
            cons.append(cb <= ce)
            out[ax] = (ce - cb + s - 1) / s
        else:
            cons.append(ce <= cb)
            out[ax] = (cb - ce - s - 1) / (-s)
    return well_typed([out], cons, [data.dtype])


def _shape_attr(shape: tuple[int, ...] | None) -> Shape:
    if shape is None:
        raise IllTyped("the shape attribute is required")
    if any(d < 0 for d in shape):
        raise IllTyped(f"negative size in shape {shape}")
    return [z3.IntVal(d) for d in shape]


def _broadcast_to(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BroadCastToRel: out = shape (data's dtype); data broadcasts to it exactly: rank <=
    len(shape) and each aligned size equal to the target's or 1."""
    data = _tensor(args, 0)
    target = _shape_attr(_attrs(attrs, InitOpAttrs).shape)
    if len(data.shape) > len(target):
        raise IllTyped("broadcast_to cannot lower the rank")
    aligned = zip(data.shape, target[len(target) - len(data.shape) :], strict=True)
    return well_typed([target], [z3.Or(d == t, d == 1) for d, t in aligned], [data.dtype])


def _init(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """InitOpRel (zeros, ones): out = shape attribute, dtype attribute, which is required
    (TVM would make a void tensor)."""
    a = _attrs(attrs, InitOpAttrs)
    if not a.dtype:
        raise IllTyped("zeros and ones need a dtype")
    return well_typed([_shape_attr(a.shape)], dtypes=[a.dtype])


def _full(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """FullRel: fill_value is a scalar; out = shape attribute, dtype attribute or fill's."""
    fill = _tensor(args, 0)
    a = _attrs(attrs, InitOpAttrs)
    if fill.shape:
        raise IllTyped("fill_value must be a scalar")
    return well_typed([_shape_attr(a.shape)], dtypes=[a.dtype or fill.dtype])


# ---------------------------------------------------------------------------------------------
# Neural-network operators


def _softmax(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SoftmaxRel: axis in [-ndim, ndim); out = data."""
    data = _tensor(args, 0)
    _axis(_attrs(attrs, SoftmaxAttrs).axis, len(data.shape))
    return well_typed([data.shape], dtypes=[data.dtype])


def _dense(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DenseRel: data (..., k), weight (units, k); out (..., units), dtype out_dtype or
    data's."""
    data, weight = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, DenseAttrs)
    if not data.shape or len(weight.shape) != 2:
        raise IllTyped("dense needs data of rank >= 1 and a rank-2 weight")
    cons = [weight.shape[1] == data.shape[-1]]
    if a.units is not None:
        cons.append(weight.shape[0] == a.units)
    out = [*data.shape[:-1], weight.shape[0]]
    return well_typed([out], cons, [a.out_dtype or data.dtype])


def _bias_add(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BiasAddRel: axis in range; bias is (data[axis],) of data's dtype; out = data."""
    data, bias = _tensor(args, 0), _tensor(args, 1)
    axis = _axis(_attrs(attrs, BiasAddAttrs).axis, len(data.shape))
    if len(bias.shape) != 1 or bias.dtype != data.dtype:
        raise IllTyped(f"bias must be a vector of {data.dtype}")
    return well_typed([data.shape], [bias.shape[0] == data.shape[axis]], [data.dtype])


def _batch_flatten(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BatchFlattenRel: rank >= 1; (d0, d1, ..., dk) becomes (d0, d1 * ... * dk)."""
    data = _tensor(args, 0)
    if not data.shape:
        raise IllTyped("batch_flatten needs rank >= 1")
    return well_typed([[data.shape[0], product(data.shape[1:])]], dtypes=[data.dtype])


def _layout(layout: str, letters: str) -> list[int]:
    """Where each of ``letters`` sits in ``layout``, a permutation of them."""
    if sorted(layout) != sorted(letters):
        raise IllTyped(f"layout {layout!r} is not a permutation of {letters}")
    return [layout.index(c) for c in letters]


def _pads(padding: tuple[int, ...]) -> tuple[int, int]:
    """Total (height, width) padding from 1, 2 or 4 non-negative values (top, left, bottom,
    right)."""
    if any(p < 0 for p in padding):
        raise IllTyped(f"negative padding {padding}")
    if len(padding) == 1:
        return 2 * padding[0], 2 * padding[0]
    if len(padding) == 2:
        return 2 * padding[0], 2 * padding[1]
    if len(padding) == 4:
        return padding[0] + padding[2], padding[1] + padding[3]
    raise IllTyped(f"padding needs 1, 2 or 4 values, found {len(padding)}")


def _pair(values: tuple[int, ...] | None, what: str, low: int = 1) -> tuple[int, int]:
    if values is None or len(values) != 2 or min(values) < low:
        raise IllTyped(f"{what} needs two values >= {low}, found {values}")
    return values[0], values[1]


def _conv2d(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Conv2DRel: data (N, C, H, W) and weight (O, I, KH, KW) in their layouts; C = I *
    groups, O a multiple of groups, channels = O and kernel_size = (KH, KW) when given;
    the dilated kernel fits the padded input; out (N, O, (H + pad_h - dilated KH) //
    stride_h + 1, same for W) in out_layout, dtype out_dtype or data's. With channels and
    kernel_size both given and groups == C == O > 1 (constants), TVM reads the weight as
    depthwise (C, channels / C, KH, KW) and the output has channels channels."""
    data, weight = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, Conv2DAttrs)
    if len(data.shape) != 4 or len(weight.shape) != 4:
        raise IllTyped("conv2d needs rank-4 data and weight")
    n, c, h, w = (data.shape[i] for i in _layout(a.data_layout, "NCHW"))
    o, i, kh, kw = (weight.shape[j] for j in _layout(a.kernel_layout, "OIHW"))
    out_at = _layout(a.out_layout or a.data_layout, "NCHW")
    sh, sw = _pair(a.strides, "strides")
    dh, dw = _pair(a.dilation, "dilation")
    pad_h, pad_w = _pads(a.padding)
    if a.groups < 1:
        raise IllTyped(f"groups {a.groups} < 1")
    cons: list[Cond] = [kh >= 1, kw >= 1]
    if a.kernel_size is not None:
        ks = _pair(a.kernel_size, "kernel_size")
        cons += [kh == ks[0], kw == ks[1]]
    depthwise = (
        a.channels is not None
        and a.kernel_size is not None
        and a.groups > 1
        and const_value(c) == a.groups
        and const_value(o) == a.groups
    )
    channels = o
    if depthwise:
        assert a.channels is not None
        if a.channels % a.groups:
            raise IllTyped(f"depthwise channels {a.channels} not a multiple of {a.groups}")
        cons.append(i == a.channels // a.groups)
        channels = z3.IntVal(a.channels)
    else:
        cons += [c == i * a.groups, o % a.groups == 0]
        if a.channels is not None:
            cons.append(o == a.channels)
    window_h, window_w = 1 + (kh - 1) * dh, 1 + (kw - 1) * dw
    cons += [h + pad_h >= window_h, w + pad_w >= window_w]
    oh = floordiv(h + pad_h - window_h, sh) + 1
    ow = floordiv(w + pad_w - window_w, sw) + 1
    nchw = [n, channels, oh, ow]
    out: Shape = [ONE] * 4
    for k, at in enumerate(out_at):
        out[at] = nchw[k]
    return well_typed([out], cons, [a.out_dtype or data.dtype])


def _hw(layout: str, ndim: int) -> tuple[int, int]:
    """Where H and W sit in a pooling layout: one distinct upper-case letter per input axis,
    H and W among them. (TVM only checks that the H and W positions exist.)"""
    if not layout.isalpha() or not layout.isupper() or len(set(layout)) != len(layout):
        raise IllTyped(f"invalid layout {layout!r}")
    if "H" not in layout or "W" not in layout:
        raise IllTyped(f"layout {layout!r} needs H and W")
    if len(layout) != ndim:
        raise IllTyped(f"layout {layout!r} does not fit a rank-{ndim} input")
    return layout.index("H"), layout.index("W")


def _pool2d(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Pool2DRel: the dilated window fits the padded input; H and W become (size + pad -
    window [+ stride - 1 with ceil_mode]) // stride + 1, other axes kept. (TVM's relation
    also accepted a window longer than the input, truncating a negative quotient;
    ``ops.nn`` rejects it.)"""
    data = _tensor(args, 0)
    a = attrs if isinstance(attrs, MaxPool2DAttrs | AvgPool2DAttrs) else None
    if a is None:
        raise IllTyped("expected pooling attributes")
    hi, wi = _hw(a.layout, len(data.shape))
    pool = _pair(a.pool_size, "pool_size")
    strides = _pair(a.strides, "strides")
    dilation = _pair(a.dilation, "dilation")
    pads = _pads(a.padding)
    out = list(data.shape)
    cons: list[Cond] = []
    for at, k, s, d, p in zip((hi, wi), pool, strides, dilation, pads, strict=True):
        window = (k - 1) * d + 1
        cons.append(data.shape[at] + p >= window)
        numerator = data.shape[at] + p - window + (s - 1 if a.ceil_mode else 0)
        out[at] = numerator / s + 1
    return well_typed([out], cons, [data.dtype])


def _global_pool2d(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """GlobalPool2DRel: out = data with H and W set to 1."""
    data = _tensor(args, 0)
    hi, wi = _hw(_attrs(attrs, GlobalPool2DAttrs).layout, len(data.shape))
    out = [ONE if k in (hi, wi) else d for k, d in enumerate(data.shape)]
    return well_typed([out], dtypes=[data.dtype])


def _batch_norm(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BatchNormRel: axis in [-1, ndim) (-1 is the last axis; no other negative); gamma,
    beta, moving_mean, moving_var are (C,) of data's dtype; out (data, (C,), (C,))."""
    data = _tensor(args, 0)
    a = _attrs(attrs, BatchNormAttrs)
    ndim = len(data.shape)
    if ndim == 0 or not -1 <= a.axis < ndim:
        raise IllTyped(f"axis {a.axis} must be in [-1, {ndim})")
    channels = data.shape[a.axis]
    vectors = [_tensor(args, k) for k in range(1, 5)]
    if any(len(v.shape) != 1 or v.dtype != data.dtype for v in vectors):
        raise IllTyped(f"gamma, beta, moving_mean and moving_var must be vectors of {data.dtype}")
    cons = [v.shape[0] == channels for v in vectors]
    outputs = [data.shape, [channels], [channels]]
    return well_typed(outputs, cons, [data.dtype] * 3, tuple_output=True)


def _dropout(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DropoutRel: (out, mask), both with data's shape and dtype."""
    data = _tensor(args, 0)
    return well_typed([data.shape, data.shape], dtypes=[data.dtype] * 2, tuple_output=True)


def _pad(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """PadRel: pad_mode constant, edge or reflect; one (before, after) pair per axis
    (negative crops); out = size + before + after >= 0. pad_val is not constrained."""
    data = _tensor(args, 0)
    _tensor(args, 1)
    a = _attrs(attrs, PadAttrs)
    if a.pad_mode not in ("constant", "edge", "reflect"):
        raise IllTyped(f"unknown pad_mode {a.pad_mode}")
    widths = a.pad_width
    if len(widths) != len(data.shape) or any(len(p) != 2 for p in widths):
        raise IllTyped(f"pad_width {widths} needs one pair per axis of a rank-{len(data.shape)}")
    out = [d + before + after for d, (before, after) in zip(data.shape, widths, strict=True)]
    return well_typed([out], dtypes=[data.dtype])


# ---------------------------------------------------------------------------------------------
# The table


def _checked(rule: Encoding) -> Encoding:
    """``rule`` with ``IllTyped`` turned into an ``ill_typed`` result."""

    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        try:
            return rule(args, attrs)
        except IllTyped as e:
            return ill_typed(str(e))

    encode.__doc__ = rule.__doc__
    return encode


# The elementwise dtype rules follow the documented deviation in ``ops.elementwise``: TVM's
# relations typed these ops at any dtype but could only lower float math and bool logic.
_ANY_UNARY = (
    *("negative", "abs", "floor", "ceil", "round", "nn.relu", "zeros_like", "ones_like"),
    *("clip", "nn.leaky_relu"),
)
_FLOAT_UNARY = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid")
_ARITHMETIC = (
    *("add", "subtract", "multiply", "divide", "floor_divide", "mod", "floor_mod"),
    *("maximum", "minimum"),
)
_COMPARISON = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")

_RULES: dict[str, Encoding] = {
    **{name: _identity for name in _ANY_UNARY},
    **{name: _unary("float") for name in _FLOAT_UNARY},
    "logical_not": _unary("bool"),
    **{name: _binary(None) for name in _ARITHMETIC},
    "power": _binary(None, "float"),
    "logical_and": _binary(None, "bool"),
    "logical_or": _binary(None, "bool"),
    **{name: _binary("bool") for name in _COMPARISON},
    "where": _where,
    "cast": _cast,
    "full_like": _full_like,
    **{name: _reduce for name in ("sum", "mean", "max", "min", "prod")},
    **{name: _arg_reduce for name in ("argmax", "argmin")},
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
    "zeros": _init,
    "ones": _init,
    "full": _full,
    "nn.softmax": _softmax,
    "nn.log_softmax": _softmax,
    "nn.dense": _dense,
    "nn.bias_add": _bias_add,
    "nn.batch_flatten": _batch_flatten,
    "nn.conv2d": _conv2d,
    "nn.max_pool2d": _pool2d,
    "nn.avg_pool2d": _pool2d,
    "nn.global_avg_pool2d": _global_pool2d,
    "nn.batch_norm": _batch_norm,
    "nn.dropout": _dropout,
    "nn.pad": _pad,
}

# The other operator groups' encodings, each in its own module (they import from this one).
from . import (  # noqa: E402
    z3_arith,
    z3_dynq,
    z3_indexing,
    z3_nnconv,
    z3_nnnorm,
    z3_shaping,
)

for _group in (z3_arith, z3_indexing, z3_shaping, z3_nnconv, z3_nnnorm, z3_dynq):
    _RULES.update(_group.RULES)

Z3_ENCODINGS: dict[str, Encoding] = {name: _checked(rule) for name, rule in _RULES.items()}
"""The Z3 encoding of every registered op's type relation, by op name."""


def missing_encodings() -> list[str]:
    """Registered ops without an entry in ``Z3_ENCODINGS``."""
    return sorted(set(OPS) - set(Z3_ENCODINGS))


__all__ = [
    "Z3_ENCODINGS",
    "Arg",
    "Cond",
    "Encoded",
    "Encoding",
    "IllTyped",
    "TensorArg",
    "Term",
    "TupleArg",
    "const_value",
    "floordiv",
    "ill_typed",
    "missing_encodings",
    "product",
    "well_typed",
]
