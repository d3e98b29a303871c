"""Shape and layout operators: reshape, transpose, concatenate, split, tile, squeeze, ...

::

    reshape(data, newshape=, allowzero=False)                       ReshapeAttrs      injective
    transpose(data, axes=)                                          TransposeAttrs    injective
    concatenate(data, axis=0)            data is a tuple            ConcatenateAttrs  injective
    stack(data, axis=0)                  data is a tuple            StackAttrs        injective
    split(data, indices_or_sections=, axis=0)                       SplitAttrs        injective
    expand_dims(data, axis=, num_newaxis=1)                         ExpandDimsAttrs   broadcast
    squeeze(data, axis=None)                                        SqueezeAttrs      injective
    broadcast_to(data, shape=, dtype="")                            InitOpAttrs       broadcast
    reverse(data, axis=)                                            ReverseAttrs      injective
    tile(data, reps=)                                               TileAttrs         broadcast
    repeat(data, repeats=, axis=)                                   RepeatAttrs       broadcast
    layout_transform(data, src_layout=, dst_layout=)            LayoutTransformAttrs  injective
    reshape_like(data, shape_like, lhs_begin=0, lhs_end=None, rhs_begin=0, rhs_end=None)
                                                                    ReshapeLikeAttrs  injective
    broadcast_to_like(data, broadcast_type)                         (none)            broadcast
    collapse_sum_like(data, collapse_type)                          (none)          comm_reduce
    shape_of(data, dtype="")                                        ShapeOfAttrs      opaque
    ndarray_size(data, dtype="")                                    NdarraySizeAttrs  injective
    sliding_window(data, axis=, window_shape=, strides=)        SlidingWindowAttrs    opaque
    reverse_sequence(data, seq_lengths, seq_axis=1, batch_axis=0)
                                                                ReverseSequenceAttrs  injective
    meshgrid(data, indexing="ij")        data is a tuple            MeshgridAttrs     injective

TVM's nullable ``transpose.axes`` and ``InitOpAttrs.shape`` have no default and so are
required all the same, written ``None`` when absent; ``reverse``'s and ``repeat``'s ``axis``
default to None in TVM, but TVM's relations read them as integers, so None is rejected.
Relations and patterns follow ``src/relay/op/tensor/transform.cc``, ``unary.cc``
(``shape_of``, ``ndarray_size``) and ``python/tvm/relay/op/_transform.py``
(``layout_transform``); computes follow ``include/tvm/topi/transform.h``, ``broadcast.h`` and
``reduction.h``, which index the input without checking: run-time shapes that contradict what
a relation accepted because a dimension was ``?`` or symbolic are undefined (every reference
re-checks its relation). The argument of ``concatenate``, ``stack`` and ``meshgrid`` arrives at
a reference as ``args[0]``, a tuple of arrays; ``split`` and ``meshgrid`` return a tuple.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

import numpy as np
import sympy

from ..errors import UndefinedBehavior
from ..syntax import ANY, AnyDim, Dim, TensorType, TupleType, Type, is_dtype, normalize_dim
from .create import (
    InitOpAttrs,
    _arity,
    _attrs,
    _fmt,
    _known,
    _out_shape,
    _show,
    _target_shape,
    _type_of,
)
from .reduce import _sum_rows
from .registry import (
    AttrKind,
    Attrs,
    OpInput,
    OpPattern,
    OpRegistrar,
    RelationError,
    Tensor,
    array_input,
    attr_field,
    tensor_reference,
)
from .shapes import (
    add_dims,
    broadcast_shapes,
    dims_equal,
    floordiv_dims,
    mul_dims,
    normalize_axis,
    sub_dims,
    tensor_arg,
    tuple_arg,
)


@dataclass(frozen=True, slots=True)
class ReshapeAttrs(Attrs):
    """Attributes of ``reshape``: the new shape, with TVM's special values 0, -1, -2, -3, -4."""

    type_key: ClassVar[str] = "relay.attrs.ReshapeAttrs"
    newshape: tuple[int, ...] = attr_field(
        AttrKind.INTS, doc="The new shape; should be compatible with the original shape."
    )
    allowzero: bool = attr_field(
        AttrKind.BOOL, False, doc="Whether a 0 in newshape means an empty axis (not 'copy')."
    )


@dataclass(frozen=True, slots=True)
class TransposeAttrs(Attrs):
    """Attributes of ``transpose``: the axis order (None reverses the axes)."""

    type_key: ClassVar[str] = "relay.attrs.TransposeAttrs"
    axes: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, optional=True, doc="The target axes order; None reverses the order."
    )


@dataclass(frozen=True, slots=True)
class ConcatenateAttrs(Attrs):
    """Attributes of ``concatenate``: the axis to join along."""

    type_key: ClassVar[str] = "relay.attrs.ConcatenateAttrs"
    axis: int = attr_field(AttrKind.INT, 0, doc="The axis along which to concatenate.")


@dataclass(frozen=True, slots=True)
class StackAttrs(Attrs):
    """Attributes of ``stack``: the position of the new axis."""

    type_key: ClassVar[str] = "relay.attrs.StackAttrs"
    axis: int = attr_field(AttrKind.INT, 0, doc="The axis of the result along which to stack.")


@dataclass(frozen=True, slots=True)
class SplitAttrs(Attrs):
    """Attributes of ``split``: a number of equal sections, or the split indices."""

    type_key: ClassVar[str] = "relay.attrs.SplitAttrs"
    indices_or_sections: int | tuple[int, ...] = attr_field(
        AttrKind.INT_OR_INTS,
        doc="A number of equal sections, or the sorted indices at which to split.",
    )
    axis: int = attr_field(AttrKind.INT, 0, doc="The axis to split.")


@dataclass(frozen=True, slots=True)
class ExpandDimsAttrs(Attrs):
    """Attributes of ``expand_dims``: where to insert how many unit axes."""

    type_key: ClassVar[str] = "relay.attrs.ExpandDimsAttrs"
    axis: int = attr_field(AttrKind.INT, doc="Where the new axes go, in [-ndim - 1, ndim].")
    num_newaxis: int = attr_field(AttrKind.INT, 1, doc="How many axes to insert (>= 0).")


@dataclass(frozen=True, slots=True)
class SqueezeAttrs(Attrs):
    """Attributes of ``squeeze``: the unit axes to remove (None removes them all)."""

    type_key: ClassVar[str] = "relay.attrs.SqueezeAttrs"
    axis: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc="The axes to remove; None removes every unit axis."
    )


_R = TypeVar("_R")


def _data(arg_types: tuple[Type, ...]) -> TensorType:
    _arity(arg_types, 1)
    return tensor_arg(arg_types[0], "data")


def _fields(arg_types: tuple[Type, ...]) -> tuple[TensorType, ...]:
    _arity(arg_types, 1)
    fields = tuple_arg(arg_types[0], "data")
    if not fields:
        raise RelationError("expected a non-empty tuple of tensors for data, found ()")
    return fields


def _axis(axis: int, ndim: int, shown: str) -> int:
    """``axis`` in ``[-ndim, ndim)`` as an index in ``[0, ndim)``, or a ``RelationError``
    beginning with ``shown``, the attribute as written (``axis=3``, ``axes=[0, 3]: 3``)."""
    if not -ndim <= axis < ndim:
        allowed = f"expected {-ndim} <= axis < {ndim}" if ndim else "it has no axes"
        raise RelationError(f"{shown} is out of range for a tensor of rank {ndim} ({allowed})")
    return axis + ndim if axis < 0 else axis


