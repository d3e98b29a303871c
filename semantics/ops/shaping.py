"""Shaping: transforms that reorder, repeat, cut or re-lay elements, and read shapes.

::

    reverse(data, axis=)                                    ReverseAttrs          injective
    tile(data, reps=)                                       TileAttrs             broadcast
    repeat(data, repeats=, axis=)                           RepeatAttrs           broadcast
    layout_transform(data, src_layout=, dst_layout=)        LayoutTransformAttrs  injective
    reshape_like(data, shape_like, lhs_begin=0, lhs_end=None, rhs_begin=0, rhs_end=None)
                                                            ReshapeLikeAttrs      injective
    broadcast_to_like(data, broadcast_type)                 (none)                broadcast
    collapse_sum_like(data, collapse_type)                  (none)                comm_reduce
    slice_like(data, shape_like, axes=)                     SliceLikeAttrs        injective
    shape_of(data, dtype="")                                ShapeOfAttrs          opaque
    ndarray_size(data, dtype="")                            NdarraySizeAttrs      injective
    einsum(data, equation=)          data is a tuple        EinsumAttrs           injective
    matrix_set_diag(input, diagonal, k1=0, k2=0, super_diag_right_align=True,
                    sub_diag_right_align=False)             MatrixSetDiagAttrs    injective
    trilu(data, k, upper=True)       k is a rank-0 tensor   TriluAttrs            elemwise
    sliding_window(data, axis=, window_shape=, strides=)    SlidingWindowAttrs    opaque
    reverse_sequence(data, seq_lengths, seq_axis=1, batch_axis=0)
                                                            ReverseSequenceAttrs  injective

``name=`` marks a required attribute (``reverse``'s and ``repeat``'s ``axis`` default to None
in TVM, but TVM's relations read them as integers, so None is rejected; ``slice_like``'s
``axes`` has no default and is written ``None`` for "every axis"). Attribute fields follow TVM
0.18's ``include/tvm/relay/attrs/transform.h``; relations and patterns follow
``src/relay/op/tensor/transform.cc``, ``unary.cc`` (``shape_of``, ``ndarray_size``),
``math.cc`` (``einsum``) and ``python/tvm/relay/op/_transform.py`` (``layout_transform``);
computes follow ``include/tvm/topi/transform.h``, ``reduction.h`` and ``einsum.h``.

Type relations (named as TVM registered them; the name prefixes their error messages)::

    Reverse          axis in [-ndim, ndim); the result is data's type
    Tile             every rep > 0; data and reps are padded with leading 1s to the same rank;
                     extent data * rep, ? where data's extent is not a known integer (as TVM)
    Repeat           repeats >= 1, axis in [-ndim, ndim); that extent times repeats
    layout_transform layouts of upper-case primal axes and sub-axes "<factor><lower-case>";
                     both name the same primal axes; data's rank is src_layout's; a src sub-axis
                     has its factor as extent; a dst sub-axis of factor f splits its primal
                     extent (which f must divide) into (extent / f, f)
    ReshapeLike      data.shape[:lhs_begin] + shape_like.shape[rhs_begin:rhs_end]
                     + data.shape[lhs_end:] (negative bounds count from the end); element
                     counts equal when every extent of data and result is a known integer
    BroadCastToLike  same dtypes; data broadcasts to broadcast_type's shape; result its type
    CollapseSumLike  same dtypes; collapse_type broadcasts to data's shape; result its type
    SliceLike        per axis (axes None: the leading min(rank) axes) the extent of shape_like,
                     which may not exceed data's; axes non-empty, each below shape_like's rank
    ShapeOf          Tensor[(ndim,), dtype]
    NdarraySize      Tensor[(), dtype]
    Einsum           a non-empty tuple of one dtype; the equation's terms fit the operands
                     (letters, one "..." per term); a label has one extent everywhere; "..."
                     parts broadcast; implicit output: "..." then the labels used once, sorted
    MatrixSetDiag    k1 <= k2, -rows < k1, k2 < cols; diagonal is input.shape[:-2] + (D,) for
                     one diagonal, + (k2 - k1 + 1, D) for several, D = min(rows + min(k2, 0),
                     cols - max(k1, 0)); the result is input's type
    trilu            data of rank >= 2; k a rank-0 integer tensor; the result is data's type
    SlidingWindow    0 <= axis < ndim; window_shape and strides of length ndim - axis, windows
                     in [1, extent], strides >= 1; data.shape[:axis] + the window counts
                     ceil((extent - window + 1) / stride) + window_shape
    ReverseSequence  seq_lengths a vector of a signed integer dtype and of data's batch extent;
                     batch_axis and seq_axis in [-ndim, ndim); the result is data's type

Where a relation compares dimensions it fails only when sympy proves the comparison false
(``ops.shapes.dims_equal``): ``?`` and undecidable symbolic dimensions are accepted, and every
reference re-checks its relation on the run-time shapes (a failure there is undefined).

Meaning:

- ``reverse``: ``out[.., i, ..] = data[.., n - 1 - i, ..]`` on the axis.
- ``tile``: numpy's ``tile``; ``repeat``: numpy's ``repeat`` along the axis.
- ``layout_transform``: the same logical tensor in another layout: the primal tensor has
  extent ``P * f`` on a primal axis ``P`` with sub-axis ``f p`` (element ``P * f + p``), and the
  result indexes that tensor through dst_layout the same way. ``NCHW -> NCHW4c`` is
  ``out[n, C, h, w, c] = data[n, 4 C + c, h, w]``.
- ``reshape_like``: ``reshape`` to the shape above; ``broadcast_to_like``: numpy broadcasting;
  ``collapse_sum_like``: ``sum`` (as ``ops.reduce`` defines it: ``any`` on bool) over data's
  leading axes and over the axes where collapse_type has 1 and data does not, to
  collapse_type's shape; ``slice_like``: ``data[:s0, :s1, ..]`` with the sliced extents.
- ``shape_of`` / ``ndarray_size``: the shape vector / the element count, cast to dtype
  (numpy's integer conversion; bool is "nonzero").
- ``einsum``: numpy's ``einsum``; products and sums in the dtype (narrow integers wrap).
- ``matrix_set_diag`` (TensorFlow's ``MatrixSetDiagV3``): element ``(.., i, j)`` with
  ``k = j - i`` in ``[k1, k2]`` becomes ``diagonal[.., k2 - k, (i if k >= 0 else j) + o]``
  (one diagonal: ``diagonal[.., i if k >= 0 else j]``), where ``o`` is ``D`` less the length of
  diagonal ``k`` if that diagonal is right-aligned (``super_diag_right_align`` for ``k >= 0``,
  ``sub_diag_right_align`` for ``k < 0``) and 0 otherwise; other elements are input's.
- ``trilu``: data where ``j - i >= k`` (upper) or ``j - i <= k`` (lower) on the last two axes,
  0 elsewhere; k is read as its mathematical value.
- ``sliding_window``: ``out[pre.., i.., w..] = data[pre.., i * stride + w ..]``.
- ``reverse_sequence`` (``topi::reverse_sequence``): along seq_axis, with ``L`` the
  seq_lengths entry of the element's batch index: positions ``i < L`` read ``L - 1 - i`` when
  ``1 < L <= extent``, ``extent - 1 - i`` when ``L > extent`` (the whole axis is reversed);
  positions ``i >= L``, and every position when ``L <= 1``, keep their element. So every
  length is defined, negative ones included.

Undefined behaviour (``UndefinedBehavior``):

- Run-time shapes that contradict what a relation accepted because a dimension was ``?`` or
  symbolic (a reshape_like whose counts differ, a slice_like longer than data, a window longer
  than the axis, a non-dividing layout split, ...): TVM's computes index unchecked.
- ``collapse_sum_like`` and ``einsum`` of int32, int64, uint32 or uint64 where an evaluation
  order may overflow (``add``/``mul`` carry ``nsw``/``nuw`` there; see ``ops.reduce``). For
  ``einsum`` the spec leaves undefined every input whose sum of products of magnitudes (a 0
  counted as 1) exceeds the dtype's maximum: that bounds every partial product and sum.
- ``einsum`` of bool that sums over a label (a label of the inputs missing from the output):
  TVM adds 1-bit integers, which is not a defined boolean operation here.

Deliberate departures from TVM (each a case where TVM crashed, read out of bounds, or left
the meaning to chance):

- reverse and repeat: ``axis=None`` is rejected (TVM dereferences the null integer); repeat's
  axis must lie in ``[-ndim, ndim)`` (TVM's check admits ``-ndim - 1`` and ``ndim``, then reads
  past the shape).
- layout_transform: an empty layout is rejected; data's rank must equal src_layout's; a
  src sub-axis's extent must equal its factor and a dst factor must divide its primal extent
  (TVM's shape rule ignores the first and floors the second).
- reshape_like: the bounds, after adding the rank to negative ones, must satisfy
  ``0 <= begin <= end <= rank`` (TVM indexes outside the shape otherwise).
- slice_like: a negative axis is counted from data's rank and must land in range (TVM
  indexed out of bounds); an extent larger than data's is an error whenever it is provable.
- shape_of and ndarray_size need a dtype (TVM would make a void tensor; its Python API
  passes int32).
- einsum: a label's extents must all be equal (no broadcasting of 1-extent labels), and an
  explicit output has "..." exactly when an input does.
- matrix_set_diag: the diagonal's rank, batch extents, count and length are checked (TVM's
  relation calls ``reporter->Assert`` without checking the answer; its length formula is
  also not TensorFlow's); the diagonals must exist (``-rows < k1``, ``k2 < cols``).
- trilu: data of rank at least 2 and an integer k (TVM's relation checks neither).
- sliding_window: axis in ``[0, ndim)``, the lengths, windows and strides as above (TVM's
  relation checks none of them).

TVM quirks kept: tile's extents become ``?`` wherever data's extent is symbolic, even where
the rep is 1; broadcast_to_like and collapse_sum_like reject differing dtypes (TVM's
``BroadcastRel``); reverse_sequence accepts ``seq_axis == batch_axis`` (the formula above then
reads the axis's own index as the batch index).

The argument of ``einsum`` arrives at its reference as ``args[0]``, a tuple of arrays.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import sympy

from ..errors import UndefinedBehavior
from ..syntax import ANY, AnyDim, Dim, TensorType, TupleType, Type, is_dtype, normalize_dim
from .reduce import _sum_rows
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
    broadcast_shapes,
    dims_equal,
    floordiv_dims,
    mul_dims,
    normalize_axis,
    sub_dims,
    tensor_arg,
)
from .transform import (
    _arity,
    _attrs,
    _data,
    _fields,
    _fmt,
    _known,
    _out_shape,
    _run_time,
    _tuple_value,
    _type_of,
)

# ---------------------------------------------------------------------------------------------
# Attributes


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
class SliceLikeAttrs(Attrs):
    """Attributes of ``slice_like``: the axes to slice (None: every shared axis)."""

    type_key: ClassVar[str] = "relay.attrs.SliceLikeAttrs"
    axes: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, optional=True, doc="The axes sliced to shape_like's extents; None: all."
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
class EinsumAttrs(Attrs):
    """Attributes of ``einsum``: the equation in numpy's notation."""

    type_key: ClassVar[str] = "relay.attrs.EinsumAttrs"
    equation: str = attr_field(AttrKind.STR, doc="The einsum expression string.")


