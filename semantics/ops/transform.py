"""Transforms: operators that move, copy, select or create elements without arithmetic.

::

    reshape(data, newshape=, allowzero=False)                       ReshapeAttrs      injective
    transpose(data, axes=)                                          TransposeAttrs    injective
    concatenate(data, axis=0)            data is a tuple            ConcatenateAttrs  injective
    stack(data, axis=0)                  data is a tuple            StackAttrs        injective
    split(data, indices_or_sections=, axis=0)                       SplitAttrs        injective
    expand_dims(data, axis=, num_newaxis=1)                         ExpandDimsAttrs   broadcast
    squeeze(data, axis=None)                                        SqueezeAttrs      injective
    take(data, indices, batch_dims=0, axis=None, mode="clip")       TakeAttrs         injective
    strided_slice(data, begin=, end=, strides=, slice_mode="end", axes=)
                                                                    StridedSliceAttrs injective
    broadcast_to(data, shape=, dtype="")                            InitOpAttrs       broadcast
    zeros | ones(shape=, dtype="")       no inputs                  InitOpAttrs       elemwise
    full(fill_value, shape=, dtype="")                              InitOpAttrs       elemwise

``name=`` marks a required attribute. Several of TVM's optional (nullable) fields have no
default and so are required all the same, written ``None`` when absent: ``transpose``'s
``axes``, ``strided_slice``'s ``begin``, ``end``, ``strides`` and ``axes``, and
``InitOpAttrs.shape``. Attribute fields follow TVM 0.18's
``include/tvm/relay/attrs/transform.h``; patterns follow ``src/relay/op/tensor/transform.cc``
and, for ``zeros`` and ``ones``, ``python/tvm/relay/op/_tensor.py``.

Type relations (named as TVM registered them; the name prefixes their error messages)::

    Reshape       TVM's InferNewShape: 0 copies, -1 infers, -2 copies the rest, -3 merges two,
                  -4 splits one in two; the element counts must agree when every dimension is
                  a known integer (TVM skips the check otherwise)
    Transpose     axes None reverses; otherwise a permutation of the axes (negative allowed)
    Concatenate   equal rank and dtype; the axis extents add (? if any is ?); other extents
                  agree where known, and are ? only if unknown everywhere or the axis is known
    Stack         equal rank and dtype; axis in [-(ndim + 1), ndim]; a new axis of extent n
    Split         a tuple: equal sections (which must divide the extent) or the pieces between
                  strictly increasing indices, the last below the extent
    ExpandDims    axis in [-ndim - 1, ndim], num_newaxis >= 0
    Squeeze       axis None drops every extent-1 axis (all extents must be known); else the
                  listed axes, whose known extents must be 1
    Take          indices of an integer (or bool) dtype; axis None gives indices' shape, else
                  data.shape[:axis] + indices.shape[batch_dims:] + data.shape[axis + 1:]
    StridedSlice  topi's StridedSliceOutputShape: begin and end wrapped once, then clamped;
                  the extent of an axis that is not a known integer becomes ?
    BroadCastTo   data must broadcast to the shape attribute; the dtype attribute is ignored
    InitOp        zeros and ones: the shape and dtype attributes
    Full          a rank-0 fill_value; dtype "" means fill_value's dtype

Where TVM's relation asserts something about dimensions it fails only when the assertion folds
to false on constants. Here sympy decides (``ops.shapes.dims_equal``), so a condition that is
provably false on symbols (``n`` against ``n + 1``) is rejected too, and one that cannot be
decided is accepted, as in TVM. A dimension that is ``?`` or symbolic in a type is an integer
at run time; every reference first re-checks its relation on the run-time shapes.

Undefined behaviour (``UndefinedBehavior``), with where TVM 0.18 left each case undefined:

- Run-time shapes that contradict what a relation accepted because a dimension was ``?`` or
  symbolic: a reshape whose element counts differ, squeezing an extent other than 1, unequal
  non-axis extents in concatenate or stack, split sections that do not divide the extent or
  indices beyond it, take's batch extents differing, a strided slice whose clamped bounds run
  backwards or whose stride is 0, broadcast_to from an incompatible shape. TVM's computes
  (``topi::reshape``, ``squeeze``, ``concatenate``, ``stack``, ``split``, ``take``,
  ``strided_slice_with_axes``, ``broadcast_to`` in ``include/tvm/topi/transform.h`` and
  ``broadcast.h``) index the input without checking, so they read out of bounds or pick
  arbitrary elements.
- ``stack`` of tensors whose extents differ on the input axis numbered ``axis``: TVM's
  StackRel skips that axis when comparing shapes (it confuses input and output axes), so the
  relation accepts it, and ``topi::stack`` then reads out of bounds or a part of a tensor.
- ``take`` with mode "fast" and an index outside ``[0, extent)`` (``topi::take`` reads
  ``a[idx]`` unchecked: "Fast mode segfaults when there are out-of-bounds indices"); any mode
  when the indexed extent is 0 and the result is not empty (clip reads ``a[-1]``, wrap takes
  ``truncmod`` by 0).
- ``full`` whose fill_value is a float that is NaN, infinite or out of range for an integer
  output dtype: ``topi::full`` casts with ``tvm::cast``, which LLVM lowers to ``fptosi`` /
  ``fptoui``, whose result is poison then.

Deliberate departures from TVM (each a case where TVM crashed, or did something no program can
rely on):

- take: a negative ``batch_dims`` is rejected (TakeRel adds ``ndim(indices)`` to ``axis``
  instead of to ``batch_dims`` and then indexes the shape at a negative position); an ``axis``
  equal to ``ndim(data)``, which TakeRel lets through and ``topi::take`` rejects, is rejected;
  batch extents that provably differ are rejected here rather than by ``topi::take``; a mode
  other than clip, wrap or fast is rejected (``topi::take`` treats it as wrap); and modes
  wrap and fast with ``batch_dims > 0``, whose topi computes ignore ``batch_dims`` and fail to
  build, get the evident meaning (clip's batch indexing with their own index rule).
- strided_slice: a slice_mode other than "end" or "size" is rejected; ``size`` mode computes
  ``begin + size`` without the int64 overflow of TVM's ``ConvertToVec``.
- reshape: the two sizes after ``-4`` must each be positive, 0 or -1 (TVM copies any other
  negative value into the shape); inferring ``-1`` next to a 0-sized output dimension
  (allowzero) is rejected (TVM divides by zero).
- zeros, ones, broadcast_to and full need a shape (TVM dereferences the empty Optional) with
  no negative entries; zeros and ones need a dtype (TVM would make a tensor of type void).

TVM quirks kept: reshape stores the inferred ``-1`` at its position in ``newshape``, not in the
output, so ``newshape=(-2, -1)`` fails and ``(-4, 1, 2, -1)`` is out of range; split's indices
must be strictly increasing, start above 0 and end below the extent; strided_slice pads a
missing ``end`` with 0 when the stride is negative (so ``strides=[-1]`` alone stops before
index 0), rejects a slice whose canonical bounds run backwards instead of making it empty, and
fails on a slice of no axes (a rank-0 tensor, or ``axes=[]``); ``size`` mode ignores strides.

The argument of ``concatenate`` and ``stack`` arrives at a reference as ``args[0]``, a tuple of
arrays; ``split`` returns a tuple of arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

import numpy as np
import numpy.typing as npt
import sympy

from ..errors import UndefinedBehavior
from ..syntax import ANY, AnyDim, Dim, TensorType, TupleType, Type, is_dtype, normalize_dim
from .registry import (
    AttrKind,
    Attrs,
    OpDef,
    OpPattern,
    RelationError,
    Tensor,
    attr_field,
    register,
)
from .shapes import (
    add_dims,
    broadcast_shapes,
    dims_equal,
    floordiv_dims,
    mul_dims,
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


@dataclass(frozen=True, slots=True)
class TakeAttrs(Attrs):
    """Attributes of ``take``: the axis to index, and what out-of-range indices do."""

    type_key: ClassVar[str] = "relay.attrs.TakeAttrs"
    batch_dims: int = attr_field(AttrKind.INT, 0, doc="The number of leading batch axes.")
    axis: int | None = attr_field(
        AttrKind.INT, None, optional=True, doc="The axis to select along; None flattens data."
    )
    mode: str = attr_field(
        AttrKind.STR, "clip", doc='Out-of-range indices: "clip", "wrap" or "fast" (unchecked).'
    )


# kw_only: TVM declares the required `axes` after the defaulted `slice_mode`, and a plain
# dataclass cannot put a field without a default after one with a default.
@dataclass(frozen=True, slots=True, kw_only=True)
class StridedSliceAttrs(Attrs):
    """Attributes of ``strided_slice``: begin, end and stride per sliced axis."""

    type_key: ClassVar[str] = "relay.attrs.StridedSliceAttrs"
    begin: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, optional=True, doc="Begin index of each slice (inclusive)."
    )
    end: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, optional=True, doc="End index (exclusive), or size when slice_mode=size."
    )
    strides: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, optional=True, doc="Stride of each slice; may be negative."
    )
    slice_mode: str = attr_field(
        AttrKind.STR, "end", doc='"end": end holds end indices; "size": end holds sizes.'
    )
    axes: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, optional=True, doc="The axes sliced; None means the leading axes."
    )


@dataclass(frozen=True, slots=True)
class InitOpAttrs(Attrs):
    """Attributes of the tensor creators and ``broadcast_to``: a target shape and dtype."""

    type_key: ClassVar[str] = "relay.attrs.InitOpAttrs"
    shape: tuple[int, ...] | None = attr_field(AttrKind.INTS, optional=True, doc="Target shape.")
    dtype: str = attr_field(
        AttrKind.DTYPE, "", doc='Target data type; "" means the input\'s (or unset).'
    )


# ---------------------------------------------------------------------------------------------
# Shared helpers

_A = TypeVar("_A", bound=Attrs)
_R = TypeVar("_R")

_INT64_MAX = 2**63 - 1
"""TVM's stand-in for "to the end of the axis" in strided_slice (``max_value(int64)``)."""