def _same_rank_and_dtype(fields: tuple[TensorType, ...], op: str) -> None:
    first = fields[0]
    for i, f in enumerate(fields[1:], start=1):
        if len(f.shape) != len(first.shape):
            raise RelationError(
                f"{op} requires tensors of the same rank: field 0 has rank {len(first.shape)}, "
                f"field {i} has rank {len(f.shape)}"
            )
        if f.dtype != first.dtype:
            raise RelationError(
                f"{op} requires tensors of the same dtype: field 0 is {first.dtype}, "
                f"field {i} is {f.dtype}"
            )


def _tuple_value(args: tuple[OpInput, ...]) -> tuple[Tensor, ...]:
    """The fields of a tuple argument: ``args[0]`` as a tuple (or the arguments, flattened)."""
    first = args[0] if len(args) == 1 else None
    if isinstance(first, tuple):
        return first
    return tuple(array_input(a) for a in args)


def _run_time(name: str, check: Callable[[], _R]) -> _R:
    """Run a relation on run-time shapes; a failure is undefined (the static type allowed it)."""
    try:
        return check()
    except RelationError as e:
        raise UndefinedBehavior(
            f"{name}: at run time, {e} (the static type left this unchecked)"
        ) from None


def _reshape_shape(ishape: Sequence[Dim], newshape: Sequence[int], allowzero: bool) -> list[Dim]:
    """TVM's ``InferNewShape`` (``src/relay/op/tensor/transform.cc``), without the size check."""
    attr = f"newshape={_show(newshape)}"
    oshape: list[Dim] = []
    used_in: set[int] = set()
    used_out: set[int] = set()
    src = 0
    infer = -1
    i = 0
    while i < len(newshape):
        v = newshape[i]
        if v > 0 or (v == 0 and allowzero):
            oshape.append(v)
            src += 1
        elif v == 0:
            if src >= len(ishape):
                raise RelationError(
                    f"{attr}: the 0 at position {i} copies input dimension {src}, "
                    f"but the input has rank {len(ishape)}"
                )
            used_in.add(src)
            used_out.add(len(oshape))
            oshape.append(ishape[src])
            src += 1
        elif v == -1:
            if infer >= 0:
                raise RelationError(f"{attr}: expected at most one -1, found two")
            # TVM records the position in newshape, and later writes the inferred size at that
            # position of the output (which differs after a -2, -3 or -4).
            infer = i
            oshape.append(1)
            src += 1
        elif v == -2:
            while src < len(ishape):
                used_in.add(src)
                used_out.add(len(oshape))
                oshape.append(ishape[src])
                src += 1
        elif v == -3:
            if src + 1 >= len(ishape):
                raise RelationError(
                    f"{attr}: the -3 at position {i} merges input dimensions {src} and "
                    f"{src + 1}, but the input has rank {len(ishape)}"
                )
            used_in.update((src, src + 1))
            used_out.add(len(oshape))
            oshape.append(mul_dims(ishape[src], ishape[src + 1]))
            src += 2
        elif v == -4:
            if i + 2 >= len(newshape):
                raise RelationError(
                    f"{attr}: expected two sizes after the -4 at position {i}, "
                    f"found {len(newshape) - i - 1}"
                )
            if src >= len(ishape):
                raise RelationError(
                    f"{attr}: the -4 at position {i} splits input dimension {src}, "
                    f"but the input has rank {len(ishape)}"
                )
            d0 = ishape[src]
            used_in.add(src)
            src += 1
            d1, d2 = newshape[i + 1], newshape[i + 2]
            i += 2
            if d1 < -1 or d2 < -1:
                raise RelationError(
                    f"{attr}: expected the sizes after -4 to be positive, 0 or -1, "
                    f"found {d1} and {d2}"
                )
            if d1 == -1 and d2 == -1:
                raise RelationError(
                    f"{attr}: expected at most one -1 among the sizes after -4, found two"
                )
            if (d1 == -1 and d2 == 0) or (d2 == -1 and d1 == 0):
                raise RelationError(
                    f"{attr}: cannot infer a size after -4 from {d1} and {d2}: division by zero"
                )
            used_out.update((len(oshape), len(oshape) + 1))
            if d1 == -1:
                oshape += [floordiv_dims(d0, d2), d2]
            elif d2 == -1:
                oshape += [d1, floordiv_dims(d0, d1)]
            else:
                oshape += [d1, d2]
        else:
            raise RelationError(
                f"{attr}: entry {v} at position {i} is neither a size nor one of the special "
                "values 0, -1, -2, -3, -4"
            )
        i += 1
    if infer >= 0:
        inferred: Dim = 1
        for k, d in enumerate(ishape):
            if k not in used_in:
                inferred = mul_dims(inferred, d)
        if not isinstance(inferred, AnyDim):
            for k, d in enumerate(oshape):
                if k in used_out:
                    continue
                if isinstance(d, AnyDim):
                    inferred = ANY
                    break
                if d == 0:
                    raise RelationError(
                        f"{attr}: cannot infer the -1: it would divide by the 0-sized dimension"
                    )
                inferred = floordiv_dims(inferred, d)
        if infer >= len(oshape):
            raise RelationError(
                f"{attr}: the -1 at position {infer} has no counterpart in the output shape "
                f"{_fmt(oshape)} (TVM places the inferred size by its position in newshape)"
            )
        oshape[infer] = inferred
    return oshape


def _reshape_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Reshape``: TVM's ``InferNewShape``: in ``newshape`` 0 copies, -1 infers, -2 copies the
    rest, -3 merges two, -4 splits one in two; the element counts must agree when every dimension
    is a known integer (TVM skips the check otherwise).

    TVM quirk kept: the inferred -1 is stored at its position in ``newshape``, not in the output,
    so ``newshape=(-2, -1)`` fails and ``(-4, 1, 2, -1)`` is out of range. Departures from TVM: the
    two sizes after -4 must each be positive, 0 or -1 (TVM copies any other negative value into
    the shape); inferring -1 next to a 0-sized output dimension (``allowzero``) is rejected (TVM
    divides by zero)."""
    a = _attrs(attrs, ReshapeAttrs)
    data = _data(arg_types)
    oshape = _reshape_shape(data.shape, a.newshape, a.allowzero)
    known_in, known_out = _known(data.shape), _known(oshape)
    if known_in is not None and known_out is not None:
        n, m = math.prod(known_in), math.prod(known_out)
        if n != m:
            raise RelationError(
                f"cannot reshape {_fmt(data.shape)} ({n} elements) to {_fmt(oshape)} "
                f"({m} elements) given by newshape={_show(a.newshape)}"
            )
    return TensorType(tuple(oshape), data.dtype)


def _reshape_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``reshape``: the elements in row-major order, in the new shape.

    Undefined: run-time element counts that differ."""
    (data,) = args
    shape = _out_shape(_run_time("reshape", lambda: _reshape_relation((_type_of(data),), attrs)))
    return np.reshape(data, shape).copy()


def _transpose_axes(ndim: int, axes: tuple[int, ...] | None) -> tuple[int, ...]:
    if axes is None:
        return tuple(reversed(range(ndim)))
    if len(axes) != ndim:
        raise RelationError(
            f"axes={_show(axes)}: expected {ndim} axes (one per dimension of data), "
            f"found {len(axes)}"
        )
    out: list[int] = []
    for axis in axes:
        a = _axis(axis, ndim, f"axes={_show(axes)}: {axis}")
        if a in out:
            raise RelationError(
                f"axes={_show(axes)}: expected a permutation of the axes, found {a} twice"
            )
        out.append(a)
    return tuple(out)


def _transpose_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Transpose``: ``axes`` None reverses the axes; otherwise a permutation of them (negative
    allowed)."""
    a = _attrs(attrs, TransposeAttrs)
    data = _data(arg_types)
    perm = _transpose_axes(len(data.shape), a.axes)
    return TensorType(tuple(data.shape[p] for p in perm), data.dtype)


def _transpose_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``transpose``: numpy's ``transpose`` by the normalised axes."""
    (data,) = args
    a = _attrs(attrs, TransposeAttrs)
    return np.transpose(data, _transpose_axes(data.ndim, a.axes)).copy()


