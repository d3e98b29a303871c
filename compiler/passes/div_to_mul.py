"""DivToMul: replace division by a float constant with multiplication by its reciprocal.

Pre: well-typed. Post: every ``divide(x, c)`` where ``c`` is a float constant whose elements
are non-zero and whose reciprocals are finite and non-zero in ``c``'s dtype becomes
``multiply(x, 1 / c)``, the reciprocal computed in ``c``'s dtype. This is not exact: ``x / c``
and ``x * (1 / c)`` can differ in the last place, which the comparison tolerance allows (TVM's
pass made the same trade). Integer division, and constants whose reciprocal would overflow
or underflow, are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...semantics.syntax import Call, Constant, Expr, IRModule, Op
from ..ir import rewrite_module
from ..pass_manager import Pass, register_pass


def reciprocal(c: Constant) -> Constant | None:
    """``1 / c`` when it is safe to multiply by (see the module docstring), else ``None``."""
    data = c.data
    if data.dtype.kind != "f" or data.size == 0 or np.any(data == 0):
        return None
    with np.errstate(all="ignore"):
        inv = (np.ones((), data.dtype) / data).astype(data.dtype)
    if not np.all(np.isfinite(inv)) or np.any(inv == 0):
        return None
    if np.any(np.abs(inv) < np.finfo(inv.dtype.type).tiny):  # subnormal: precision lost
        return None
    return Constant(inv, span=c.span)


def rewrite_division(e: Expr) -> Expr | None:
    if not (isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "divide"):
        return None
    lhs, rhs = e.args
    if not isinstance(rhs, Constant):
        return None
    inv = reciprocal(rhs)
    if inv is None:
        return None
    return Call(Op("multiply"), (lhs, inv), None, span=e.span)


@register_pass
@dataclass(frozen=True)
class DivToMul(Pass):
    """``divide(x, c)`` to ``multiply(x, 1/c)`` for float constants ``c``.

    Pre: well-typed. Post: same types; values equal within the float tolerance.
    """

    opt_level = 0
    focus_ops = frozenset({"divide"})

    def transform(self, mod: IRModule) -> IRModule:
        return rewrite_module(mod, rewrite_division)