def _attrs(attrs: Attrs | None, cls: type[_A]) -> _A:
    if not isinstance(attrs, cls):
        found = "no attributes" if attrs is None else type(attrs).__name__
        raise RelationError(f"expected {cls.__name__}, found {found}")
    return attrs


def _arity(arg_types: tuple[Type, ...], n: int) -> None:
    if len(arg_types) != n:
        raise RelationError(f"expected {n} argument(s), found {len(arg_types)}")


def _data(arg_types: tuple[Type, ...]) -> TensorType:
    _arity(arg_types, 1)
    return tensor_arg(arg_types[0], "data")


def _fields(arg_types: tuple[Type, ...]) -> tuple[TensorType, ...]:
    _arity(arg_types, 1)
    fields = tuple_arg(arg_types[0], "data")
    if not fields:
        raise RelationError("expected a non-empty tuple of tensors for data, found ()")
    return fields


def _fmt(shape: Sequence[Dim]) -> str:
    """A shape as Relay prints it: ``(2, 3)``, ``(n, ?)``, ``(2)``, ``()``."""
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _show(values: Sequence[int] | None) -> str:
    """An attribute list as the text format writes it: ``[2, -1]`` (or ``None``)."""
    return "None" if values is None else "[" + ", ".join(str(v) for v in values) + "]"