@dataclass(frozen=True, slots=True)
class MatrixSetDiagAttrs(Attrs):
    """Attributes of ``matrix_set_diag``: the diagonals replaced and their alignment."""

    type_key: ClassVar[str] = "relay.attrs.MatrixSetDiagAttrs"
    k1: int = attr_field(AttrKind.INT, 0, doc="Lower limit (included) of the range of diagonals.")
    k2: int = attr_field(AttrKind.INT, 0, doc="Upper limit (included) of the range of diagonals.")
    super_diag_right_align: bool = attr_field(
        AttrKind.BOOL, True, doc="Whether super-diagonals are right aligned (left-padded)."
    )
    sub_diag_right_align: bool = attr_field(
        AttrKind.BOOL, False, doc="Whether sub-diagonals are right aligned (left-padded)."
    )


@dataclass(frozen=True, slots=True)
class TriluAttrs(Attrs):
    """Attributes of ``trilu``: whether to keep the upper or the lower triangle."""

    type_key: ClassVar[str] = "relay.attrs.TriluAttrs"
    upper: bool = attr_field(
        AttrKind.BOOL, True, doc="Keep the upper (True) or lower (False) part of the diagonal."
    )


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


# ---------------------------------------------------------------------------------------------
# Shared helpers


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


def _integer_dtype(dtype: str) -> bool:
    return dtype.startswith(("int", "uint"))


