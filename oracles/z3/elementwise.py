"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.elementwise``.

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

from relay.semantics.ops.elementwise import CastAttrs
from relay.semantics.ops.registry import Attrs

from .core import (
    Arg,
    Encoded,
    Encoding,
    IllTyped,
    _attrs,
    _dtype_ok,
    _identity,
    _kind,
    _tensor,
    well_typed,
)


def _unary(kind: str | None) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """IdentityRel: out = data; float math needs a float, logical_not a bool."""
        data = _tensor(args, 0)
        _kind(data.dtype, kind, "data")
        return well_typed([data.shape], dtypes=[data.dtype])

    return encode


def _cast(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """CastRel: out has data's shape and the dtype attribute."""
    data = _tensor(args, 0)
    return well_typed([data.shape], dtypes=[_attrs(attrs, CastAttrs).dtype])


_FLOAT_UNARY = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid")


_BITS = {
    "bool": 1,
    **{f"{kind}{bits}": bits for kind in ("int", "uint", "float") for bits in (8, 16, 32, 64)},
}
"""The bit width of each dtype (float8 and friends are not Relay dtypes and never occur)."""


def _unary_arith(kind: str, result_dtype: str | None = None) -> Encoding:
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


_FLOAT_UNARY_arith = (
    *("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh"),
    *("atanh", "erf", "log2", "log10", "fast_exp", "fast_tanh", "fast_erf"),
)


RULES: dict[str, Encoding] = {
    **{name: _identity for name in ("negative", "abs", "floor", "ceil", "round", "clip")},
    **{name: _unary("float") for name in _FLOAT_UNARY},
    "logical_not": _unary("bool"),
    "cast": _cast,
    **{name: _unary_arith("float") for name in _FLOAT_UNARY_arith},
    "trunc": _unary_arith("any"),
    "copy": _unary_arith("any"),
    "sign": _unary_arith("signed_or_float"),
    "bitwise_not": _unary_arith("integer"),
    **{name: _unary_arith("any", "bool") for name in ("isnan", "isinf", "isfinite")},
    "reinterpret": _reinterpret,
}
"""This module's entries, by op name."""
