"""Gradient rules of ``semantics/ops/elementwise.py``: ``y = f(x)``, ``dx = g * f'(x)``.

Each row is ``op: dx`` in terms of ``x`` (the argument), ``y`` (the result) and ``g`` (the
cotangent); constants have ``x``'s dtype::

    negative: -g             abs: g * sign(x)          exp, fast_exp: g * y
    log: g / x               log2: g / (x ln 2)        log10: g / (x ln 10)
    sqrt: g / (2 y)          rsqrt: -0.5 g y^3         tanh, fast_tanh: g (1 - y^2)
    sigmoid: g y (1 - y)     sin: g cos x              cos: -g sin x
    tan: g (1 + y^2)         asin: g / sqrt(1 - x^2)   acos: -g / sqrt(1 - x^2)
    atan: g / (1 + x^2)      sinh: g cosh x            cosh: g sinh x
    asinh: g / sqrt(x^2 + 1) acosh: g / sqrt(x^2 - 1)  atanh: g / (1 - x^2)
    erf, fast_erf: g 2/sqrt(pi) exp(-x^2)              copy: g
    clip: g where a_min <= x <= a_max, else 0          cast: cast(g, dtype of x)

``ZERO``: piecewise-constant and non-float results (``floor``, ``sign``, ``isnan``, ...).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .....semantics.syntax import Expr
from .common import GradCall, GradRule, add, const, div, mul, neg, op, sub, where, zeros_like

Unary = Callable[[Expr, Expr, Expr, str], Expr]
"""``(x, y, g, dtype) -> dx``."""


def unary(f: Unary) -> GradRule:
    """The rule of an elementwise operator of one argument whose derivative ``f`` gives."""

    def rule(c: GradCall) -> tuple[Expr | None]:
        return (f(c.arg(0), c.out, c.grad, c.dtype(0)),)

    rule.__doc__ = f.__doc__
    return rule


def _one_minus_square(v: Expr, t: str) -> Expr:
    return sub(const(1, t), mul(v, v))


def _erf(x: Expr, y: Expr, g: Expr, t: str) -> Expr:
    """dx = g 2/sqrt(pi) exp(-x^2)"""
    return mul(g, mul(const(2 / math.sqrt(math.pi), t), op("exp", neg(mul(x, x)))))


def _tanh(x: Expr, y: Expr, g: Expr, t: str) -> Expr:
    """dx = g (1 - y^2)"""
    return mul(g, _one_minus_square(y, t))


def _exp(x: Expr, y: Expr, g: Expr, t: str) -> Expr:
    """dx = g y"""
    return mul(g, y)


def _clip(c: GradCall) -> tuple[Expr | None]:
    """dx = g where a_min <= x <= a_max, else 0"""
    x, t = c.arg(0), c.dtype(0)
    lo = const(float(c.attr("a_min")), t)  # type: ignore[arg-type]
    hi = const(float(c.attr("a_max")), t)  # type: ignore[arg-type]
    inside = op("logical_and", op("greater_equal", x, lo), op("less_equal", x, hi))
    return (where(inside, c.grad, zeros_like(c.grad)),)


def _cast(c: GradCall) -> tuple[Expr | None]:
    """dx = cast(g, dtype of x) where both are floats; none otherwise"""
    if not (c.differentiable(0) and c.dtype().startswith("float")):
        return (None,)
    return (op("cast", c.grad, dtype=c.dtype(0)),)


RULES: dict[str, GradRule] = {
    "negative": unary(lambda x, y, g, t: neg(g)),
    "abs": unary(lambda x, y, g, t: mul(g, op("sign", x))),
    "exp": unary(_exp),
    "fast_exp": unary(_exp),
    "log": unary(lambda x, y, g, t: div(g, x)),
    "log2": unary(lambda x, y, g, t: div(g, mul(x, const(math.log(2), t)))),
    "log10": unary(lambda x, y, g, t: div(g, mul(x, const(math.log(10), t)))),
    "sqrt": unary(lambda x, y, g, t: div(g, mul(const(2, t), y))),
    "rsqrt": unary(lambda x, y, g, t: mul(mul(const(-0.5, t), g), mul(y, mul(y, y)))),
    "tanh": unary(_tanh),
    "fast_tanh": unary(_tanh),
    "sigmoid": unary(lambda x, y, g, t: mul(g, mul(y, sub(const(1, t), y)))),
    "sin": unary(lambda x, y, g, t: mul(g, op("cos", x))),
    "cos": unary(lambda x, y, g, t: neg(mul(g, op("sin", x)))),
    "tan": unary(lambda x, y, g, t: mul(g, add(const(1, t), mul(y, y)))),
    "asin": unary(lambda x, y, g, t: div(g, op("sqrt", _one_minus_square(x, t)))),
    "acos": unary(lambda x, y, g, t: neg(div(g, op("sqrt", _one_minus_square(x, t))))),
    "atan": unary(lambda x, y, g, t: div(g, add(const(1, t), mul(x, x)))),
    "sinh": unary(lambda x, y, g, t: mul(g, op("cosh", x))),
    "cosh": unary(lambda x, y, g, t: mul(g, op("sinh", x))),
    "asinh": unary(lambda x, y, g, t: div(g, op("sqrt", add(mul(x, x), const(1, t))))),
    "acosh": unary(lambda x, y, g, t: div(g, op("sqrt", sub(mul(x, x), const(1, t))))),
    "atanh": unary(lambda x, y, g, t: div(g, _one_minus_square(x, t))),
    "erf": unary(_erf),
    "fast_erf": unary(_erf),
    "copy": unary(lambda x, y, g, t: g),
    "clip": _clip,
    "cast": _cast,
}

ZERO: frozenset[str] = frozenset(
    {
        "floor",
        "ceil",
        "round",
        "trunc",
        "sign",
        "logical_not",
        "bitwise_not",
        "isnan",
        "isinf",
        "isfinite",
    }
)