def _axis(axis: int, ndim: int, shown: str) -> int:
    """``axis`` in ``[-ndim, ndim)`` as an index in ``[0, ndim)``, or a ``RelationError``
    beginning with ``shown``, the attribute as written (``axis=3``, ``axes=[0, 3]: 3``)."""
    if not -ndim <= axis < ndim:
        allowed = f"expected {-ndim} <= axis < {ndim}" if ndim else "it has no axes"
        raise RelationError(f"{shown} is out of range for a tensor of rank {ndim} ({allowed})")
    return axis + ndim if axis < 0 else axis


def _known(shape: Sequence[Dim]) -> tuple[int, ...] | None:
    """``shape`` as integers, or ``None`` when a dimension is ``?`` or symbolic."""
    if all(isinstance(d, int) for d in shape):
        return tuple(int(d) for d in shape)  # type: ignore[arg-type]
    return None


def _target_shape(shape: tuple[int, ...] | None) -> tuple[int, ...]:
    """The ``shape`` attribute of InitOpAttrs, which must be present and non-negative."""
    if shape is None:
        raise RelationError("expected a shape, found shape=None")
    for d in shape:
        if d < 0:
            raise RelationError(f"expected non-negative dimensions, found shape={_show(shape)}")
    return shape


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


def _type_of(value: Tensor) -> TensorType:
    return TensorType(tuple(int(d) for d in value.shape), value.dtype.name)


