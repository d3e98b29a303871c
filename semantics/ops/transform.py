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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .registry import AttrKind, Attrs, OpDef, OpPattern, attr_field, register


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


register(
    OpDef(
        "reshape",
        ("data",),
        ReshapeAttrs,
        OpPattern.INJECTIVE,
        "The same elements in row-major order, in the shape newshape.",
    )
)
register(
    OpDef(
        "transpose",
        ("data",),
        TransposeAttrs,
        OpPattern.INJECTIVE,
        "Permute the axes of data.",
    )
)
register(
    OpDef(
        "concatenate",
        ("data",),
        ConcatenateAttrs,
        OpPattern.INJECTIVE,
        "Join the tensors of the tuple data along an existing axis.",
    )
)
register(
    OpDef(
        "stack",
        ("data",),
        StackAttrs,
        OpPattern.INJECTIVE,
        "Join the tensors of the tuple data along a new axis.",
    )
)
register(
    OpDef(
        "split",
        ("data",),
        SplitAttrs,
        OpPattern.INJECTIVE,
        "Split data along an axis into a tuple of tensors.",
    )
)
register(
    OpDef(
        "expand_dims",
        ("data",),
        ExpandDimsAttrs,
        OpPattern.BROADCAST,
        "Insert num_newaxis axes of extent one at axis.",
    )
)
register(
    OpDef(
        "squeeze",
        ("data",),
        SqueezeAttrs,
        OpPattern.INJECTIVE,
        "Remove axes of extent one.",
    )
)
register(
    OpDef(
        "take",
        ("data", "indices"),
        TakeAttrs,
        OpPattern.INJECTIVE,
        "Gather elements of data at indices along an axis.",
    )
)
register(
    OpDef(
        "strided_slice",
        ("data",),
        StridedSliceAttrs,
        OpPattern.INJECTIVE,
        "A strided slice of data, as in numpy's data[begin:end:stride].",
    )
)
register(
    OpDef(
        "broadcast_to",
        ("data",),
        InitOpAttrs,
        OpPattern.BROADCAST,
        "Broadcast data to the shape given by the shape attribute.",
    )
)
register(
    OpDef(
        "zeros",
        (),
        InitOpAttrs,
        OpPattern.ELEMWISE,
        "A tensor of the given shape and dtype filled with zeros.",
    )
)
register(
    OpDef(
        "ones",
        (),
        InitOpAttrs,
        OpPattern.ELEMWISE,
        "A tensor of the given shape and dtype filled with ones.",
    )
)
register(
    OpDef(
        "full",
        ("fill_value",),
        InitOpAttrs,
        OpPattern.ELEMWISE,
        "A tensor of the given shape filled with the scalar fill_value.",
    )
)
