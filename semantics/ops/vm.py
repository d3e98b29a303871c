"""VM primitives: vm.shape_of and vm.reshape_tensor, the operators TVM's VM compilation
(``ManifestAlloc``) writes for dynamic shapes, which its printed programs contain.

::

    vm.shape_of(tensor, dtype="")                        ShapeOfAttrs          opaque
    vm.reshape_tensor(data, shape, newshape=)            ReshapeTensorAttrs    opaque

Names, argument names, attributes type keys and fusion patterns follow TVM 0.18's
``src/relay/op/vm/vm.cc``; each operator's typing and meaning are on its relation's and
reference's docstrings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import RelayRuntimeError
from ..syntax import TensorType, Type, is_dtype
from .nn.common import _attrs, _shape_str
from .registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    Tensor,
    attr_field,
    tensor_reference,
)
from .shape import ShapeOfAttrs
from .shapes import dims_equal, prod_dims, tensor_arg


@dataclass(frozen=True, slots=True)
class ReshapeTensorAttrs(Attrs):
    """Attributes of ``vm.reshape_tensor``: the static result shape."""

    type_key: ClassVar[str] = "relay.attrs.ReshapeTensorAttrs"
    newshape: tuple[int, ...] = attr_field(
        AttrKind.INTS, doc="The result shape, which the shape argument holds at run time."
    )


def _show(t: TensorType) -> str:
    return f"Tensor[{_shape_str(t.shape)}, {t.dtype}]"


def _shape_of_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """ShapeOf (TVM's ``ShapeOfRel``, shared with ``shape_of``): a tensor of rank r gives a
    vector ``Tensor[(r,), dtype]``. dtype must be set: TVM's attributes default to void and its
    builder ``relay.op.vm.shape_of`` sets int64, which the printer writes."""
    a = _attrs(attrs, ShapeOfAttrs)
    data = tensor_arg(arg_types[0], "tensor")
    if not is_dtype(a.dtype):
        raise RelationError(f'expected a dtype attribute, found dtype="{a.dtype}"')
    return TensorType((len(data.shape),), a.dtype)


def _shape_of_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """The argument's run-time shape, one element per axis, in dtype (the VM's ``ShapeOf``
    instruction). A dtype too narrow for an extent wraps, as TVM's cast of it does (a
    tensor with such an extent cannot be built here)."""
    (tensor,) = args
    a = _attrs(attrs, ShapeOfAttrs)
    return np.array(tensor.shape, dtype=np.int64).astype(a.dtype)


def _reshape_tensor_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """ReshapeTensor (TVM's ``ReshapeTensorRel``): the result is ``Tensor[newshape,
    data.dtype]``. TVM checked nothing else; here, as the VM's ``ReshapeTensor`` instruction
    needs at run time, ``shape`` must be a vector ``Tensor[(len(newshape),), int64]``,
    newshape's extents non-negative, and data's element count, where it is known, equal to
    newshape's."""
    a = _attrs(attrs, ReshapeTensorAttrs)
    data = tensor_arg(arg_types[0], "data")
    shape = tensor_arg(arg_types[1], "shape")
    if any(d < 0 for d in a.newshape):
        raise RelationError(f"newshape must be non-negative, found {list(a.newshape)}")
    if (
        len(shape.shape) != 1
        or dims_equal(shape.shape[0], len(a.newshape)) is False
        or shape.dtype != "int64"
    ):
        raise RelationError(
            f"expected the shape argument Tensor[({len(a.newshape)},), int64] for "
            f"newshape={list(a.newshape)}, found {_show(shape)}"
        )
    count = prod_dims(data.shape)
    if dims_equal(count, prod_dims(a.newshape)) is False:
        raise RelationError(
            f"cannot reshape {_show(data)} of {count} elements to newshape={list(a.newshape)}"
        )
    return TensorType(a.newshape, data.dtype)


def _reshape_tensor_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """data's elements in row-major order, in the shape newshape. ``RelayRuntimeError`` when
    the shape argument's values differ from newshape (the VM reshapes to the argument, the
    type promised newshape) or, for data whose type left its extents open, when the element
    counts differ."""
    data, shape = args
    a = _attrs(attrs, ReshapeTensorAttrs)
    if shape.tolist() != list(a.newshape):
        raise RelayRuntimeError(
            f"vm.reshape_tensor: the shape argument holds {shape.tolist()}, but the type "
            f"says newshape={list(a.newshape)}"
        )
    if data.size != int(np.prod(a.newshape, dtype=np.int64)):
        raise RelayRuntimeError(
            f"vm.reshape_tensor: cannot reshape {data.size} elements to {list(a.newshape)}"
        )
    return data.reshape(a.newshape).copy()


_op = OpRegistrar(__name__, pattern=OpPattern.OPAQUE)


_op(
    "vm.shape_of",
    "The shape of a tensor as a vector of the given dtype (the VM's ShapeOf).",
    relation=_shape_of_relation,
    reference=tensor_reference(_shape_of_reference),
    check="independent:the extents written in the argument's type",
    relation_name="ShapeOf",
    inputs=("tensor",),
    attrs_type=ShapeOfAttrs,
)


_op(
    "vm.reshape_tensor",
    "data reshaped to newshape, which the shape argument holds (the VM's ReshapeTensor).",
    relation=_reshape_tensor_relation,
    reference=tensor_reference(_reshape_tensor_reference),
    check="independent:element-by-element copy in row-major order",
    relation_name="ReshapeTensor",
    inputs=("data", "shape"),
    attrs_type=ReshapeTensorAttrs,
)