def _tuple_value(args: tuple[Tensor, ...]) -> tuple[Tensor, ...]:
    """The fields of a tuple argument: ``args[0]`` as a tuple (or the arguments, flattened)."""
    first: object = args[0] if len(args) == 1 else None
    if isinstance(first, tuple | list):
        return tuple(first)
    return args


def _run_time(name: str, check: Callable[[], _R]) -> _R:
    """Run a relation on run-time shapes; a failure is undefined (the static type allowed it)."""
    try:
        return check()
    except RelationError as e:
        raise UndefinedBehavior(
            f"{name}: at run time, {e} (the static type left this unchecked)"
        ) from None


def _out_shape(t: Type) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    shape = _known(t.shape)
    assert shape is not None, "a relation over known shapes gives a known shape"
    return shape


# ---------------------------------------------------------------------------------------------
# reshape


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
    (data,) = args
    shape = _out_shape(_run_time("reshape", lambda: _reshape_relation((_type_of(data),), attrs)))
    return np.reshape(data, shape).copy()


# ---------------------------------------------------------------------------------------------
# transpose


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
    a = _attrs(attrs, TransposeAttrs)
    data = _data(arg_types)
    perm = _transpose_axes(len(data.shape), a.axes)
    return TensorType(tuple(data.shape[p] for p in perm), data.dtype)


def _transpose_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    (data,) = args
    a = _attrs(attrs, TransposeAttrs)
    return np.transpose(data, _transpose_axes(data.ndim, a.axes)).copy()


# ---------------------------------------------------------------------------------------------
# concatenate and stack


def _concatenate_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
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


def _concatenate_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    fields = _tuple_value(args)
    a = _attrs(attrs, ConcatenateAttrs)
    _run_time(
        "concatenate",
        lambda: _concatenate_relation((TupleType(tuple(map(_type_of, fields))),), attrs),
    )
    return np.concatenate(fields, axis=a.axis)


def _stack_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
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


def _stack_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
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


# ---------------------------------------------------------------------------------------------
# split


def _split_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
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
    (data,) = args
    a = _attrs(attrs, SplitAttrs)
    _run_time("split", lambda: _split_relation((_type_of(data),), attrs))
    sections = a.indices_or_sections
    pieces = np.split(data, sections if isinstance(sections, int) else list(sections), a.axis)
    return tuple(p.copy() for p in pieces)


# ---------------------------------------------------------------------------------------------
# expand_dims and squeeze


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
    a = _attrs(attrs, ExpandDimsAttrs)
    data = _data(arg_types)
    pivot = _expand_dims_pivot(len(data.shape), a)
    oshape = (*data.shape[:pivot], *([1] * a.num_newaxis), *data.shape[pivot:])
    return TensorType(oshape, data.dtype)


def _expand_dims_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
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
    a = _attrs(attrs, SqueezeAttrs)
    data = _data(arg_types)
    removed = _squeeze_axes(data.shape, a.axis)
    return TensorType(tuple(d for i, d in enumerate(data.shape) if i not in removed), data.dtype)


def _squeeze_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    (data,) = args
    a = _attrs(attrs, SqueezeAttrs)
    removed = _run_time("squeeze", lambda: _squeeze_axes(data.shape, a.axis))
    return np.squeeze(data, axis=tuple(sorted(removed))).copy()