def _concatenate_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Concatenate``: a tuple of tensors of equal rank and dtype; the axis extents add (``?`` if
    any is ``?``); the other extents agree where known, and are ``?`` only if unknown everywhere
    or the axis is known."""
    a = _attrs(attrs, ConcatenateAttrs)
    fields = _fields(arg_types)
    first = fields[0]
    ndim = len(first.shape)
    axis = _axis(a.axis, ndim, f"axis={a.axis}")
    _same_rank_and_dtype(fields, "concatenate")
    joined: Dim = first.shape[axis]
    for f in fields[1:]:
        joined = add_dims(joined, f.shape[axis])
    oshape: list[Dim] = []
    for i in range(ndim):
        if i == axis:
            oshape.append(joined)
            continue
        known = [
            (k, f.shape[i]) for k, f in enumerate(fields) if not isinstance(f.shape[i], AnyDim)
        ]
        for k, d in known[1:]:
            if dims_equal(known[0][1], d) is False:
                raise RelationError(
                    f"concatenate requires equal dimensions off the axis: dimension {i} is "
                    f"{known[0][1]} in field {known[0][0]} and {d} in field {k}"
                )
        # As TVM: a known extent wins over ? when every field knows it or the axis is unknown.
        if known and (len(known) == len(fields) or isinstance(joined, AnyDim)):
            oshape.append(known[0][1])
        else:
            oshape.append(ANY)
    return TensorType(tuple(oshape), first.dtype)


def _concatenate_reference(args: tuple[OpInput, ...], attrs: Attrs | None) -> Tensor:
    """``concatenate``: the fields one after another along the axis.

    Undefined: unequal non-axis extents at run time."""
    fields = _tuple_value(args)
    a = _attrs(attrs, ConcatenateAttrs)
    _run_time(
        "concatenate",
        lambda: _concatenate_relation((TupleType(tuple(map(_type_of, fields))),), attrs),
    )
    return np.concatenate(fields, axis=a.axis)


def _stack_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Stack``: a tuple of tensors of equal rank and dtype; ``axis`` in ``[-(ndim + 1), ndim]``; a
    new axis of extent n (the number of fields) there."""
    a = _attrs(attrs, StackAttrs)
    fields = _fields(arg_types)
    first = fields[0]
    ndim = len(first.shape)
    if not -(ndim + 1) <= a.axis <= ndim:
        raise RelationError(
            f"axis={a.axis} is out of range for stacking tensors of rank {ndim} "
            f"(expected {-(ndim + 1)} <= axis <= {ndim})"
        )
    axis = a.axis + ndim + 1 if a.axis < 0 else a.axis
    _same_rank_and_dtype(fields, "stack")
    for k, f in enumerate(fields[1:], start=1):
        for j in range(ndim):
            # TVM's StackRel skips input axis `axis` (the new axis's position in the output).
            if j == axis:
                continue
            if dims_equal(first.shape[j], f.shape[j]) is False:
                raise RelationError(
                    f"stack requires tensors of the same shape: dimension {j} is "
                    f"{first.shape[j]} in field 0 and {f.shape[j]} in field {k}"
                )
    oshape = (*first.shape[:axis], len(fields), *first.shape[axis:])
    return TensorType(oshape, first.dtype)


def _stack_reference(args: tuple[OpInput, ...], attrs: Attrs | None) -> Tensor:
    """``stack``: the fields along a new axis.

    Undefined: unequal extents at run time, including on the input axis numbered ``axis``: TVM's
    StackRel skips that axis when comparing shapes (it confuses input and output axes), so the
    relation accepts it, and ``topi::stack`` then reads out of bounds or a part of a tensor."""
    fields = _tuple_value(args)
    a = _attrs(attrs, StackAttrs)
    _run_time("stack", lambda: _stack_relation((TupleType(tuple(map(_type_of, fields))),), attrs))
    for k, f in enumerate(fields):
        if f.shape != fields[0].shape:
            raise UndefinedBehavior(
                f"stack of tensors of shapes {_fmt(fields[0].shape)} and {_fmt(f.shape)} "
                f"(field {k}): TVM's Stack relation does not compare input axis {a.axis}, and "
                "topi::stack reads out of bounds"
            )
    return np.stack(fields, axis=a.axis)


def _split_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Split``: a tuple: an integer ``indices_or_sections`` gives that many equal sections (which
    must divide the extent), a list the pieces between its strictly increasing indices, which must
    start above 0 and end below the extent (a TVM quirk kept)."""
    a = _attrs(attrs, SplitAttrs)
    data = _data(arg_types)
    ndim = len(data.shape)
    if ndim == 0:
        raise RelationError("expected a tensor of rank at least 1 to split, found rank 0")
    axis = _axis(a.axis, ndim, f"axis={a.axis}")
    extent = data.shape[axis]
    shapes: list[Dim] = []
    if isinstance(a.indices_or_sections, int):
        sections = a.indices_or_sections
        if sections < 1:
            raise RelationError(
                f"expected a positive number of sections, found indices_or_sections={sections}"
            )
        if not isinstance(extent, AnyDim):
            rest = normalize_dim(sympy.Mod(extent, sections))
            if isinstance(rest, int) and rest != 0:
                raise RelationError(
                    f"indices_or_sections={sections} does not divide the extent {extent} of "
                    f"dimension {axis} into equal sections"
                )
        piece = ANY if isinstance(extent, AnyDim) else floordiv_dims(extent, sections)
        shapes = [piece] * sections
    else:
        begin = 0
        for index in a.indices_or_sections:
            if index <= begin:
                raise RelationError(
                    "expected split indices that increase strictly from above 0, found "
                    f"indices_or_sections={_show(a.indices_or_sections)}"
                )
            shapes.append(index - begin)
            begin = index
        last = sub_dims(extent, begin)
        if isinstance(last, int) and last <= 0:
            raise RelationError(
                f"expected split indices below the extent {extent} of dimension {axis}, "
                f"found indices_or_sections={_show(a.indices_or_sections)}"
            )
        shapes.append(last)
    return TupleType(
        tuple(
            TensorType((*data.shape[:axis], s, *data.shape[axis + 1 :]), data.dtype) for s in shapes
        )
    )


def _split_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[Tensor, ...]:
    """``split``: the pieces along the axis, as a tuple.

    Undefined: at run time, sections that do not divide the extent or indices beyond it."""
    (data,) = args
    a = _attrs(attrs, SplitAttrs)
    _run_time("split", lambda: _split_relation((_type_of(data),), attrs))
    sections = a.indices_or_sections
    pieces = np.split(data, sections if isinstance(sections, int) else list(sections), a.axis)
    return tuple(p.copy() for p in pieces)


def _expand_dims_pivot(ndim: int, a: ExpandDimsAttrs) -> int:
    if a.num_newaxis < 0:
        raise RelationError(f"expected num_newaxis >= 0, found num_newaxis={a.num_newaxis}")
    if not -ndim - 1 <= a.axis <= ndim:
        raise RelationError(
            f"axis={a.axis} is out of range for expand_dims of a tensor of rank {ndim} "
            f"(expected {-ndim - 1} <= axis <= {ndim})"
        )
    return a.axis + ndim + 1 if a.axis < 0 else a.axis


def _expand_dims_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``ExpandDims``: ``axis`` in ``[-ndim - 1, ndim]``, ``num_newaxis >= 0``; that many axes of
    extent 1 inserted at ``axis``."""
    a = _attrs(attrs, ExpandDimsAttrs)
    data = _data(arg_types)
    pivot = _expand_dims_pivot(len(data.shape), a)
    oshape = (*data.shape[:pivot], *([1] * a.num_newaxis), *data.shape[pivot:])
    return TensorType(oshape, data.dtype)