# ---------------------------------------------------------------------------------------------
# reverse


def _reverse_axis(ndim: int, axis: int | None) -> int:
    if axis is None:
        raise RelationError("expected an axis to reverse, found axis=None")
    return normalize_axis(axis, ndim)


def _reverse_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, ReverseAttrs)
    data = _data(arg_types)
    _reverse_axis(len(data.shape), a.axis)
    return data


def _reverse_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    (data,) = args
    a = _attrs(attrs, ReverseAttrs)
    return np.flip(data, _reverse_axis(data.ndim, a.axis)).copy()


# ---------------------------------------------------------------------------------------------
# tile and repeat


def _tile_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
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
    a = _attrs(attrs, RepeatAttrs)
    data = _data(arg_types)
    axis = _repeat_axis(len(data.shape), a)
    oshape = list(data.shape)
    oshape[axis] = mul_dims(data.shape[axis], a.repeats)
    return TensorType(tuple(oshape), data.dtype)


def _repeat_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    (data,) = args
    a = _attrs(attrs, RepeatAttrs)
    return np.repeat(data, a.repeats, axis=_repeat_axis(data.ndim, a))


# ---------------------------------------------------------------------------------------------
# layout_transform


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


# ---------------------------------------------------------------------------------------------
# reshape_like


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
    data, like = args
    t = _run_time(
        "reshape_like",
        lambda: _reshape_like_relation((_type_of(data), _type_of(like)), attrs),
    )
    return np.reshape(data, _out_shape(t)).copy()