# ---------------------------------------------------------------------------------------------
# take

_TAKE_MODES = ("clip", "wrap", "fast")


def _take_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, TakeAttrs)
    _arity(arg_types, 2)
    data = tensor_arg(arg_types[0], "data")
    indices = tensor_arg(arg_types[1], "indices")
    if not (indices.dtype == "bool" or indices.dtype.startswith(("int", "uint"))):
        raise RelationError(f"expected an integer dtype for indices, found {indices.dtype}")
    if a.mode not in _TAKE_MODES:
        raise RelationError(f'expected mode "clip", "wrap" or "fast", found mode="{a.mode}"')
    if a.axis is None:
        # The flattened take ignores batch_dims (topi::take without an axis).
        return TensorType(indices.shape, data.dtype)
    axis = _axis(a.axis, len(data.shape), f"axis={a.axis}")
    bd = a.batch_dims
    if bd < 0:
        raise RelationError(f"expected batch_dims >= 0, found batch_dims={bd}")
    if bd > len(indices.shape):
        raise RelationError(
            f"expected batch_dims at most the rank {len(indices.shape)} of indices, "
            f"found batch_dims={bd}"
        )
    if bd > axis:
        raise RelationError(
            f"expected batch_dims at most the axis {axis}, found batch_dims={bd} (axis={a.axis})"
        )
    for i in range(bd):
        if dims_equal(data.shape[i], indices.shape[i]) is False:
            raise RelationError(
                f"expected equal batch dimensions, found {data.shape[i]} in data and "
                f"{indices.shape[i]} in indices at dimension {i}"
            )
    oshape = (*data.shape[:axis], *indices.shape[bd:], *data.shape[axis + 1 :])
    return TensorType(oshape, data.dtype)


def _take_positions(indices: Tensor, extent: int, mode: str) -> npt.NDArray[np.int64]:
    """The positions read along an axis of ``extent`` (at least 1), as int64."""
    if indices.dtype == np.bool_:
        indices = indices.astype(np.int64)
    if indices.dtype.kind == "u":
        u = indices.astype(np.uint64)
        if mode == "clip":
            return np.minimum(u, np.uint64(extent - 1)).astype(np.int64)
        if mode == "wrap":
            return (u % np.uint64(extent)).astype(np.int64)
        bad = u >= np.uint64(extent)
    else:
        i = indices.astype(np.int64)
        if mode == "clip":
            return np.clip(i, 0, extent - 1)
        if mode == "wrap":
            # topi: truncmod(truncmod(i, n) + n, n), which is floor modulo for n > 0.
            return np.mod(i, extent)
        bad = (i < 0) | (i >= extent)
    if bad.any():
        found = indices[bad].flat[0]
        raise UndefinedBehavior(
            f'take with mode "fast" and index {found} outside [0, {extent}): TVM reads out of '
            "bounds"
        )
    return indices.astype(np.int64)


def _take_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    data, indices = args
    a = _attrs(attrs, TakeAttrs)
    out = _out_shape(
        _run_time("take", lambda: _take_relation((_type_of(data), _type_of(indices)), attrs))
    )
    if math.prod(out) == 0:
        return np.zeros(out, dtype=data.dtype)
    if a.axis is None:
        flat = data.reshape(-1)
        if flat.size == 0:
            raise UndefinedBehavior("take from an empty tensor with a non-empty result")
        return np.asarray(flat[_take_positions(indices, flat.size, a.mode)])
    axis = a.axis + data.ndim if a.axis < 0 else a.axis
    bd = a.batch_dims
    extent = data.shape[axis]
    if extent == 0:
        raise UndefinedBehavior(f"take along an axis of extent 0 with a non-empty result {out}")
    batch, pre, post = data.shape[:bd], data.shape[bd:axis], data.shape[axis + 1 :]
    inner = indices.shape[bd:]
    nb = math.prod(batch)
    # Bring the indexed axis next to the flattened batch axis, gather both at once, then move
    # the gathered index dimensions after the `pre` dimensions.
    d = np.moveaxis(data.reshape((nb, *pre, extent, *post)), 1 + len(pre), 1)
    k = _take_positions(indices, extent, a.mode).reshape((nb, *inner))
    b = np.arange(nb).reshape((nb,) + (1,) * len(inner))
    r = d[b, k]
    ni, npre = len(inner), len(pre)
    perm = (0, *range(1 + ni, 1 + ni + npre), *range(1, 1 + ni), *range(1 + ni + npre, r.ndim))
    return r.transpose(perm).reshape((*batch, *pre, *inner, *post))