def _expand_dims_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``expand_dims``: data with the new axes of extent 1."""
    (data,) = args
    a = _attrs(attrs, ExpandDimsAttrs)
    pivot = _expand_dims_pivot(data.ndim, a)
    return np.expand_dims(data, tuple(range(pivot, pivot + a.num_newaxis))).copy()


def _squeeze_axes(shape: Sequence[Dim], axis: tuple[int, ...] | None) -> set[int]:
    """The axes ``squeeze`` removes."""
    if axis is None:
        if _known(shape) is None:
            raise RelationError(
                f"squeeze with axis=None needs every dimension known, found {_fmt(shape)}"
            )
        return {i for i, d in enumerate(shape) if d == 1}
    removed = {_axis(x, len(shape), f"axis={_show(axis)}: {x}") for x in axis}
    for i in sorted(removed):
        d = shape[i]
        if isinstance(d, int) and d != 1:
            raise RelationError(
                f"axis={_show(axis)}: expected dimension {i} to squeeze to have extent 1, found {d}"
            )
    return removed


def _squeeze_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Squeeze``: ``axis`` None drops every extent-1 axis (all extents must be known); else the
    listed axes, whose known extents must be 1."""
    a = _attrs(attrs, SqueezeAttrs)
    data = _data(arg_types)
    removed = _squeeze_axes(data.shape, a.axis)
    return TensorType(tuple(d for i, d in enumerate(data.shape) if i not in removed), data.dtype)


def _squeeze_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``squeeze``: data without the dropped axes.

    Undefined: squeezing an extent other than 1 at run time."""
    (data,) = args
    a = _attrs(attrs, SqueezeAttrs)
    removed = _run_time("squeeze", lambda: _squeeze_axes(data.shape, a.axis))
    return np.squeeze(data, axis=tuple(sorted(removed))).copy()


def _broadcast_to_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``BroadCastTo``: data must broadcast to the ``shape`` attribute, which is the result's; the
    ``dtype`` attribute is ignored.

    Departure from TVM: a shape is required (TVM dereferences the empty Optional), with no
    negative entries."""
    a = _attrs(attrs, InitOpAttrs)
    data = _data(arg_types)
    target = _target_shape(a.shape)
    try:
        merged = broadcast_shapes(data.shape, target)
    except RelationError as e:
        raise RelationError(
            f"cannot broadcast {_fmt(data.shape)} to shape={_show(target)}: {e}"
        ) from None
    if len(merged) != len(target) or any(
        dims_equal(m, t) is False for m, t in zip(merged, target, strict=True)
    ):
        raise RelationError(f"cannot broadcast {_fmt(data.shape)} to shape={_show(target)}")
    return TensorType(target, data.dtype)


def _broadcast_to_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``broadcast_to``: numpy broadcasting to the shape.

    Undefined: a run-time shape that does not broadcast."""
    (data,) = args
    t = _run_time("broadcast_to", lambda: _broadcast_to_relation((_type_of(data),), attrs))
    return np.broadcast_to(data, _out_shape(t)).copy()


_op = OpRegistrar(__name__, inputs=("data",), pattern=OpPattern.INJECTIVE)


_op(
    "reshape",
    "The same elements in row-major order, in the shape newshape.",
    relation=_reshape_relation,
    reference=tensor_reference(_reshape_reference),
    check="onnxruntime:Reshape",
    relation_name="Reshape",
    attrs_type=ReshapeAttrs,
)


_op(
    "transpose",
    "Permute the axes of data.",
    relation=_transpose_relation,
    reference=tensor_reference(_transpose_reference),
    check="onnxruntime:Transpose",
    relation_name="Transpose",
    attrs_type=TransposeAttrs,
)


_op(
    "concatenate",
    "Join the tensors of the tuple data along an existing axis.",
    relation=_concatenate_relation,
    reference=_concatenate_reference,
    check="onnxruntime:Concat",
    relation_name="Concatenate",
    attrs_type=ConcatenateAttrs,
)


_op(
    "stack",
    "Join the tensors of the tuple data along a new axis.",
    relation=_stack_relation,
    reference=_stack_reference,
    check="independent:element loop out[..k..] = data[k][...]",
    relation_name="Stack",
    attrs_type=StackAttrs,
)


_op(
    "split",
    "Split data along an axis into a tuple of tensors.",
    relation=_split_relation,
    reference=tensor_reference(_split_reference),
    check="onnxruntime:Split",
    relation_name="Split",
    attrs_type=SplitAttrs,
)


_op(
    "expand_dims",
    "Insert num_newaxis axes of extent one at axis.",
    relation=_expand_dims_relation,
    reference=tensor_reference(_expand_dims_reference),
    check="onnxruntime:Unsqueeze",
    relation_name="ExpandDims",
    attrs_type=ExpandDimsAttrs,
    pattern=OpPattern.BROADCAST,
)


_op(
    "squeeze",
    "Remove axes of extent one.",
    relation=_squeeze_relation,
    reference=tensor_reference(_squeeze_reference),
    check="onnxruntime:Squeeze",
    relation_name="Squeeze",
    attrs_type=SqueezeAttrs,
)


_op(
    "broadcast_to",
    "Broadcast data to the shape given by the shape attribute.",
    relation=_broadcast_to_relation,
    reference=tensor_reference(_broadcast_to_reference),
    check="onnxruntime:Expand",
    relation_name="BroadCastTo",
    attrs_type=InitOpAttrs,
    pattern=OpPattern.BROADCAST,
)


@dataclass(frozen=True, slots=True)
class ReverseAttrs(Attrs):
    """Attributes of ``reverse``: the axis to reverse."""

    type_key: ClassVar[str] = "relay.attrs.ReverseAttrs"
    axis: int | None = attr_field(
        AttrKind.INT, None, optional=True, doc="The axis along which to reverse elements."
    )


@dataclass(frozen=True, slots=True)
class TileAttrs(Attrs):
    """Attributes of ``tile``: how many times to repeat the whole tensor along each axis."""

    type_key: ClassVar[str] = "relay.attrs.TileAttrs"
    reps: tuple[int, ...] = attr_field(
        AttrKind.INTS, doc="The number of repetitions per axis (aligned right), each positive."
    )


@dataclass(frozen=True, slots=True)
class RepeatAttrs(Attrs):
    """Attributes of ``repeat``: how many times to repeat each element, along which axis."""

    type_key: ClassVar[str] = "relay.attrs.RepeatAttrs"
    repeats: int = attr_field(AttrKind.INT, doc="The number of repetitions for each element.")
    axis: int | None = attr_field(
        AttrKind.INT, None, optional=True, doc="The axis along which to repeat values."
    )


@dataclass(frozen=True, slots=True)
class LayoutTransformAttrs(Attrs):
    """Attributes of ``layout_transform``: the source and destination layouts."""

    type_key: ClassVar[str] = "relay.attrs.LayoutTransformAttrs"
    src_layout: str = attr_field(AttrKind.STR, doc="The source layout of the tensor (NCHW).")
    dst_layout: str = attr_field(
        AttrKind.STR, doc="The destination layout of the tensor (NCHW16c)."
    )


@dataclass(frozen=True, slots=True)
class ReshapeLikeAttrs(Attrs):
    """Attributes of ``reshape_like``: which axes of data are replaced by which of shape_like."""

    type_key: ClassVar[str] = "relay.attrs.ReshapeLikeAttrs"
    lhs_begin: int = attr_field(AttrKind.INT, 0, doc="The first axis of data to reshape.")
    lhs_end: int | None = attr_field(
        AttrKind.INT, None, optional=True, doc="The axis of data where reshaping ends (None: all)."
    )
    rhs_begin: int = attr_field(
        AttrKind.INT, 0, doc="The first axis of shape_like to take extents from."
    )
    rhs_end: int | None = attr_field(
        AttrKind.INT, None, optional=True, doc="The axis of shape_like to stop at (None: all)."
    )


@dataclass(frozen=True, slots=True)
class ShapeOfAttrs(Attrs):
    """Attributes of ``shape_of``: the dtype of the shape vector."""

    type_key: ClassVar[str] = "relay.attrs.ShapeOfAttrs"
    dtype: str = attr_field(AttrKind.DTYPE, "", doc="Target data type (required in practice).")


@dataclass(frozen=True, slots=True)
class NdarraySizeAttrs(Attrs):
    """Attributes of ``ndarray_size``: the dtype of the element count."""

    type_key: ClassVar[str] = "relay.attrs.NdarraySizeAttrs"
    dtype: str = attr_field(AttrKind.DTYPE, "", doc="Target data type (required in practice).")


@dataclass(frozen=True, slots=True)
class SlidingWindowAttrs(Attrs):
    """Attributes of ``sliding_window``: the first windowed axis, the window and its strides."""

    type_key: ClassVar[str] = "relay.attrs.SlidingWindowAttrs"
    axis: int = attr_field(AttrKind.INT, doc="The first axis the window slides over.")
    window_shape: tuple[int, ...] = attr_field(
        AttrKind.INTS, doc="The window's extent on each axis from axis on."
    )
    strides: tuple[int, ...] = attr_field(
        AttrKind.INTS, doc="The window's stride on each axis from axis on."
    )


@dataclass(frozen=True, slots=True)
class ReverseSequenceAttrs(Attrs):
    """Attributes of ``reverse_sequence``: the sequence axis and the batch axis."""

    type_key: ClassVar[str] = "relay.attrs.ReverseSequenceAttrs"
    seq_axis: int = attr_field(AttrKind.INT, 1, doc="The axis along which to reverse.")
    batch_axis: int = attr_field(
        AttrKind.INT, 0, doc="The axis indexing seq_lengths (one length per slice)."
    )


def _two(arg_types: tuple[Type, ...], first: str, second: str) -> tuple[TensorType, TensorType]:
    _arity(arg_types, 2)
    return tensor_arg(arg_types[0], first), tensor_arg(arg_types[1], second)


def _provably_greater(a: Dim, b: Dim) -> bool:
    """Whether ``a > b`` is provable (both known, or their difference a positive constant)."""
    if isinstance(a, AnyDim) or isinstance(b, AnyDim):
        return False
    diff = sub_dims(a, b)
    return isinstance(diff, int) and diff > 0


def _int(d: Dim) -> int:
    """A dimension of a run-time shape: an integer."""
    assert isinstance(d, int), d
    return d


def _reverse_axis(ndim: int, axis: int | None) -> int:
    if axis is None:
        raise RelationError("expected an axis to reverse, found axis=None")
    return normalize_axis(axis, ndim)


def _reverse_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Reverse``: ``axis`` in ``[-ndim, ndim)``; the result is data's type.

    Departure from TVM: ``axis=None`` is rejected (TVM dereferences the null integer)."""
    a = _attrs(attrs, ReverseAttrs)
    data = _data(arg_types)
    _reverse_axis(len(data.shape), a.axis)
    return data


