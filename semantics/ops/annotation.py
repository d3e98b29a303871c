"""Annotations: annotation.stop_fusion, on_device, device_copy: operators that mean the
identity and carry a hint for the compiler.

::

    annotation.stop_fusion(data)                                  Identity  opaque
    on_device(body, device_type=-1, virtual_device_id=-1, memory_scope="",
              constrain_result=False, constrain_body=True)       Identity  opaque
                                                  OnDeviceAttrs
    device_copy(data, src_dev_type=-1, src_virtual_device_id=-1, src_memory_scope="",
                dst_dev_type=-1, dst_virtual_device_id=-1, dst_memory_scope="")
                                                  DeviceCopyAttrs Identity  opaque

Names, argument names, relations and fusion patterns follow TVM 0.18
(``src/relay/op/annotation/annotation.cc``, ``src/relay/op/memory/on_device.cc``,
``device_copy.cc``). ``annotation.stop_fusion`` keeps the fusion pass from fusing its
argument into its consumers; ``on_device`` constrains where its body executes and stores
its result; ``device_copy`` moves a value from one device to another.

**Attributes.** TVM 0.18's ``OnDeviceAttrs`` and ``DeviceCopyAttrs`` hold ``VirtualDevice``
objects (a device type, a virtual device id, a target and a memory scope), which the text
format cannot write as attribute values. Here each virtual device is spelled out as flat
fields: its DLPack device type (``device_type``; ``src_dev_type``/``dst_dev_type`` for the
copy, the names TVM up to 0.8 used for the same integers), its virtual device id and its
memory scope; the target is left out (it is compilation configuration, not meaning). A device
type is ``-1`` (unconstrained, TVM's ``kInvalidDeviceType``) or one of DLPack's
``DLDeviceType`` codes: 1 cpu, 2 cuda, 3 cuda_host, 4 opencl, 7 vulkan, 8 metal, 9 vpi,
10 rocm, 11 rocm_host, 12 ext_dev, 13 cuda_managed, 14 oneapi, 15 webgpu, 16 hexagon. A
virtual device id is ``-1`` (unconstrained) or at least 0. A virtual device is *fully
unconstrained* when its device type and id are both ``-1`` and its memory scope is ``""``.

**Typing** (``Identity``): the result has the argument's type — for ``on_device`` and
``device_copy`` any type, as TVM's ``IdentityRel`` allowed (TVM placed closures, references,
ADT values and tuples of them); for ``annotation.stop_fusion`` a tensor or a tuple of
tensors — provided the attributes are valid: device types and ids as above; ``on_device``
with ``constrain_result`` or ``constrain_body`` set (``constrain_body`` is by default) must
name a device that is not fully unconstrained, and ``device_copy``'s source and destination
must both be constrained (TVM's ``OnDevice`` and ``DeviceCopy`` constructors check both).

**Meaning**: the identity on values. Placement is not observable in values, so every
annotation evaluates to its argument; nothing is undefined. The placements
(``PLACEMENTS``: ``on_device``, ``device_copy``) take any value, so the evaluation rules give
them their own rule, ``E-Call-Placement``; ``_identity`` is their meaning on the tensors an
operator's reference receives (what constant folding uses).

Deviation from TVM's ``IdentityRel``, which accepted any type: ``annotation.stop_fusion``'s
argument must be a tensor or a tuple of tensors, the values an operator can receive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..syntax import TupleType, Type
from .registry import (
    AttrKind,
    Attrs,
    OpInput,
    OpPattern,
    OpRegistrar,
    RelationError,
    Tensor,
    attr_field,
)
from .shapes import tensor_arg

DEVICE_TYPES: dict[int, str] = {
    -1: "unconstrained",
    1: "cpu",
    2: "cuda",
    3: "cuda_host",
    4: "opencl",
    7: "vulkan",
    8: "metal",
    9: "vpi",
    10: "rocm",
    11: "rocm_host",
    12: "ext_dev",
    13: "cuda_managed",
    14: "oneapi",
    15: "webgpu",
    16: "hexagon",
}
"""The device type codes an attribute may hold (-1 and DLPack's ``DLDeviceType``)."""


@dataclass(frozen=True, slots=True)
class OnDeviceAttrs(Attrs):
    """Attributes of ``on_device``: the virtual device, and what it constrains."""

    type_key: ClassVar[str] = "relay.attrs.OnDeviceAttrs"
    device_type: int = attr_field(
        AttrKind.INT, -1, doc="The DLPack device type of the virtual device (-1: unconstrained)."
    )
    virtual_device_id: int = attr_field(
        AttrKind.INT, -1, doc="The virtual device id (-1: unconstrained)."
    )
    memory_scope: str = attr_field(
        AttrKind.STR, "", doc='The memory scope of the virtual device ("": unconstrained).'
    )
    constrain_result: bool = attr_field(
        AttrKind.BOOL, False, doc="Whether the result of the call is on the virtual device."
    )
    constrain_body: bool = attr_field(
        AttrKind.BOOL, True, doc="Whether the body is executed and stored on the virtual device."
    )


@dataclass(frozen=True, slots=True)
class DeviceCopyAttrs(Attrs):
    """Attributes of ``device_copy``: the source and destination virtual devices."""

    type_key: ClassVar[str] = "relay.attrs.DeviceCopyAttrs"
    src_dev_type: int = attr_field(
        AttrKind.INT, -1, doc="The DLPack device type copied from (-1: unconstrained)."
    )
    src_virtual_device_id: int = attr_field(
        AttrKind.INT, -1, doc="The virtual device id copied from (-1: unconstrained)."
    )
    src_memory_scope: str = attr_field(
        AttrKind.STR, "", doc='The memory scope copied from ("": unconstrained).'
    )
    dst_dev_type: int = attr_field(
        AttrKind.INT, -1, doc="The DLPack device type copied to (-1: unconstrained)."
    )
    dst_virtual_device_id: int = attr_field(
        AttrKind.INT, -1, doc="The virtual device id copied to (-1: unconstrained)."
    )
    dst_memory_scope: str = attr_field(
        AttrKind.STR, "", doc='The memory scope copied to ("": unconstrained).'
    )


def _argument(arg_types: tuple[Type, ...], name: str) -> Type:
    """The one argument, a tensor or a tuple of tensors."""
    if len(arg_types) != 1:
        raise RelationError(f"expected 1 argument, found {len(arg_types)}")
    (t,) = arg_types
    if isinstance(t, TupleType):
        for i, f in enumerate(t.fields):
            tensor_arg(f, f"field {i} of {name}")
        return t
    return tensor_arg(t, name)


PLACEMENTS = frozenset({"on_device", "device_copy"})
"""The annotations that are the identity on any value, not only on tensors."""


def _any_argument(arg_types: tuple[Type, ...]) -> Type:
    """The one argument, of any type."""
    if len(arg_types) != 1:
        raise RelationError(f"expected 1 argument, found {len(arg_types)}")
    return arg_types[0]


def _check_device(type_name: str, device_type: int, id_name: str, device_id: int) -> None:
    """A device type in ``DEVICE_TYPES`` and a virtual device id of at least -1."""
    if device_type not in DEVICE_TYPES:
        codes = ", ".join(str(c) for c in DEVICE_TYPES)
        raise RelationError(
            f"{type_name}={device_type} is not a device type (expected one of {codes})"
        )
    if device_id < -1:
        raise RelationError(
            f"{id_name}={device_id} is not a virtual device id (expected -1 or at least 0)"
        )


def _unconstrained(device_type: int, virtual_device_id: int, memory_scope: str) -> bool:
    return device_type == -1 and virtual_device_id == -1 and memory_scope == ""


def _stop_fusion_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Identity``: the argument's type."""
    return _argument(arg_types, "data")


def _on_device_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Identity`` on any type, with valid ``OnDeviceAttrs``: a constraint needs a
    constrained device."""
    t = _any_argument(arg_types)
    a = attrs if attrs is not None else OnDeviceAttrs()
    if not isinstance(a, OnDeviceAttrs):
        raise RelationError(f"expected OnDeviceAttrs, found {type(a).__name__}")
    _check_device("device_type", a.device_type, "virtual_device_id", a.virtual_device_id)
    constrained = [k for k in ("constrain_result", "constrain_body") if getattr(a, k)]
    if constrained and _unconstrained(a.device_type, a.virtual_device_id, a.memory_scope):
        raise RelationError(
            f"on_device: {constrained[0]}=True needs a device, but device_type=-1, "
            'virtual_device_id=-1 and memory_scope="" leave it fully unconstrained'
        )
    return t


def _device_copy_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Identity`` on any type, with valid ``DeviceCopyAttrs``: both devices constrained."""
    t = _any_argument(arg_types)
    a = attrs if attrs is not None else DeviceCopyAttrs()
    if not isinstance(a, DeviceCopyAttrs):
        raise RelationError(f"expected DeviceCopyAttrs, found {type(a).__name__}")
    for side in ("src", "dst"):
        device_type = getattr(a, f"{side}_dev_type")
        device_id = getattr(a, f"{side}_virtual_device_id")
        _check_device(f"{side}_dev_type", device_type, f"{side}_virtual_device_id", device_id)
        if _unconstrained(device_type, device_id, getattr(a, f"{side}_memory_scope")):
            raise RelationError(
                f"device_copy: the {side} device is fully unconstrained ({side}_dev_type=-1, "
                f'{side}_virtual_device_id=-1, {side}_memory_scope=""); expected a device'
            )
    return t


def _identity(args: tuple[OpInput, ...], attrs: Attrs | None) -> Tensor | tuple[Tensor, ...]:
    """The argument itself: a tensor, or the tensors of a tuple (copied)."""
    (x,) = args
    if isinstance(x, tuple):
        return tuple(np.array(f, copy=True) for f in x)
    return np.array(x, copy=True)


_op = OpRegistrar(__name__, relation_name="Identity", inputs=("data",), pattern=OpPattern.OPAQUE)


_op(
    "annotation.stop_fusion",
    "The identity; the fusion pass does not fuse across it.",
    relation=_stop_fusion_relation,
    reference=_identity,
    check="independent:identity",
)


_op(
    "on_device",
    "The identity; constrains the body (or result) to a virtual device.",
    relation=_on_device_relation,
    reference=_identity,
    check="independent:identity",
    inputs=("body",),
    attrs_type=OnDeviceAttrs,
)


_op(
    "device_copy",
    "The identity; copies the value from the source to the destination device.",
    relation=_device_copy_relation,
    reference=_identity,
    check="independent:identity",
    attrs_type=DeviceCopyAttrs,
)