# ---------------------------------------------------------------------------------------------
# strided_slice


def _canonical_index(index: int, extent: int, stride: int) -> int:
    """topi's ``CanonicalizeIndex``: wrap a negative index once, then clamp."""
    lo, hi = (-1, extent - 1) if stride < 0 else (0, extent)
    if index < 0:
        index += extent
    return min(max(index, lo), hi)


def _strided_slice_plan(
    shape: Sequence[Dim], a: StridedSliceAttrs
) -> tuple[list[Dim], dict[int, tuple[int, int, int]]]:
    """The output shape, and per known axis its (canonical begin, stride, extent).

    Follows StridedSliceRel and topi's ``StridedSliceOutputShape`` (``ConvertToVec``,
    ``StridedSliceCanonicalizeBegin``). A repeated axis takes its last entry, as in TVM.
    """
    if a.begin is None or a.end is None or a.strides is None:
        raise RelationError(
            f"expected begin, end and strides, found begin={_show(a.begin)}, "
            f"end={_show(a.end)}, strides={_show(a.strides)}"
        )
    if a.slice_mode not in ("end", "size"):
        raise RelationError(
            f'expected slice_mode "end" or "size", found slice_mode="{a.slice_mode}"'
        )
    ndim = len(shape)
    begin, end, strides = list(a.begin), list(a.end), list(a.strides)
    if a.axes is not None:
        axes = list(a.axes)
        if not len(axes) == len(begin) == len(end) == len(strides):
            raise RelationError(
                "expected axes, begin, end and strides of the same length, found "
                f"axes={_show(axes)}, begin={_show(begin)}, end={_show(end)} and "
                f"strides={_show(strides)}"
            )
        for ax in axes:
            if not 0 <= ax < ndim:
                raise RelationError(
                    f"axes={_show(axes)}: {ax} is out of range for a tensor of rank {ndim} "
                    f"(expected 0 <= axis < {ndim})"
                )
    else:
        if max(len(begin), len(end), len(strides)) > ndim:
            raise RelationError(
                f"expected at most {ndim} entries (the rank of data) in begin, end and "
                f"strides, found begin={_show(begin)}, end={_show(end)} and "
                f"strides={_show(strides)}"
            )
        axes = list(range(ndim))
        strides += [1] * (ndim - len(strides))
        begin += [0 if strides[i] > 0 else _INT64_MAX for i in range(len(begin), ndim)]
        end += [0 if strides[i] < 0 else _INT64_MAX for i in range(len(end), ndim)]
    if not axes:
        raise RelationError("expected at least one axis to slice, found none")
    size_mode = a.slice_mode == "size"
    oshape = list(shape)
    plan: dict[int, tuple[int, int, int]] = {}
    for i, ax in enumerate(axes):
        stride = 1 if size_mode else strides[i]
        stop = end[i]
        if size_mode:
            stop = _INT64_MAX if end[i] < 0 else begin[i] + end[i]
        extent = shape[ax]
        if not isinstance(extent, int):
            oshape[ax] = ANY
            plan.pop(ax, None)
            continue
        if stride == 0:
            raise RelationError(
                f"expected nonzero strides, found strides={_show(a.strides)} (0 for axis {ax})"
            )
        b = _canonical_index(begin[i], extent, stride)
        e = _canonical_index(stop, extent, stride)
        if (e > b) if stride < 0 else (b > e):
            raise RelationError(
                f"begin {begin[i]} and end {stop} with stride {stride} run backwards on axis "
                f"{ax} of extent {extent} (canonically {b} and {e})"
            )
        n = -(-abs(e - b) // abs(stride))
        oshape[ax] = n
        plan[ax] = (b, stride, n)
    return oshape, plan


def _strided_slice_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, StridedSliceAttrs)
    data = _data(arg_types)
    oshape, _ = _strided_slice_plan(data.shape, a)
    return TensorType(tuple(oshape), data.dtype)