def _reverse_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``reverse``: ``out[.., i, ..] = data[.., n - 1 - i, ..]`` on the axis."""
    (data,) = args
    a = _attrs(attrs, ReverseAttrs)
    return np.flip(data, _reverse_axis(data.ndim, a.axis)).copy()


def _tile_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Tile``: every rep > 0; data and reps are padded with leading 1s to the same rank; each
    extent is data's times the rep, ``?`` where data's extent is not a known integer (a TVM quirk
    kept: even where the rep is 1)."""
    a = _attrs(attrs, TileAttrs)
    data = _data(arg_types)
    for r in a.reps:
        if r <= 0:
            raise RelationError(f"expected every rep to be positive, found reps={_fmt(a.reps)}")
    rank = max(len(data.shape), len(a.reps))
    shape = (1,) * (rank - len(data.shape)) + tuple(data.shape)
    reps = (1,) * (rank - len(a.reps)) + tuple(a.reps)
    # As TileRel: an extent that is not a known integer becomes ?, whatever its rep.
    oshape = tuple(d * r if isinstance(d, int) else ANY for d, r in zip(shape, reps, strict=True))
    return TensorType(oshape, data.dtype)


def _tile_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``tile``: numpy's ``tile``."""
    (data,) = args
    a = _attrs(attrs, TileAttrs)
    _tile_relation((_type_of(data),), attrs)
    return np.tile(data, a.reps) if a.reps else data.copy()


def _repeat_axis(ndim: int, a: RepeatAttrs) -> int:
    if a.repeats < 1:
        raise RelationError(f"expected repeats >= 1, found repeats={a.repeats}")
    if a.axis is None:
        raise RelationError("expected an axis to repeat along, found axis=None")
    return normalize_axis(a.axis, ndim)