# ---------------------------------------------------------------------------------------------
# broadcast_to_like and collapse_sum_like


def _same_dtype(x: TensorType, y: TensorType, second: str) -> None:
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
    data, like = _two(arg_types, "data", "broadcast_type")
    _same_dtype(data, like, "broadcast_type")
    if not _broadcasts_to(data.shape, like.shape):
        raise RelationError(f"cannot broadcast {_fmt(data.shape)} to {_fmt(like.shape)}")
    return like


def _broadcast_to_like_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    data, like = args
    _run_time(
        "broadcast_to_like",
        lambda: _broadcast_to_like_relation((_type_of(data), _type_of(like)), attrs),
    )
    return np.broadcast_to(data, like.shape).copy()


def _collapse_sum_like_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    data, like = _two(arg_types, "data", "collapse_type")
    _same_dtype(data, like, "collapse_type")
    if not _broadcasts_to(like.shape, data.shape):
        raise RelationError(
            f"cannot collapse {_fmt(data.shape)} to {_fmt(like.shape)}: the target does not "
            "broadcast to data's shape"
        )
    return like


def _collapse_sum_like_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
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


# ---------------------------------------------------------------------------------------------
# slice_like


def _slice_like_axes(ndim: int, like_ndim: int, axes: tuple[int, ...] | None) -> list[int]:
    if axes is None:
        return list(range(min(ndim, like_ndim)))
    if not axes:
        raise RelationError("expected at least one axis in axes, found ()")
    out = []
    for axis in axes:
        a = normalize_axis(axis, ndim, "axes")
        if a >= like_ndim:
            raise RelationError(
                f"axes={list(axes)}: {axis} is out of range for shape_like of rank {like_ndim}"
            )
        out.append(a)
    return out


def _slice_like_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, SliceLikeAttrs)
    data, like = _two(arg_types, "data", "shape_like")
    oshape = list(data.shape)
    for axis in _slice_like_axes(len(data.shape), len(like.shape), a.axes):
        if _provably_greater(like.shape[axis], data.shape[axis]):
            raise RelationError(
                f"the extent {like.shape[axis]} of shape_like exceeds data's extent "
                f"{data.shape[axis]} on axis {axis}"
            )
        oshape[axis] = like.shape[axis]
    return TensorType(tuple(oshape), data.dtype)


