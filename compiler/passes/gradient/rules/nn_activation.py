"""Gradient rules of ``semantics/ops/nn/activation.py``::

    nn.relu: g where x > 0, else 0         nn.leaky_relu(alpha): g where x > 0, else alpha g
    nn.prelu(x, a, axis): (g where x > 0 else a g, sum of g x where x <= 0 over all but axis)
    nn.softmax, nn.fast_softmax: (g - sum(g y, axis, keepdims)) y
    nn.log_softmax: g - exp(y) sum(g, axis, keepdims)

At ``x = 0`` ``relu`` takes the derivative 0 (a subgradient); the AD oracle skips such points.
"""

from __future__ import annotations

from .....semantics.syntax import Expr
from .common import GradCall, GradRule, const, mul, op, sub, where, zeros_like


def _relu(c: GradCall) -> tuple[Expr | None]:
    x = c.arg(0)
    positive = op("greater", x, const(0, c.dtype(0)))
    return (where(positive, c.grad, zeros_like(c.grad)),)


def _leaky_relu(c: GradCall) -> tuple[Expr | None]:
    x, t = c.arg(0), c.dtype(0)
    alpha = const(float(c.attr("alpha")), t)  # type: ignore[arg-type]
    return (where(op("greater", x, const(0, t)), c.grad, mul(alpha, c.grad)),)


def _prelu(c: GradCall) -> tuple[Expr | None, Expr | None]:
    x, alpha, t = c.arg(0), c.arg(1), c.dtype(0)
    rank = c.rank(0)
    axis = int(c.attr("axis")) % rank  # type: ignore[arg-type]
    trailing = rank - 1 - axis
    wide = op("expand_dims", alpha, axis=1, num_newaxis=trailing) if trailing else alpha
    positive = op("greater", x, const(0, t))
    zero = zeros_like(c.grad)
    dx = where(positive, c.grad, mul(wide, c.grad))
    da = op("sum", where(positive, zero, mul(c.grad, x)), axis=(axis,), exclude=True)
    return (dx, da)


def _softmax(c: GradCall) -> tuple[Expr | None]:
    axis = c.attr("axis")
    y, g = c.out, c.grad
    return (mul(sub(g, op("sum", mul(g, y), axis=(axis,), keepdims=True)), y),)


def _log_softmax(c: GradCall) -> tuple[Expr | None]:
    axis = c.attr("axis")
    y, g = c.out, c.grad
    return (sub(g, mul(op("exp", y), op("sum", g, axis=(axis,), keepdims=True))),)


RULES: dict[str, GradRule] = {
    "nn.relu": _relu,
    "nn.leaky_relu": _leaky_relu,
    "nn.prelu": _prelu,
    "nn.softmax": _softmax,
    "nn.fast_softmax": _softmax,
    "nn.log_softmax": _log_softmax,
}
