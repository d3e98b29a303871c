"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.annotation``.

From the former ``z3_arith`` module:

Z3 encodings of the type relations of the ``arith`` operator group.

The group is ``ops.arith`` (more elementwise operators), ``ops.scan`` (``variance``, ``all``,
``any``, ``cumsum``, ``cumprod``) and ``ops.annotation`` (``annotation.stop_fusion``,
``on_device``, ``device_copy``). Each encoding is written from TVM 0.18's relation
(``IdentityRel``, ``IdentityCompRel``, ``BroadcastRel``, ``CastRel`` as ``Reinterpret``,
``VarianceRel``, ``ReduceRel``, ``ScanopRel``) and the deviations those modules document,
independently of their relation functions; its docstring states its rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from relay.semantics.ops.annotation import DeviceCopyAttrs, OnDeviceAttrs
from relay.semantics.ops.registry import Attrs

from .core import Arg, Encoded, Encoding, IllTyped, TensorArg, TupleArg, _attrs, well_typed

_DEVICE_CODES = frozenset({-1, 1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})


def _device(device_type: int, device_id: int, memory_scope: str, needed: bool) -> None:
    """A device type code of DLPack (or -1), an id >= -1; if ``needed``, not all unset."""
    if device_type not in _DEVICE_CODES or device_id < -1:
        raise IllTyped(f"invalid virtual device ({device_type}, {device_id})")
    if needed and device_type == -1 and device_id == -1 and not memory_scope:
        raise IllTyped("a constrained virtual device is fully unconstrained")


def _identity_value(args: Sequence[Arg]) -> Encoded:
    """The argument's type: a tensor, or a tuple of tensors (one output per field)."""
    if len(args) != 1:
        raise IllTyped(f"expected one argument, found {len(args)}")
    a = args[0]
    if isinstance(a, TupleArg):
        return well_typed(
            [f.shape for f in a.fields], dtypes=[f.dtype for f in a.fields], tuple_output=True
        )
    assert isinstance(a, TensorArg)
    return well_typed([a.shape], dtypes=[a.dtype])


def _stop_fusion(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """IdentityRel: out = the argument."""
    return _identity_value(args)


def _on_device(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """IdentityRel with valid OnDeviceAttrs: a constraint flag needs a constrained device."""
    a = _attrs(attrs, OnDeviceAttrs)
    _device(
        a.device_type,
        a.virtual_device_id,
        a.memory_scope,
        a.constrain_result or a.constrain_body,
    )
    return _identity_value(args)


def _device_copy(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """IdentityRel with valid DeviceCopyAttrs: source and destination both constrained."""
    a = _attrs(attrs, DeviceCopyAttrs)
    _device(a.src_dev_type, a.src_virtual_device_id, a.src_memory_scope, True)
    _device(a.dst_dev_type, a.dst_virtual_device_id, a.dst_memory_scope, True)
    return _identity_value(args)


RULES: dict[str, Encoding] = {
    "annotation.stop_fusion": _stop_fusion,
    "on_device": _on_device,
    "device_copy": _device_copy,
}
"""This module's entries, by op name."""
