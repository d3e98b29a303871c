"""Gradient rules of ``semantics/ops/reduce.py``.

``g'`` is the cotangent with the reduced axes put back (length 1), ``N`` the number of
elements each output combines, ``y'`` the result likewise::

    sum: broadcast(g', x)                 mean: broadcast(g', x) / N
    max, min: g' / k where x == y', else 0 (k: how many elements tie for the extremum)
    prod: g' y' / x
    variance(x, m): (2 g' (x - m) / (N - unbiased), -sum of that down to m's shape)
    cumsum: reverse(cumsum(reverse(g)))   (exclusive: the exclusive scan)

At ties of ``max``/``min`` the tied elements share the cotangent equally (TVM gave each the
whole of it, which is wrong where the tie is structural: ``max`` of a broadcast value).
``prod`` divides by ``x`` (TVM's rule): at a zero element it is not defined.
``ZERO``: ``argmax``, ``argmin``, ``all``, ``any``.
"""

from __future__ import annotations

from .....semantics.syntax import Expr
from .common import (
    GradCall,
    GradRule,
    collapse_to,
    const,
    count,
    div,
    mul,
    neg,
    op,
    reduced_axes,
    restore_reduced,
    sub,
    where,
    zeros_like,
)


def _restored(c: GradCall, e: Expr) -> Expr:
    axes = reduced_axes(c.attr("axis"), c.attr("exclude"), c.rank(0))
    return op("broadcast_to_like", restore_reduced(e, axes, c.attr("keepdims")), c.arg(0))


def _sum(c: GradCall) -> tuple[Expr | None]:
    return (_restored(c, c.grad),)


def _mean(c: GradCall) -> tuple[Expr | None]:
    axes = reduced_axes(c.attr("axis"), c.attr("exclude"), c.rank(0))
    n = count(c.shape(0), axes)
    return (div(_restored(c, c.grad), const(n, c.dtype(0))),)


def _extremum(c: GradCall) -> tuple[Expr | None]:
    x, t = c.arg(0), c.dtype(0)
    hit = op("equal", x, _restored(c, c.out))
    ones = op("cast", hit, dtype=t)
    axes = reduced_axes(c.attr("axis"), c.attr("exclude"), c.rank(0))
    ties = _restored(c, restore_reduced(op("sum", ones, axis=axes), axes, False))
    return (where(hit, div(_restored(c, c.grad), ties), zeros_like(x)),)


def _prod(c: GradCall) -> tuple[Expr | None]:
    return (div(mul(_restored(c, c.grad), _restored(c, c.out)), c.arg(0)),)


def _variance(c: GradCall) -> tuple[Expr | None, Expr | None]:
    x, m = c.arg(0), c.arg(1)
    axes = reduced_axes(c.attr("axis"), c.attr("exclude"), c.rank(0))
    n = count(c.shape(0), axes) - int(bool(c.attr("unbiased")))
    scale = const(2 / n, c.dtype(0))
    dx = mul(mul(_restored(c, c.grad), sub(x, op("broadcast_to_like", m, x))), scale)
    return (dx if c.differentiable(0) else None,
            collapse_to(neg(dx), m) if c.differentiable(1) else None)  # fmt: skip


def _cumsum(c: GradCall) -> tuple[Expr | None]:
    if not c.differentiable(0) or not c.dtype().startswith("float"):
        return (None,)
    axis = c.attr("axis")
    g = c.grad
    if axis is None:  # the scan runs over the flattened data
        flat = op("reshape", g, newshape=(-1,))
        back = op("reverse", op("cumsum", op("reverse", flat, axis=0), axis=0,
                                exclusive=c.attr("exclusive")), axis=0)  # fmt: skip
        return (op("cast", op("reshape_like", back, c.arg(0)), dtype=c.dtype(0)),)
    rev = op("reverse", g, axis=axis)
    scan = op("cumsum", rev, axis=axis, exclusive=c.attr("exclusive"))
    return (op("cast", op("reverse", scan, axis=axis), dtype=c.dtype(0)),)


RULES: dict[str, GradRule] = {
    "sum": _sum,
    "mean": _mean,
    "max": _extremum,
    "min": _extremum,
    "prod": _prod,
    "variance": _variance,
    "cumsum": _cumsum,
}

ZERO: frozenset[str] = frozenset({"argmax", "argmin", "all", "any"})
