"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.broadcast``.

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

from relay.semantics.ops.registry import Attrs

from .core import (
    Arg,
    Encoded,
    Encoding,
    IllTyped,
    _broadcast,
    _dtype_ok,
    _kind,
    _same_dtypes,
    _tensor,
    well_typed,
)


def _binary(result_dtype: str | None, kind: str | None = None) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """BroadcastRel: lhs and rhs dtypes equal (float for power, bool for the logical
        ops); shapes broadcast; out dtype lhs's (or bool for comparisons)."""
        lhs, rhs = _tensor(args, 0), _tensor(args, 1)
        dtype = _same_dtypes([lhs.dtype, rhs.dtype], "lhs and rhs")
        _kind(dtype, kind, "lhs and rhs")
        out, cons = _broadcast(lhs.shape, rhs.shape)
        return well_typed([out], cons, [result_dtype or dtype])

    return encode


def _where(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """WhereRel: x and y dtypes equal; condition, x and y broadcast together; out dtype x's."""
    cond, x, y = _tensor(args, 0), _tensor(args, 1), _tensor(args, 2)
    dtype = _same_dtypes([x.dtype, y.dtype], "x and y")
    xy, c1 = _broadcast(x.shape, y.shape)
    out, c2 = _broadcast(cond.shape, xy)
    return well_typed([out], c1 + c2, [dtype])


_ARITHMETIC = (
    *("add", "subtract", "multiply", "divide", "floor_divide", "mod", "floor_mod"),
    *("maximum", "minimum"),
)


_COMPARISON = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")


def _binary_arith(kind: str) -> Encoding:
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


RULES: dict[str, Encoding] = {
    **{name: _binary(None) for name in _ARITHMETIC},
    "power": _binary(None, "float"),
    "logical_and": _binary(None, "bool"),
    "logical_or": _binary(None, "bool"),
    **{name: _binary("bool") for name in _COMPARISON},
    "where": _where,
    **{
        name: _binary_arith("integer")
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
    },
    "logical_xor": _binary_arith("bool"),
    "trunc_divide": _binary_arith("any"),
    "trunc_mod": _binary_arith("any"),
}
"""This module's entries, by op name."""
