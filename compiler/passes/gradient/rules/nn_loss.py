"""Gradient rules of ``semantics/ops/nn/loss.py``::

nn.cross_entropy(x, y) = -sum(log(x) y) / N:   (-g y / (x N), -g log(x) / N)
"""

from __future__ import annotations

from .....semantics.syntax import Expr
from .common import GradCall, GradRule, const, div, mul, neg, op


def _cross_entropy(c: GradCall) -> tuple[Expr | None, Expr | None]:
    x, y, t = c.arg(0), c.arg(1), c.dtype(0)
    n = const(c.shape(0)[0], t)
    g = op("broadcast_to_like", c.grad, x)
    return (neg(div(mul(g, y), mul(x, n))), neg(div(mul(g, op("log", x)), n)))


RULES: dict[str, GradRule] = {"nn.cross_entropy": _cross_entropy}