def _strided_slice_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    (data,) = args
    a = _attrs(attrs, StridedSliceAttrs)
    _, plan = _run_time("strided_slice", lambda: _strided_slice_plan(data.shape, a))
    positions = []
    for ax, extent in enumerate(data.shape):
        if ax in plan:
            b, stride, n = plan[ax]
            positions.append(b + stride * np.arange(n, dtype=np.int64))
        else:
            positions.append(np.arange(extent, dtype=np.int64))
    return data[np.ix_(*positions)]


# ---------------------------------------------------------------------------------------------
# broadcast_to, zeros, ones, full


def _broadcast_to_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
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
    (data,) = args
    t = _run_time("broadcast_to", lambda: _broadcast_to_relation((_type_of(data),), attrs))
    return np.broadcast_to(data, _out_shape(t)).copy()


def _init_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, InitOpAttrs)
    _arity(arg_types, 0)
    shape = _target_shape(a.shape)
    if not is_dtype(a.dtype):
        raise RelationError(f'expected a dtype, found dtype="{a.dtype}"')
    return TensorType(shape, a.dtype)


def _init_reference(value: int) -> Callable[[tuple[Tensor, ...], Attrs | None], Tensor]:
    def reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
        assert not args, "zeros and ones take no arguments"
        t = _init_relation((), attrs)
        assert isinstance(t, TensorType)
        return np.full(_out_shape(t), value, dtype=t.dtype)

    return reference


def _full_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, InitOpAttrs)
    _arity(arg_types, 1)
    fill = tensor_arg(arg_types[0], "fill_value")
    if fill.shape:
        raise RelationError(
            f"expected a scalar fill_value (rank 0), found rank {len(fill.shape)} "
            f"{_fmt(fill.shape)}"
        )
    return TensorType(_target_shape(a.shape), a.dtype or fill.dtype)


def _cast_scalar(value: Tensor, dtype: str) -> Tensor:
    """``tvm::cast`` of a rank-0 value, as LLVM lowers it; float to int out of range is UB."""
    target = np.dtype(dtype)
    if value.dtype.kind == "f" and target.kind in "iu":
        v = float(value)
        info = np.iinfo(target)
        if not math.isfinite(v) or not info.min <= math.trunc(v) <= info.max:
            raise UndefinedBehavior(
                f"full: cast of fill_value {v} to {dtype} is out of range (fptosi/fptoui "
                "give poison)"
            )
        return np.asarray(math.trunc(v), dtype=target)
    if value.dtype.kind == "f" and target.kind == "b":
        v = float(value)
        return np.asarray(v == v and v != 0)  # an ordered compare: NaN is false
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(target)


def _full_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    (fill,) = args
    t = _full_relation((_type_of(fill),), attrs)
    assert isinstance(t, TensorType)
    return np.full(_out_shape(t), _cast_scalar(fill, t.dtype), dtype=t.dtype)


# ---------------------------------------------------------------------------------------------
# Records


