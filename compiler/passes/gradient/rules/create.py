"""Gradient rules of ``semantics/ops/create.py``.

    full_like(data, v): (none, sum(g))        full(v): sum(g)

A ``*_like`` result does not depend on ``data``'s values, only on its shape: ``ZERO`` holds
``zeros_like``, ``ones_like``, ``zeros``, ``ones`` and ``arange``.
"""

from __future__ import annotations

from .....semantics.syntax import Expr
from .common import GradCall, GradRule, op


def _fill(index: int, arity: int) -> GradRule:
    def rule(c: GradCall) -> list[Expr | None]:
        out: list[Expr | None] = [None] * arity
        if c.differentiable(index):
            out[index] = op("cast", op("sum", c.grad), dtype=c.dtype(index))
        return out

    return rule


RULES: dict[str, GradRule] = {"full_like": _fill(1, 2), "full": _fill(0, 1)}

ZERO: frozenset[str] = frozenset({"zeros_like", "ones_like", "zeros", "ones", "arange"})