def _slice_like_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    data, like = args
    t = _run_time(
        "slice_like", lambda: _slice_like_relation((_type_of(data), _type_of(like)), attrs)
    )
    return data[tuple(slice(0, n) for n in _out_shape(t))].copy()


# ---------------------------------------------------------------------------------------------
# shape_of and ndarray_size


def _dtype_attr(dtype: str) -> str:
    if not is_dtype(dtype):
        raise RelationError(f'expected a dtype attribute, found "{dtype}"')
    return dtype


def _shape_of_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, ShapeOfAttrs)
    data = _data(arg_types)
    return TensorType((len(data.shape),), _dtype_attr(a.dtype))


def _shape_of_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    (data,) = args
    a = _attrs(attrs, ShapeOfAttrs)
    return np.array(data.shape, dtype=np.int64).astype(_dtype_attr(a.dtype))


def _ndarray_size_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, NdarraySizeAttrs)
    _data(arg_types)
    return TensorType((), _dtype_attr(a.dtype))


def _ndarray_size_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    (data,) = args
    a = _attrs(attrs, NdarraySizeAttrs)
    return np.array(data.size, dtype=np.int64).astype(_dtype_attr(a.dtype))


# ---------------------------------------------------------------------------------------------
# einsum

_ELLIPSIS = "..."


def _einsum_term(term: str, equation: str) -> list[str]:
    """One term of an equation as labels, ``...`` standing for the ellipsis."""
    labels: list[str] = []
    rest = term
    while rest:
        if rest.startswith(_ELLIPSIS):
            if _ELLIPSIS in labels:
                raise RelationError(f'equation "{equation}": "..." twice in the term "{term}"')
            labels.append(_ELLIPSIS)
            rest = rest[3:]
        elif rest[0].isascii() and rest[0].isalpha():
            labels.append(rest[0])
            rest = rest[1:]
        else:
            raise RelationError(f'equation "{equation}": invalid character {rest[0]!r}')
    return labels


def _einsum_terms(equation: str, count: int) -> tuple[list[list[str]], list[str]]:
    """The input terms and the output term (implicit output made explicit)."""
    if equation.count("->") > 1:
        raise RelationError(f'equation "{equation}" has more than one "->"')
    lhs, arrow, rhs = equation.partition("->")
    inputs = [_einsum_term(t, equation) for t in lhs.split(",")]
    if len(inputs) != count:
        raise RelationError(
            f'equation "{equation}" has {len(inputs)} input term(s) for {count} operand(s)'
        )
    used = [c for t in inputs for c in t if c != _ELLIPSIS]
    ellipsis = any(_ELLIPSIS in t for t in inputs)
    if not arrow:
        once = sorted(c for c in set(used) if used.count(c) == 1)
        return inputs, ([_ELLIPSIS] if ellipsis else []) + once
    output = _einsum_term(rhs, equation)
    for c in output:
        if output.count(c) > 1:
            raise RelationError(f'equation "{equation}": the output repeats the label {c}')
        if c != _ELLIPSIS and c not in used:
            raise RelationError(f'equation "{equation}": the output label {c} is not an input')
    if (_ELLIPSIS in output) != ellipsis:
        raise RelationError(
            f'equation "{equation}": the output must have "..." exactly when an input does'
        )
    return inputs, output


