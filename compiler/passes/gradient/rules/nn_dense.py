"""Gradient rules of ``semantics/ops/nn/dense.py``. With ``A``, ``B`` the operands as the
product uses them (transposed where the attributes say)::

    nn.dense(x, w) = x w^T:   (g w, g^T x)   (leading axes of x flattened for the weight)
    nn.matmul, nn.batch_matmul = A B:   dA = g B^T, dB = A^T g, transposed back where the
        operand was transposed; batch_matmul's broadcast batch axis is summed back
    nn.bias_add(x, b, axis):  (g, sum of g over every axis but axis)

An ``out_dtype`` other than the operands' dtype has no rule.
"""

from __future__ import annotations

from .....semantics.syntax import Expr
from .common import GradCall, GradRule, collapse_to, op


def _same_dtype(c: GradCall) -> None:
    out_dtype = c.attr("out_dtype")
    if out_dtype not in ("", None, c.dtype(0)):
        raise c.fail(f"out_dtype {out_dtype} differs from the operands' dtype")


def _dense(c: GradCall) -> tuple[Expr | None, Expr | None]:
    _same_dtype(c)
    x, w, g = c.arg(0), c.arg(1), c.grad
    units, k = c.shape(1)
    dx = op("nn.dense", g, op("transpose", w, axes=None), units=k)
    if c.rank(0) != 2:
        g = op("reshape", g, newshape=(-1, units))
        x = op("reshape", x, newshape=(-1, k))
    dw = op("nn.dense", op("transpose", g, axes=None), op("transpose", x, axes=None), units=k)
    return (dx, dw)


def _product(name: str) -> GradRule:
    def rule(c: GradCall) -> tuple[Expr | None, Expr | None]:
        _same_dtype(c)
        if name == "nn.matmul" and (c.rank(0) != 2 or c.rank(1) != 2):
            raise c.fail("its gradient rule needs 2-D operands")
        a, b, g = c.arg(0), c.arg(1), c.grad
        ta, tb = bool(c.attr("transpose_a")), bool(c.attr("transpose_b"))
        extra = {"units": None} if name == "nn.matmul" else {}
        if ta:
            da = op(name, b, g, transpose_a=tb, transpose_b=True, **extra)
        else:
            da = op(name, g, b, transpose_a=False, transpose_b=not tb, **extra)
        if tb:
            db = op(name, g, a, transpose_a=True, transpose_b=ta, **extra)
        else:
            db = op(name, a, g, transpose_a=not ta, transpose_b=False, **extra)
        if name == "nn.batch_matmul":
            return (collapse_to(da, a), collapse_to(db, b))
        return (da, db)

    return rule


def _bias_add(c: GradCall) -> tuple[Expr | None, Expr | None]:
    axis = int(c.attr("axis")) % c.rank(0)  # type: ignore[arg-type]
    return (c.grad, op("sum", c.grad, axis=(axis,), exclude=True))


RULES: dict[str, GradRule] = {
    "nn.dense": _dense,
    "nn.matmul": _product("nn.matmul"),
    "nn.batch_matmul": _product("nn.batch_matmul"),
    "nn.bias_add": _bias_add,
}