def _repeat_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Repeat``: ``repeats >= 1``, ``axis`` in ``[-ndim, ndim)``; that extent times ``repeats``.

    Departure from TVM: ``axis=None`` is rejected, and the axis must lie in ``[-ndim, ndim)``
    (TVM's check admits ``-ndim - 1`` and ``ndim``, then reads past the shape)."""
    a = _attrs(attrs, RepeatAttrs)
    data = _data(arg_types)
    axis = _repeat_axis(len(data.shape), a)
    oshape = list(data.shape)
    oshape[axis] = mul_dims(data.shape[axis], a.repeats)
    return TensorType(tuple(oshape), data.dtype)


def _repeat_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``repeat``: numpy's ``repeat`` along the axis."""
    (data,) = args
    a = _attrs(attrs, RepeatAttrs)
    return np.repeat(data, a.repeats, axis=_repeat_axis(data.ndim, a))


def _parse_layout(layout: str, what: str) -> list[tuple[str, int]]:
    """A layout as (axis letter, factor) pairs: factor 0 for a primal (upper-case) axis, the
    factor written before a sub-axis (lower-case). Follows ``tir::Layout``'s parser."""
    if not layout:
        raise RelationError(f'expected a layout for {what}, found ""')
    axes: list[tuple[str, int]] = []
    factor = ""
    for c in layout:
        if c.isdigit():
            factor += c
        elif c.isascii() and c.isupper():
            if factor:
                raise RelationError(
                    f'{what} "{layout}" has a factor {factor} before the primal axis {c}'
                )
            axes.append((c, 0))
        elif c.isascii() and c.islower():
            if not factor or int(factor) <= 0:
                raise RelationError(
                    f'{what} "{layout}" needs a positive factor before the sub-axis {c}'
                )
            axes.append((c, int(factor)))
            factor = ""
        else:
            raise RelationError(f'{what} "{layout}" has an invalid character {c!r}')
    if factor:
        raise RelationError(f'{what} "{layout}" ends with a factor {factor} and no axis')
    letters = [c for c, _ in axes]
    for c in letters:
        if letters.count(c) > 1:
            raise RelationError(f'{what} "{layout}" repeats the axis {c}')
        if c.islower() and c.upper() not in letters:
            raise RelationError(
                f'{what} "{layout}" has the sub-axis {c} without its primal axis {c.upper()}'
            )
    return axes


def _layouts(a: LayoutTransformAttrs) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    src = _parse_layout(a.src_layout, "src_layout")
    dst = _parse_layout(a.dst_layout, "dst_layout")
    src_primal = sorted(c for c, f in src if f == 0)
    dst_primal = sorted(c for c, f in dst if f == 0)
    if src_primal != dst_primal:
        raise RelationError(
            f'cannot convert from "{a.src_layout}" to "{a.dst_layout}": they name different '
            "primal axes"
        )
    return src, dst


def _primal_extents(
    shape: Sequence[Dim], src: list[tuple[str, int]], src_layout: str
) -> dict[str, Dim]:
    """The extent of each primal axis of the logical tensor, from data's shape in src."""
    if len(shape) != len(src):
        raise RelationError(
            f'src_layout "{src_layout}" has {len(src)} axes but data has rank {len(shape)} '
            f"{_fmt(shape)}"
        )
    full: dict[str, Dim] = {c: d for (c, f), d in zip(src, shape, strict=True) if f == 0}
    for (c, f), d in zip(src, shape, strict=True):
        if f:
            if dims_equal(d, f) is False:
                raise RelationError(
                    f'src_layout "{src_layout}": the sub-axis {f}{c} has extent {d}, expected {f}'
                )
            full[c.upper()] = mul_dims(full[c.upper()], f)
    return full


def _layout_transform_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``layout_transform``: layouts of upper-case primal axes and sub-axes
    ``"<factor><lower-case>"``; both name the same primal axes; data's rank is ``src_layout``'s;
    a src sub-axis has its factor as extent; a dst sub-axis of factor f splits its primal extent
    (which f must divide) into ``(extent / f, f)``.

    Departures from TVM: an empty layout is rejected; data's rank must equal ``src_layout``'s; a
    src sub-axis's extent must equal its factor and a dst factor must divide its primal extent
    (TVM's shape rule ignores the first and floors the second)."""
    a = _attrs(attrs, LayoutTransformAttrs)
    data = _data(arg_types)
    src, dst = _layouts(a)
    full = _primal_extents(data.shape, src, a.src_layout)
    factors = {c.upper(): f for c, f in dst if f}
    oshape: list[Dim] = []
    for c, f in dst:
        if f:
            oshape.append(f)
            continue
        extent = full[c]
        split = factors.get(c)
        if split is None:
            oshape.append(extent)
            continue
        if not isinstance(extent, AnyDim):
            rest = normalize_dim(sympy.Mod(extent, split))
            if isinstance(rest, int) and rest != 0:
                raise RelationError(
                    f'dst_layout "{a.dst_layout}": the factor {split} does not divide the extent '
                    f"{extent} of axis {c}"
                )
        oshape.append(floordiv_dims(extent, split))
    return TensorType(tuple(oshape), data.dtype)


def _layout_transform_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``layout_transform``: the same logical tensor in another layout: the primal tensor has extent
    ``P * f`` on a primal axis ``P`` with sub-axis ``f p`` (element ``P * f + p``), and the result
    indexes that tensor through ``dst_layout`` the same way. ``NCHW -> NCHW4c`` is
    ``out[n, C, h, w, c] = data[n, 4 C + c, h, w]``.

    Undefined: a non-dividing split at run time."""
    (data,) = args
    a = _attrs(attrs, LayoutTransformAttrs)
    out = _out_shape(
        _run_time("layout_transform", lambda: _layout_transform_relation((_type_of(data),), attrs))
    )
    src, dst = _layouts(a)
    full = _primal_extents(data.shape, src, a.src_layout)
    # Merge each src sub-axis into its primal axis: the logical tensor, in src's primal order.
    src_names = [c for c, _ in src]
    primal = [c for c in src_names if c.isupper()]
    perm: list[int] = []
    for c in primal:
        perm.append(src_names.index(c))
        if c.lower() in src_names:
            perm.append(src_names.index(c.lower()))
    logical = data.transpose(perm).reshape(tuple(_int(full[c]) for c in primal))
    # Reorder to dst's primal order, split each primal axis with a dst sub-axis, and place.
    dst_names = [c for c, _ in dst]
    dst_primal = [c for c in dst_names if c.isupper()]
    x = logical.transpose([primal.index(c) for c in dst_primal])
    factors = {c.upper(): f for c, f in dst if f}
    names: list[str] = []
    shape: list[int] = []
    for c in dst_primal:
        extent = _int(full[c])
        if c in factors:
            names += [c, c.lower()]
            shape += [extent // factors[c], factors[c]]
        else:
            names.append(c)
            shape.append(extent)
    result = x.reshape(shape).transpose([names.index(c) for c in dst_names])
    assert result.shape == out
    return result.copy()


def _bounds(begin: int, end: int | None, rank: int, what: str) -> tuple[int, int]:
    """``[begin, end)`` over a shape of ``rank`` (None: the rank; negative: from the end)."""
    b = begin + rank if begin < 0 else begin
    e = rank if end is None else end + rank if end < 0 else end
    if not 0 <= b <= e <= rank:
        raise RelationError(
            f"expected 0 <= {what}_begin <= {what}_end <= {rank} (negative counted from the "
            f"end), found {what}_begin={begin}, {what}_end={end}"
        )
    return b, e


def _reshape_like_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``ReshapeLike``: ``data.shape[:lhs_begin] + shape_like.shape[rhs_begin:rhs_end] +
    data.shape[lhs_end:]`` (negative bounds count from the end); element counts equal when every
    extent of data and result is a known integer.

    Departure from TVM: the bounds, after adding the rank to negative ones, must satisfy
    ``0 <= begin <= end <= rank`` (TVM indexes outside the shape otherwise)."""
    a = _attrs(attrs, ReshapeLikeAttrs)
    data, like = _two(arg_types, "data", "shape_like")
    lb, le = _bounds(a.lhs_begin, a.lhs_end, len(data.shape), "lhs")
    rb, re = _bounds(a.rhs_begin, a.rhs_end, len(like.shape), "rhs")
    oshape = (*data.shape[:lb], *like.shape[rb:re], *data.shape[le:])
    known_in, known_out = _known(data.shape), _known(oshape)
    if known_in is not None and known_out is not None:
        n, m = math.prod(known_in), math.prod(known_out)
        if n != m:
            raise RelationError(
                f"cannot reshape {_fmt(data.shape)} ({n} elements) to {_fmt(oshape)} ({m} elements)"
            )
    return TensorType(oshape, data.dtype)


def _reshape_like_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``reshape_like``: ``reshape`` to the relation's shape.

    Undefined: run-time element counts that differ."""
    data, like = args
    t = _run_time(
        "reshape_like",
        lambda: _reshape_like_relation((_type_of(data), _type_of(like)), attrs),
    )
    return np.reshape(data, _out_shape(t)).copy()


def _same_dtype_as(x: TensorType, y: TensorType, second: str) -> None:
    if x.dtype != y.dtype:
        raise RelationError(
            f"expected data and {second} of the same dtype, found {x.dtype} and {y.dtype}"
        )


def _broadcasts_to(source: Sequence[Dim], target: Sequence[Dim]) -> bool:
    """Whether ``source`` may broadcast to exactly ``target`` (False when provably not)."""
    try:
        merged = broadcast_shapes(source, target)
    except RelationError:
        return False
    return len(merged) == len(target) and all(
        dims_equal(m, t) is not False for m, t in zip(merged, target, strict=True)
    )


def _broadcast_to_like_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``BroadCastToLike``: same dtypes (TVM's ``BroadcastRel``, a quirk kept); data broadcasts to
    ``broadcast_type``'s shape; the result has its type."""
    data, like = _two(arg_types, "data", "broadcast_type")
    _same_dtype_as(data, like, "broadcast_type")
    if not _broadcasts_to(data.shape, like.shape):
        raise RelationError(f"cannot broadcast {_fmt(data.shape)} to {_fmt(like.shape)}")
    return like


def _broadcast_to_like_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``broadcast_to_like``: numpy broadcasting to the second argument's shape."""
    data, like = args
    _run_time(
        "broadcast_to_like",
        lambda: _broadcast_to_like_relation((_type_of(data), _type_of(like)), attrs),
    )
    return np.broadcast_to(data, like.shape).copy()


def _collapse_sum_like_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``CollapseSumLike``: same dtypes; ``collapse_type`` broadcasts to data's shape; the
    result has its type."""
    data, like = _two(arg_types, "data", "collapse_type")
    _same_dtype_as(data, like, "collapse_type")
    if not _broadcasts_to(like.shape, data.shape):
        raise RelationError(
            f"cannot collapse {_fmt(data.shape)} to {_fmt(like.shape)}: the target does not "
            "broadcast to data's shape"
        )
    return like


def _collapse_sum_like_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``collapse_sum_like``: ``sum`` (as ``reduce`` defines it: ``any`` on bool) over data's
    leading axes and over the axes where ``collapse_type`` has 1 and data does not, to
    ``collapse_type``'s shape.

    Undefined: int32, int64, uint32 or uint64 where an evaluation order may overflow (``add``
    carries ``nsw``/``nuw`` there; see ``reduce``)."""
    data, like = args
    _run_time(
        "collapse_sum_like",
        lambda: _collapse_sum_like_relation((_type_of(data), _type_of(like)), attrs),
    )
    lead = data.ndim - like.ndim
    summed = list(range(lead)) + [
        lead + i for i, d in enumerate(like.shape) if d == 1 and data.shape[lead + i] != 1
    ]
    kept = [i for i in range(data.ndim) if i not in summed]
    rows = np.transpose(data, kept + summed).reshape(
        (*(data.shape[i] for i in kept), math.prod(data.shape[i] for i in summed))
    )
    with np.errstate(over="ignore", invalid="ignore"):
        total = _sum_rows(rows, "collapse_sum_like")
    return np.asarray(total, dtype=data.dtype).reshape(like.shape)


def _dtype_attr(dtype: str) -> str:
    if not is_dtype(dtype):
        raise RelationError(f'expected a dtype attribute, found "{dtype}"')
    return dtype


def _shape_of_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``ShapeOf``: ``Tensor[(ndim,), dtype]``.

    Departure from TVM: a dtype is required (TVM would make a void tensor; its Python API passes
    int32)."""
    a = _attrs(attrs, ShapeOfAttrs)
    data = _data(arg_types)
    return TensorType((len(data.shape),), _dtype_attr(a.dtype))


def _shape_of_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``shape_of``: the shape vector cast to the dtype (numpy's integer conversion; bool is
    "nonzero")."""
    (data,) = args
    a = _attrs(attrs, ShapeOfAttrs)
    return np.array(data.shape, dtype=np.int64).astype(_dtype_attr(a.dtype))


def _ndarray_size_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``NdarraySize``: ``Tensor[(), dtype]``; a dtype is required, as for ``shape_of``."""
    a = _attrs(attrs, NdarraySizeAttrs)
    _data(arg_types)
    return TensorType((), _dtype_attr(a.dtype))


def _ndarray_size_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``ndarray_size``: the element count cast to the dtype, as ``shape_of`` casts."""
    (data,) = args
    a = _attrs(attrs, NdarraySizeAttrs)
    return np.array(data.size, dtype=np.int64).astype(_dtype_attr(a.dtype))


def _sliding_window_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``SlidingWindow``: ``0 <= axis < ndim``; ``window_shape`` and ``strides`` of length
    ``ndim - axis``, windows in ``[1, extent]``, strides >= 1; ``data.shape[:axis]`` + the window
    counts ``ceil((extent - window + 1) / stride)`` + ``window_shape``.

    Departure from TVM: its relation checks none of these."""
    a = _attrs(attrs, SlidingWindowAttrs)
    data = _data(arg_types)
    ndim = len(data.shape)
    if not 0 <= a.axis < ndim:
        raise RelationError(
            f"axis={a.axis} is out of range for a tensor of rank {ndim} (expected 0 <= axis < "
            f"{ndim})"
        )
    span = ndim - a.axis
    if len(a.window_shape) != span or len(a.strides) != span:
        raise RelationError(
            f"expected window_shape and strides of length {span} (rank {ndim} less axis "
            f"{a.axis}), found {_fmt(a.window_shape)} and {_fmt(a.strides)}"
        )
    counts: list[Dim] = []
    for i, (w, s) in enumerate(zip(a.window_shape, a.strides, strict=True)):
        extent = data.shape[a.axis + i]
        if w < 1 or s < 1:
            raise RelationError(
                f"expected windows and strides of at least 1, found window_shape="
                f"{_fmt(a.window_shape)}, strides={_fmt(a.strides)}"
            )
        if _provably_greater(w, extent):
            raise RelationError(
                f"the window {w} is longer than the extent {extent} of axis {a.axis + i}"
            )
        counts.append(floordiv_dims(sub_dims(extent, w - s), s))
    return TensorType((*data.shape[: a.axis], *counts, *a.window_shape), data.dtype)


def _sliding_window_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``sliding_window``: ``out[pre.., i.., w..] = data[pre.., i * stride + w ..]``.

    Undefined: a window longer than the axis at run time."""
    (data,) = args
    a = _attrs(attrs, SlidingWindowAttrs)
    out = _out_shape(
        _run_time("sliding_window", lambda: _sliding_window_relation((_type_of(data),), attrs))
    )
    axes = tuple(range(a.axis, data.ndim))
    views = np.lib.stride_tricks.sliding_window_view(data, a.window_shape, axis=axes)
    picked = views[(slice(None),) * a.axis + tuple(slice(None, None, s) for s in a.strides)]
    assert picked.shape == out
    return np.ascontiguousarray(picked)


def _reverse_sequence_axes(
    arg_types: tuple[Type, ...], a: ReverseSequenceAttrs
) -> tuple[TensorType, int, int]:
    data, lengths = _two(arg_types, "data", "seq_lengths")
    if len(lengths.shape) != 1:
        raise RelationError(
            f"expected seq_lengths of rank 1, found rank {len(lengths.shape)} {_fmt(lengths.shape)}"
        )
    if not lengths.dtype.startswith("int"):
        raise RelationError(
            f"expected a signed integer dtype for seq_lengths, found {lengths.dtype}"
        )
    ndim = len(data.shape)
    batch = normalize_axis(a.batch_axis, ndim, "batch_axis")
    seq = normalize_axis(a.seq_axis, ndim, "seq_axis")
    if dims_equal(lengths.shape[0], data.shape[batch]) is False:
        raise RelationError(
            f"expected seq_lengths of length {data.shape[batch]} (data's extent on batch_axis "
            f"{batch}), found {lengths.shape[0]}"
        )
    return data, batch, seq


def _reverse_sequence_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``ReverseSequence``: ``seq_lengths`` a vector of a signed integer dtype and of data's batch
    extent; ``batch_axis`` and ``seq_axis`` in ``[-ndim, ndim)``; the result is data's type.
    ``seq_axis == batch_axis`` is accepted, as in TVM (the reference then reads the axis's own
    index as the batch index)."""
    a = _attrs(attrs, ReverseSequenceAttrs)
    data, _, _ = _reverse_sequence_axes(arg_types, a)
    return data


def _reverse_sequence_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``reverse_sequence`` (``topi::reverse_sequence``): along ``seq_axis``, with ``L`` the
    ``seq_lengths`` entry of the element's batch index: positions ``i < L`` read ``L - 1 - i`` when
    ``1 < L <= extent``, ``extent - 1 - i`` when ``L > extent`` (the whole axis is reversed);
    positions ``i >= L``, and every position when ``L <= 1``, keep their element. So every length
    is defined, negative ones included."""
    data, lengths = args
    a = _attrs(attrs, ReverseSequenceAttrs)
    _, batch, seq = _run_time(
        "reverse_sequence",
        lambda: _reverse_sequence_axes((_type_of(data), _type_of(lengths)), a),
    )
    extent = data.shape[seq]
    index = np.indices(data.shape, dtype=np.int64) if data.size else None
    if index is None:
        return data.copy()
    i = index[seq]
    length = lengths.astype(np.int64)[index[batch]]
    clamped = np.minimum(length, extent)
    source = np.where((length <= 1) | (length <= i), i, clamped - 1 - i)
    index[seq] = source
    return data[tuple(index)]


_op(
    "reverse",
    "Reverse the order of the elements along an axis.",
    relation=_reverse_relation,
    reference=tensor_reference(_reverse_reference),
    check="independent:explicit loop reading data[n - 1 - i] for each output index",
    relation_name="Reverse",
    attrs_type=ReverseAttrs,
)


_op(
    "tile",
    "Repeat the whole tensor reps times along each axis.",
    relation=_tile_relation,
    reference=tensor_reference(_tile_reference),
    check="onnxruntime:Tile",
    relation_name="Tile",
    attrs_type=TileAttrs,
    pattern=OpPattern.BROADCAST,
)


_op(
    "repeat",
    "Repeat each element repeats times along an axis.",
    relation=_repeat_relation,
    reference=tensor_reference(_repeat_reference),
    check="independent:explicit loop reading data[i // repeats] for each output index",
    relation_name="Repeat",
    attrs_type=RepeatAttrs,
    pattern=OpPattern.BROADCAST,
)


_op(
    "layout_transform",
    "The same tensor in another data layout, such as NCHW to NCHW4c.",
    relation=_layout_transform_relation,
    reference=tensor_reference(_layout_transform_reference),
    check="independent:explicit loop mapping each output index to its source index",
    relation_name="layout_transform",
    attrs_type=LayoutTransformAttrs,
)


_op(
    "reshape_like",
    "Reshape data to a shape taken in part from shape_like's shape.",
    relation=_reshape_like_relation,
    reference=tensor_reference(_reshape_like_reference),
    check="onnxruntime:Reshape",
    relation_name="ReshapeLike",
    inputs=("data", "shape_like"),
    attrs_type=ReshapeLikeAttrs,
)


_op(
    "broadcast_to_like",
    "Broadcast data to the shape of broadcast_type.",
    relation=_broadcast_to_like_relation,
    reference=tensor_reference(_broadcast_to_like_reference),
    check="onnxruntime:Expand",
    relation_name="BroadCastToLike",
    inputs=("data", "broadcast_type"),
    pattern=OpPattern.BROADCAST,
)


_op(
    "collapse_sum_like",
    "Sum data down to the shape of collapse_type (the reverse of broadcasting).",
    relation=_collapse_sum_like_relation,
    reference=tensor_reference(_collapse_sum_like_reference),
    check="onnxruntime:ReduceSum",
    relation_name="CollapseSumLike",
    inputs=("data", "collapse_type"),
    pattern=OpPattern.COMM_REDUCE,
)


_op(
    "shape_of",
    "The shape of data as a vector of the given dtype.",
    relation=_shape_of_relation,
    reference=tensor_reference(_shape_of_reference),
    check="onnxruntime:Shape",
    relation_name="ShapeOf",
    attrs_type=ShapeOfAttrs,
    pattern=OpPattern.OPAQUE,
)


_op(
    "ndarray_size",
    "The number of elements of data as a scalar of the given dtype.",
    relation=_ndarray_size_relation,
    reference=tensor_reference(_ndarray_size_reference),
    check="onnxruntime:Size",
    relation_name="NdarraySize",
    attrs_type=NdarraySizeAttrs,
)


_op(
    "sliding_window",
    "Every window of window_shape, stepped by strides, over the axes from axis on.",
    relation=_sliding_window_relation,
    reference=tensor_reference(_sliding_window_reference),
    check="independent:explicit loop reading data[i * stride + w] for each output index",
    relation_name="SlidingWindow",
    attrs_type=SlidingWindowAttrs,
    pattern=OpPattern.OPAQUE,
)


_op(
    "reverse_sequence",
    "Reverse the first seq_lengths[b] elements along seq_axis of each batch slice b.",
    relation=_reverse_sequence_relation,
    reference=tensor_reference(_reverse_sequence_reference),
    check="onnxruntime:ReverseSequence",
    relation_name="ReverseSequence",
    inputs=("data", "seq_lengths"),
    attrs_type=ReverseSequenceAttrs,
)


@dataclass(frozen=True, slots=True)
class MeshgridAttrs(Attrs):
    """Attributes of ``meshgrid``: matrix ("ij") or cartesian ("xy") indexing."""

    type_key: ClassVar[str] = "relay.attrs.MeshgridAttrs"
    indexing: str = attr_field(AttrKind.STR, "ij", doc='"ij" (matrix) or "xy" (cartesian).')


def _shape(t: Type) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    assert all(isinstance(d, int) for d in t.shape)
    return tuple(int(d) for d in t.shape)  # type: ignore[arg-type]


def _meshgrid_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Meshgrid``: a non-empty tuple of scalars and vectors of one dtype; one grid per field, of
    extents ``(n_0, n_1, ...)`` (a scalar counts 1), the first two swapped when ``indexing`` is
    "xy"."""
    a = _attrs(attrs, MeshgridAttrs)
    _arity(arg_types, 1)
    fields = tuple_arg(arg_types[0], "data")
    if not fields:
        raise RelationError("expected a non-empty tuple of tensors for data, found ()")
    if a.indexing not in ("ij", "xy"):
        raise RelationError(f'expected indexing "ij" or "xy", found "{a.indexing}"')
    dtype = fields[0].dtype
    grid: list[Dim] = []
    for i, f in enumerate(fields):
        if f.dtype != dtype:
            raise RelationError(
                f"meshgrid requires tensors of one dtype: field 0 is {dtype}, field {i} is "
                f"{f.dtype}"
            )
        if len(f.shape) > 1:
            raise RelationError(
                f"expected scalars or vectors, found rank {len(f.shape)} in field {i}"
            )
        grid.append(f.shape[0] if f.shape else 1)
    if a.indexing == "xy" and len(grid) >= 2:
        grid[0], grid[1] = grid[1], grid[0]
    return TupleType(tuple(TensorType(tuple(grid), dtype) for _ in fields))


def _meshgrid_reference(args: tuple[OpInput, ...], attrs: Attrs | None) -> tuple[Tensor, ...]:
    """``meshgrid``: grid k holds ``data[k][i_k]`` at every position ``(i_0, i_1, ...)``
    ("ij"); with "xy" the first two grid axes are swapped."""
    fields = _tuple_value(args)
    a = _attrs(attrs, MeshgridAttrs)
    t = _meshgrid_relation((TupleType(tuple(_type_of(f) for f in fields)),), attrs)
    assert isinstance(t, TupleType)
    grid = _shape(t.fields[0])
    n = len(fields)
    out = []
    for k, f in enumerate(fields):
        # Field k varies along grid axis k, except that "xy" swaps grid axes 0 and 1.
        along = k
        if a.indexing == "xy" and n >= 2 and k < 2:
            along = 1 - k
        shape = [1] * n
        shape[along] = f.size
        out.append(np.broadcast_to(f.reshape(shape), grid).copy())
    return tuple(out)


_op(
    "meshgrid",
    "Coordinate grids from a tuple of coordinate vectors.",
    relation=_meshgrid_relation,
    reference=_meshgrid_reference,
    check="independent:numpy.meshgrid",
    relation_name="Meshgrid",
    attrs_type=MeshgridAttrs,
)