def _einsum_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, EinsumAttrs)
    fields = _fields(arg_types)
    dtype = fields[0].dtype
    for i, f in enumerate(fields):
        if f.dtype != dtype:
            raise RelationError(
                f"einsum requires tensors of the same dtype: field 0 is {dtype}, field {i} is "
                f"{f.dtype}"
            )
    inputs, output = _einsum_terms(a.equation, len(fields))
    extents: dict[str, Dim] = {}
    ellipsis: tuple[Dim, ...] = ()
    for i, (term, f) in enumerate(zip(inputs, fields, strict=True)):
        named = [c for c in term if c != _ELLIPSIS]
        span = len(f.shape) - len(named)
        if span < 0 or (span > 0 and _ELLIPSIS not in term):
            raise RelationError(
                f'equation "{a.equation}": the term "{"".join(term)}" does not fit operand {i} '
                f"of rank {len(f.shape)}"
            )
        dims: list[Dim] = []
        for c in term:
            if c == _ELLIPSIS:
                at = len(dims)
                ellipsis = broadcast_shapes(ellipsis, f.shape[at : at + span])
                dims += list(f.shape[at : at + span])
                continue
            d = f.shape[len(dims)]
            dims.append(d)
            seen = extents.get(c)
            if seen is not None and dims_equal(seen, d) is False:
                raise RelationError(
                    f'equation "{a.equation}": the label {c} has extents {seen} and {d}'
                )
            if seen is None or isinstance(seen, AnyDim):
                extents[c] = d
    oshape: list[Dim] = []
    for c in output:
        oshape += list(ellipsis) if c == _ELLIPSIS else [extents[c]]
    return TensorType(tuple(oshape), dtype)


def _einsum_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    fields = _tuple_value(args)
    a = _attrs(attrs, EinsumAttrs)
    t = _run_time(
        "einsum", lambda: _einsum_relation((TupleType(tuple(map(_type_of, fields))),), attrs)
    )
    dtype = fields[0].dtype
    inputs, output = _einsum_terms(a.equation, len(fields))
    explicit = a.equation if "->" in a.equation else f"{a.equation}->{''.join(output)}"
    summed = {c for term in inputs for c in term} - set(output)
    if dtype == np.bool_ and summed:
        raise UndefinedBehavior(
            f'einsum "{a.equation}" of bool sums over {"".join(sorted(summed))}: TVM adds 1-bit '
            "integers"
        )
    if dtype.kind in "iu" and dtype.itemsize >= 4:
        magnitudes = [np.maximum(np.abs(f.astype(np.float64)), 1.0) for f in fields]
        bound = np.einsum(explicit, *magnitudes)
        if bound.size and float(np.max(bound)) > float(np.iinfo(dtype.name).max):
            raise UndefinedBehavior(
                f'einsum "{a.equation}" of {dtype} may overflow (TVM emits nsw/nuw adds and muls)'
            )
        wide = np.int64 if dtype.kind == "i" else np.uint64
        result = np.einsum(explicit, *(f.astype(wide) for f in fields))
    else:
        operands: list[Any] = list(fields)
        with np.errstate(over="ignore", invalid="ignore"):
            result = np.einsum(explicit, *operands)
    out = np.asarray(result).astype(dtype)
    assert out.shape == _out_shape(t)
    return out


# ---------------------------------------------------------------------------------------------
# matrix_set_diag


def _diagonal_length(rows: int, cols: int, k: int) -> int:
    """The length of diagonal ``k`` (``j - i = k``) of a rows x cols matrix."""
    return min(cols - k, rows) if k >= 0 else min(cols, rows + k)


def _matrix_set_diag_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, MatrixSetDiagAttrs)
    data, diagonal = _two(arg_types, "input", "diagonal")
    if a.k1 > a.k2:
        raise RelationError(f"expected k1 <= k2, found k1={a.k1}, k2={a.k2}")
    if len(data.shape) < 2:
        raise RelationError(f"expected an input of rank at least 2, found rank {len(data.shape)}")
    if diagonal.dtype != data.dtype:
        raise RelationError(
            f"expected input and diagonal of the same dtype, found {data.dtype} and "
            f"{diagonal.dtype}"
        )
    rows, cols = data.shape[-2], data.shape[-1]
    if isinstance(rows, int) and a.k1 <= -rows:
        raise RelationError(f"k1={a.k1} names no diagonal of a matrix with {rows} rows")
    if isinstance(cols, int) and a.k2 >= cols:
        raise RelationError(f"k2={a.k2} names no diagonal of a matrix with {cols} columns")
    count = a.k2 - a.k1 + 1
    length: Dim = ANY
    if isinstance(rows, int) and isinstance(cols, int):
        length = min(rows + min(a.k2, 0), cols - max(a.k1, 0))
    expected = (*data.shape[:-2], *((count,) if count > 1 else ()), length)
    if len(diagonal.shape) != len(expected) or any(
        dims_equal(d, e) is False for d, e in zip(diagonal.shape, expected, strict=True)
    ):
        raise RelationError(
            f"expected a diagonal of shape {_fmt(expected)} for k1={a.k1}, k2={a.k2}, found "
            f"{_fmt(diagonal.shape)}"
        )
    return data


