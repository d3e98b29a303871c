"""Gradient rules of ``semantics/ops/broadcast.py``: binary operators that broadcast.

Each contribution is computed at the broadcast shape and then summed back to its argument's
shape (``collapse_sum_like``), the reverse of broadcasting::

    add: (g, g)                  subtract: (g, -g)          multiply: (g b, g a)
    divide: (g / b, -g a / b^2)  power: (g b a^(b-1), g log(a) a^b)
    maximum: (g where a >= b, g where a < b)   minimum: (g where a <= b, g where a > b)
    mod, trunc_mod: (g, -g trunc(a / b))       floor_mod: (g, -g floor(a / b))
    where(c, a, b): (none, g where c, g where not c)

At a tie of ``maximum``/``minimum`` the whole cotangent goes to ``a`` (a subgradient).
``ZERO``: comparisons, logical and bitwise operators, shifts, the integer-valued divisions.
"""

from __future__ import annotations

from collections.abc import Callable

from .....semantics.syntax import Expr
from .common import (
    GradCall,
    GradRule,
    div,
    mul,
    neg,
    op,
    where,
    zeros_like,
)

Binary = Callable[[Expr, Expr, Expr, Expr], tuple[Expr, Expr]]
"""``(a, b, y, g) -> (da, db)`` at the broadcast shape."""


def binary(f: Binary) -> GradRule:
    """The rule of a broadcasting binary operator whose partial derivatives ``f`` gives."""

    def rule(c: GradCall) -> tuple[Expr | None, Expr | None]:
        a, b = c.arg(0), c.arg(1)
        da, db = f(a, b, c.out, c.grad)
        return (
            c.collapse(da, 0) if c.differentiable(0) else None,
            c.collapse(db, 1) if c.differentiable(1) else None,
        )

    return rule


def _select(cmp: str, other: str) -> Binary:
    def f(a: Expr, b: Expr, y: Expr, g: Expr) -> tuple[Expr, Expr]:
        zero = zeros_like(g)
        return where(op(cmp, a, b), g, zero), where(op(other, a, b), g, zero)

    return f


def _mod(rounding: str) -> Binary:
    def f(a: Expr, b: Expr, y: Expr, g: Expr) -> tuple[Expr, Expr]:
        return g, neg(mul(g, op(rounding, div(a, b))))

    return f


def _power(a: Expr, b: Expr, y: Expr, g: Expr) -> tuple[Expr, Expr]:
    one = op("ones_like", b)
    return (
        mul(g, mul(b, op("power", a, op("subtract", b, one)))),
        mul(g, mul(op("log", a), y)),
    )


def _where(c: GradCall) -> tuple[Expr | None, Expr | None, Expr | None]:
    cond = c.arg(0)
    zero = zeros_like(c.grad)
    return (
        None,
        c.collapse(where(cond, c.grad, zero), 1) if c.differentiable(1) else None,
        c.collapse(where(cond, zero, c.grad), 2) if c.differentiable(2) else None,
    )


RULES: dict[str, GradRule] = {
    "add": binary(lambda a, b, y, g: (g, g)),
    "subtract": binary(lambda a, b, y, g: (g, neg(g))),
    "multiply": binary(lambda a, b, y, g: (mul(g, b), mul(g, a))),
    "divide": binary(lambda a, b, y, g: (div(g, b), neg(div(mul(g, a), mul(b, b))))),
    "power": binary(_power),
    "maximum": binary(_select("greater_equal", "less")),
    "minimum": binary(_select("less_equal", "greater")),
    "mod": binary(_mod("trunc")),
    "trunc_mod": binary(_mod("trunc")),
    "floor_mod": binary(_mod("floor")),
    "where": _where,
}

ZERO: frozenset[str] = frozenset(
    {
        "floor_divide",
        "trunc_divide",
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
        "logical_and",
        "logical_or",
        "logical_xor",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "left_shift",
        "right_shift",
    }
)