register(
    OpDef(
        "reshape",
        ("data",),
        ReshapeAttrs,
        OpPattern.INJECTIVE,
        "The same elements in row-major order, in the shape newshape.",
        relation=_reshape_relation,
        reference=_reshape_reference,
        relation_name="Reshape",
        family="transform",
        check="onnxruntime:Reshape",
    )
)
register(
    OpDef(
        "transpose",
        ("data",),
        TransposeAttrs,
        OpPattern.INJECTIVE,
        "Permute the axes of data.",
        relation=_transpose_relation,
        reference=_transpose_reference,
        relation_name="Transpose",
        family="transform",
        check="onnxruntime:Transpose",
    )
)
register(
    OpDef(
        "concatenate",
        ("data",),
        ConcatenateAttrs,
        OpPattern.INJECTIVE,
        "Join the tensors of the tuple data along an existing axis.",
        relation=_concatenate_relation,
        reference=_concatenate_reference,
        relation_name="Concatenate",
        family="transform",
        check="onnxruntime:Concat",
    )
)
register(
    OpDef(
        "stack",
        ("data",),
        StackAttrs,
        OpPattern.INJECTIVE,
        "Join the tensors of the tuple data along a new axis.",
        relation=_stack_relation,
        reference=_stack_reference,
        relation_name="Stack",
        family="transform",
        check="independent:element loop out[..k..] = data[k][...]",
    )
)
register(
    OpDef(
        "split",
        ("data",),
        SplitAttrs,
        OpPattern.INJECTIVE,
        "Split data along an axis into a tuple of tensors.",
        relation=_split_relation,
        reference=_split_reference,
        relation_name="Split",
        family="transform",
        check="onnxruntime:Split",
    )
)
register(
    OpDef(
        "expand_dims",
        ("data",),
        ExpandDimsAttrs,
        OpPattern.BROADCAST,
        "Insert num_newaxis axes of extent one at axis.",
        relation=_expand_dims_relation,
        reference=_expand_dims_reference,
        relation_name="ExpandDims",
        family="transform",
        check="onnxruntime:Unsqueeze",
    )
)
register(
    OpDef(
        "squeeze",
        ("data",),
        SqueezeAttrs,
        OpPattern.INJECTIVE,
        "Remove axes of extent one.",
        relation=_squeeze_relation,
        reference=_squeeze_reference,
        relation_name="Squeeze",
        family="transform",
        check="onnxruntime:Squeeze",
    )
)
register(
    OpDef(
        "take",
        ("data", "indices"),
        TakeAttrs,
        OpPattern.INJECTIVE,
        "Gather elements of data at indices along an axis.",
        relation=_take_relation,
        reference=_take_reference,
        relation_name="Take",
        family="transform",
        check="onnxruntime:Gather",
    )
)
register(
    OpDef(
        "strided_slice",
        ("data",),
        StridedSliceAttrs,
        OpPattern.INJECTIVE,
        "A strided slice of data, as in numpy's data[begin:end:stride].",
        relation=_strided_slice_relation,
        reference=_strided_slice_reference,
        relation_name="StridedSlice",
        family="transform",
        check="onnxruntime:Slice",
    )
)
register(
    OpDef(
        "broadcast_to",
        ("data",),
        InitOpAttrs,
        OpPattern.BROADCAST,
        "Broadcast data to the shape given by the shape attribute.",
        relation=_broadcast_to_relation,
        reference=_broadcast_to_reference,
        relation_name="BroadCastTo",
        family="transform",
        check="onnxruntime:Expand",
    )
)
register(
    OpDef(
        "zeros",
        (),
        InitOpAttrs,
        OpPattern.ELEMWISE,
        "A tensor of the given shape and dtype filled with zeros.",
        relation=_init_relation,
        reference=_init_reference(0),
        relation_name="InitOp",
        family="transform",
        check="onnxruntime:ConstantOfShape",
    )
)
register(
    OpDef(
        "ones",
        (),
        InitOpAttrs,
        OpPattern.ELEMWISE,
        "A tensor of the given shape and dtype filled with ones.",
        relation=_init_relation,
        reference=_init_reference(1),
        relation_name="InitOp",
        family="transform",
        check="onnxruntime:ConstantOfShape",
    )
)
register(
    OpDef(
        "full",
        ("fill_value",),
        InitOpAttrs,
        OpPattern.ELEMWISE,
        "A tensor of the given shape filled with the scalar fill_value.",
        relation=_full_relation,
        reference=_full_reference,
        relation_name="Full",
        family="transform",
        check="independent:Python scalar conversion (math.trunc, modular wrap-around)",
    )
)