def _matrix_set_diag_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    data, diagonal = args
    a = _attrs(attrs, MatrixSetDiagAttrs)
    _run_time(
        "matrix_set_diag",
        lambda: _matrix_set_diag_relation((_type_of(data), _type_of(diagonal)), attrs),
    )
    rows, cols = data.shape[-2], data.shape[-1]
    width = diagonal.shape[-1]
    out = data.copy()
    for k in range(a.k1, a.k2 + 1):
        # Diagonal k starts at (0, k) or (-k, 0); it reads its row of `diagonal` from the
        # left, or from an offset when it is shorter than `width` and right-aligned.
        n = _diagonal_length(rows, cols, k)
        right = a.super_diag_right_align if k >= 0 else a.sub_diag_right_align
        offset = width - n if right and a.k1 != a.k2 else 0
        values = diagonal[..., a.k2 - k, :] if a.k1 != a.k2 else diagonal
        i = np.arange(n) + max(-k, 0)
        j = i + k
        out[..., i, j] = values[..., offset : offset + n]
    return out


# ---------------------------------------------------------------------------------------------
# trilu


def _trilu_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    _attrs(attrs, TriluAttrs)
    data, k = _two(arg_types, "data", "k")
    if len(data.shape) < 2:
        raise RelationError(f"expected data of rank at least 2, found rank {len(data.shape)}")
    if k.shape:
        raise RelationError(f"expected a rank-0 k, found rank {len(k.shape)} {_fmt(k.shape)}")
    if not _integer_dtype(k.dtype):
        raise RelationError(f"expected an integer dtype for k, found {k.dtype}")
    return data


def _trilu_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    data, k = args
    a = _attrs(attrs, TriluAttrs)
    _trilu_relation((_type_of(data), _type_of(k)), attrs)
    rows, cols = data.shape[-2], data.shape[-1]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = offset >= int(k) if a.upper else offset <= int(k)
    return np.where(keep, data, np.zeros((), dtype=data.dtype)).astype(data.dtype)


# ---------------------------------------------------------------------------------------------
# sliding_window


def _sliding_window_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
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


# ---------------------------------------------------------------------------------------------
# reverse_sequence


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
    a = _attrs(attrs, ReverseSequenceAttrs)
    data, _, _ = _reverse_sequence_axes(arg_types, a)
    return data


def _reverse_sequence_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
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


# ---------------------------------------------------------------------------------------------
# Records


def _op(
    name: str,
    inputs: tuple[str, ...],
    attrs_type: type[Attrs] | None,
    pattern: OpPattern,
    doc: str,
    relation_name: str,
    check: str,
) -> None:
    relation, reference = _RULES[name]
    register(
        OpDef(
            name,
            inputs,
            attrs_type,
            pattern,
            doc,
            relation=relation,
            reference=reference,
            relation_name=relation_name,
            family="transform",
            check=check,
        )
    )


_RULES = {
    "reverse": (_reverse_relation, _reverse_reference),
    "tile": (_tile_relation, _tile_reference),
    "repeat": (_repeat_relation, _repeat_reference),
    "layout_transform": (_layout_transform_relation, _layout_transform_reference),
    "reshape_like": (_reshape_like_relation, _reshape_like_reference),
    "broadcast_to_like": (_broadcast_to_like_relation, _broadcast_to_like_reference),
    "collapse_sum_like": (_collapse_sum_like_relation, _collapse_sum_like_reference),
    "slice_like": (_slice_like_relation, _slice_like_reference),
    "shape_of": (_shape_of_relation, _shape_of_reference),
    "ndarray_size": (_ndarray_size_relation, _ndarray_size_reference),
    "einsum": (_einsum_relation, _einsum_reference),
    "matrix_set_diag": (_matrix_set_diag_relation, _matrix_set_diag_reference),
    "trilu": (_trilu_relation, _trilu_reference),
    "sliding_window": (_sliding_window_relation, _sliding_window_reference),
    "reverse_sequence": (_reverse_sequence_relation, _reverse_sequence_reference),
}

