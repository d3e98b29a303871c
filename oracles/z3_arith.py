"""Z3 encodings of the type relations of the ``arith`` operator group.

The group is ``ops.arith`` (more elementwise operators), ``ops.scan`` (``variance``, ``all``,
``any``, ``cumsum``, ``cumprod``) and ``ops.annotation`` (``annotation.stop_fusion``,
``on_device``, ``device_copy``). Each encoding is written from TVM 0.18's relation
(``IdentityRel``, ``IdentityCompRel``, ``BroadcastRel``, ``CastRel`` as ``Reinterpret``,
``VarianceRel``, ``ReduceRel``, ``ScanopRel``) and the deviations those modules document,
independently of their relation functions; its docstring states its rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.annotation import DeviceCopyAttrs, OnDeviceAttrs
from relay.semantics.ops.elementwise import CastAttrs
from relay.semantics.ops.reduce import ReduceAttrs, ScanopAttrs, VarianceAttrs
from relay.semantics.ops.registry import Attrs

from .z3_relations import (
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    Shape,
    TensorArg,
    TupleArg,
    _attrs,
    _axis,
    _broadcast,
    _reduce_axes,
    _reduce_shape,
    _same_dtypes,
    _tensor,
    product,
    well_typed,
)

_BITS = {
    "bool": 1,
    **{f"{kind}{bits}": bits for kind in ("int", "uint", "float") for bits in (8, 16, 32, 64)},
}
"""The bit width of each dtype (float8 and friends are not Relay dtypes and never occur)."""


def _dtype_ok(dtype: str, kind: str) -> bool:
    """``kind``: "any", "float", "bool", "integer" (signed or unsigned, not bool), or
    "signed_or_float"."""
    if kind == "float":
        return dtype.startswith("float")
    if kind == "bool":
        return dtype == "bool"
    if kind == "integer":
        return dtype.startswith(("int", "uint"))
    if kind == "signed_or_float":
        return dtype.startswith(("int", "float"))
    return True


def _unary(kind: str, result_dtype: str | None = None) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """IdentityRel (or IdentityCompRel with a bool result): out has data's shape; data's
        dtype must be of the op's kind."""
        if len(args) != 1:
            raise IllTyped(f"expected one argument, found {len(args)}")
        data = _tensor(args, 0)
        if not _dtype_ok(data.dtype, kind):
            raise IllTyped(f"data must be {kind}, found {data.dtype}")
        return well_typed([data.shape], dtypes=[result_dtype or data.dtype])

    return encode


def _binary(kind: str) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """BroadcastRel: lhs and rhs share a dtype of the op's kind; shapes broadcast."""
        if len(args) != 2:
            raise IllTyped(f"expected two arguments, found {len(args)}")
        lhs, rhs = _tensor(args, 0), _tensor(args, 1)
        dtype = _same_dtypes([lhs.dtype, rhs.dtype], "lhs and rhs")
        if not _dtype_ok(dtype, kind):
            raise IllTyped(f"lhs and rhs must be {kind}, found {dtype}")
        out, cons = _broadcast(lhs.shape, rhs.shape)
        return well_typed([out], cons, [dtype])

    return encode


def _reinterpret(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """CastRel (as Reinterpret): out has data's shape and the dtype attribute, which is given
    and as wide in bits as data's dtype."""
    data = _tensor(args, 0)
    dtype = _attrs(attrs, CastAttrs).dtype
    if not dtype:
        raise IllTyped("reinterpret needs a dtype")
    if _BITS[dtype] != _BITS[data.dtype]:
        raise IllTyped(f"{data.dtype} and {dtype} differ in width")
    return well_typed([data.shape], dtypes=[dtype])


# ---------------------------------------------------------------------------------------------
# Reductions and scans


def _variance(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """VarianceRel: float data of rank >= 1; mean of data's dtype and rank, each size equal
    to data's or 1; out = the reduced shape, data's dtype."""
    if len(args) != 2:
        raise IllTyped(f"expected data and mean, found {len(args)} arguments")
    data, mean = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, VarianceAttrs)
    ndim = len(data.shape)
    if ndim == 0 or not data.dtype.startswith("float"):
        raise IllTyped("variance needs float data of rank >= 1")
    if mean.dtype != data.dtype or len(mean.shape) != ndim:
        raise IllTyped("mean must have data's dtype and rank")
    cons: list[Cond] = [z3.Or(m == d, m == 1) for m, d in zip(mean.shape, data.shape, strict=True)]
    axes = _reduce_axes(ndim, a.axis, a.exclude)
    return well_typed([_reduce_shape(data.shape, axes, a.keepdims)], cons, [data.dtype])


def _bool_reduce(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ReduceRel on bool data: reduced axes dropped (kept as 1 with keepdims)."""
    data = _tensor(args, 0)
    a = _attrs(attrs, ReduceAttrs)
    if data.dtype != "bool":
        raise IllTyped(f"all/any need bool, found {data.dtype}")
    axes = _reduce_axes(len(data.shape), a.axis, a.exclude)
    return well_typed([_reduce_shape(data.shape, axes, a.keepdims)], dtypes=["bool"])


def _scanop(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ScanopRel: rank >= 1; with an axis (in range) out = data's shape, without one out =
    (product of data's sizes,); dtype the attribute's, or data's when empty."""
    data = _tensor(args, 0)
    a = _attrs(attrs, ScanopAttrs)
    if not data.shape:
        raise IllTyped("cumsum/cumprod need rank >= 1")
    dtype = a.dtype or data.dtype
    if a.axis is None:
        out: Shape = [product(data.shape)]
    else:
        _axis(a.axis, len(data.shape))
        out = list(data.shape)
    return well_typed([out], dtypes=[dtype])


# ---------------------------------------------------------------------------------------------
# Annotations

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


# ---------------------------------------------------------------------------------------------
# The table

_FLOAT_UNARY = (
    *("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh"),
    *("atanh", "erf", "log2", "log10", "fast_exp", "fast_tanh", "fast_erf"),
)

RULES: dict[str, Encoding] = {
    **{name: _unary("float") for name in _FLOAT_UNARY},
    "trunc": _unary("any"),
    "copy": _unary("any"),
    "sign": _unary("signed_or_float"),
    "bitwise_not": _unary("integer"),
    **{name: _unary("any", "bool") for name in ("isnan", "isinf", "isfinite")},
    **{
        name: _binary("integer")
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
    },
    "logical_xor": _binary("bool"),
    "trunc_divide": _binary("any"),
    "trunc_mod": _binary("any"),
    "reinterpret": _reinterpret,
    "variance": _variance,
    "all": _bool_reduce,
    "any": _bool_reduce,
    "cumsum": _scanop,
    "cumprod": _scanop,
    "annotation.stop_fusion": _stop_fusion,
    "on_device": _on_device,
    "device_copy": _device_copy,
}
"""The encodings of this group's operators, by name (merged into ``Z3_ENCODINGS``)."""

__all__ = ["RULES"]
