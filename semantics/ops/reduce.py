"""Reductions: over the axes named by ``axis`` (all axes when ``None``), or the others.

::

    sum | mean | max | min | prod(data, axis=None, keepdims=False, exclude=False)
                                                                ReduceAttrs     comm_reduce
    argmax | argmin(data, axis=None, keepdims=False, select_last_index=False, exclude=False)
                                                                ArgReduceAttrs  comm_reduce

Attribute fields and fusion patterns follow TVM 0.18 (``include/tvm/relay/attrs/reduce.h``,
``src/relay/op/tensor/reduce.cc``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .registry import AttrKind, Attrs, OpDef, OpPattern, attr_field, register


@dataclass(frozen=True, slots=True)
class ReduceAttrs(Attrs):
    """Attributes of the value reductions (``sum``, ``mean``, ``max``, ``min``, ``prod``)."""

    type_key: ClassVar[str] = "relay.attrs.ReduceAttrs"
    axis: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc="The axes to reduce; None reduces all axes."
    )
    keepdims: bool = attr_field(
        AttrKind.BOOL, False, doc="Keep each reduced axis in the result with extent one."
    )
    exclude: bool = attr_field(
        AttrKind.BOOL, False, doc="Reduce over the axes not in axis instead."
    )


@dataclass(frozen=True, slots=True)
class ArgReduceAttrs(Attrs):
    """Attributes of the index reductions (``argmax``, ``argmin``)."""

    type_key: ClassVar[str] = "relay.attrs.ArgReduceAttrs"
    axis: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc="The axes to reduce; None reduces all axes."
    )
    keepdims: bool = attr_field(
        AttrKind.BOOL, False, doc="Keep each reduced axis in the result with extent one."
    )
    select_last_index: bool = attr_field(
        AttrKind.BOOL, False, doc="On ties, select the last index rather than the first."
    )
    exclude: bool = attr_field(
        AttrKind.BOOL, False, doc="Reduce over the axes not in axis instead."
    )


_REDUCTIONS: tuple[tuple[str, type[Attrs], str], ...] = (
    ("sum", ReduceAttrs, "Sum of the elements over the reduced axes."),
    ("mean", ReduceAttrs, "Arithmetic mean of the elements over the reduced axes."),
    ("max", ReduceAttrs, "Maximum of the elements over the reduced axes."),
    ("min", ReduceAttrs, "Minimum of the elements over the reduced axes."),
    ("prod", ReduceAttrs, "Product of the elements over the reduced axes."),
    ("argmax", ArgReduceAttrs, "Index of the maximum over the reduced axes (int32)."),
    ("argmin", ArgReduceAttrs, "Index of the minimum over the reduced axes (int32)."),
)
"""Every reduction: one input ``data``, pattern comm_reduce (argmax and argmin too, in TVM)."""

for _name, _attrs_type, _doc in _REDUCTIONS:
    register(OpDef(_name, ("data",), _attrs_type, OpPattern.COMM_REDUCE, _doc))