_op(
    "reverse",
    ("data",),
    ReverseAttrs,
    OpPattern.INJECTIVE,
    "Reverse the order of the elements along an axis.",
    "Reverse",
    "independent:explicit loop reading data[n - 1 - i] for each output index",
)
_op(
    "tile",
    ("data",),
    TileAttrs,
    OpPattern.BROADCAST,
    "Repeat the whole tensor reps times along each axis.",
    "Tile",
    "onnxruntime:Tile",
)
_op(
    "repeat",
    ("data",),
    RepeatAttrs,
    OpPattern.BROADCAST,
    "Repeat each element repeats times along an axis.",
    "Repeat",
    "independent:explicit loop reading data[i // repeats] for each output index",
)
_op(
    "layout_transform",
    ("data",),
    LayoutTransformAttrs,
    OpPattern.INJECTIVE,
    "The same tensor in another data layout, such as NCHW to NCHW4c.",
    "layout_transform",
    "independent:explicit loop mapping each output index to its source index",
)
_op(
    "reshape_like",
    ("data", "shape_like"),
    ReshapeLikeAttrs,
    OpPattern.INJECTIVE,
    "Reshape data to a shape taken in part from shape_like's shape.",
    "ReshapeLike",
    "onnxruntime:Reshape",
)
_op(
    "broadcast_to_like",
    ("data", "broadcast_type"),
    None,
    OpPattern.BROADCAST,
    "Broadcast data to the shape of broadcast_type.",
    "BroadCastToLike",
    "onnxruntime:Expand",
)
_op(
    "collapse_sum_like",
    ("data", "collapse_type"),
    None,
    OpPattern.COMM_REDUCE,
    "Sum data down to the shape of collapse_type (the reverse of broadcasting).",
    "CollapseSumLike",
    "onnxruntime:ReduceSum",
)
_op(
    "slice_like",
    ("data", "shape_like"),
    SliceLikeAttrs,
    OpPattern.INJECTIVE,
    "Slice data from index 0 to the extents of shape_like on the given axes.",
    "SliceLike",
    "onnxruntime:Slice",
)
_op(
    "shape_of",
    ("data",),
    ShapeOfAttrs,
    OpPattern.OPAQUE,
    "The shape of data as a vector of the given dtype.",
    "ShapeOf",
    "onnxruntime:Shape",
)
_op(
    "ndarray_size",
    ("data",),
    NdarraySizeAttrs,
    OpPattern.INJECTIVE,
    "The number of elements of data as a scalar of the given dtype.",
    "NdarraySize",
    "onnxruntime:Size",
)
_op(
    "einsum",
    ("data",),
    EinsumAttrs,
    OpPattern.INJECTIVE,
    "Einstein summation over the tensors of the tuple data.",
    "Einsum",
    "onnxruntime:Einsum",
)
_op(
    "matrix_set_diag",
    ("input", "diagonal"),
    MatrixSetDiagAttrs,
    OpPattern.INJECTIVE,
    "Replace the diagonals k1 to k2 of the innermost matrices of input.",
    "MatrixSetDiag",
    "independent:explicit loop over (i, j) reading TensorFlow's aligned diagonal layout",
)
_op(
    "trilu",
    ("data", "k"),
    TriluAttrs,
    OpPattern.ELEMWISE,
    "Keep the upper or lower triangle (from diagonal k) of the innermost matrices.",
    "trilu",
    "onnxruntime:Trilu",
)
_op(
    "sliding_window",
    ("data",),
    SlidingWindowAttrs,
    OpPattern.OPAQUE,
    "Every window of window_shape, stepped by strides, over the axes from axis on.",
    "SlidingWindow",
    "independent:explicit loop reading data[i * stride + w] for each output index",
)
_op(
    "reverse_sequence",
    ("data", "seq_lengths"),
    ReverseSequenceAttrs,
    OpPattern.INJECTIVE,
    "Reverse the first seq_lengths[b] elements along seq_axis of each batch slice b.",
    "ReverseSequence",
    "onnxruntime:ReverseSequence",
)
