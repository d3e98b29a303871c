"""The broken gradient passes of ``tests/ad_mutants`` (what each breaks: ``MUTANTS``)."""

from __future__ import annotations

from relay.compiler.passes.gradient import RULES, FirstOrderGradient, Gradient, GradRule, ReverseAD
from relay.compiler.passes.gradient.first_order import Tape
from relay.compiler.passes.gradient.higher_order import is_float_tensor, seq
from relay.compiler.passes.gradient.rules import GradCall
from relay.compiler.passes.gradient.rules.broadcast import binary
from relay.compiler.passes.gradient.rules.common import (
    const,
    div,
    mul,
    op,
    sub,
    zeros_like,
)
from relay.compiler.passes.gradient.rules.elementwise import unary
from relay.semantics.syntax import (
    Expr,
    Function,
    If,
    Let,
    RefCreate,
    RefWrite,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    Var,
)


def _with(name: str, rule: GradRule) -> Gradient:
    return Gradient(rules={**RULES, name: rule})


subtract_wrong_sign = _with("subtract", binary(lambda a, b, y, g: (g, g)))


def _multiply(c: GradCall) -> tuple[Expr | None, Expr | None]:
    return (mul(c.grad, c.arg(1)), mul(c.grad, c.arg(0)))


multiply_no_broadcast_reduction = _with("multiply", _multiply)


def _dense(c: GradCall) -> tuple[Expr | None, Expr | None]:
    x, w, g = c.arg(0), c.arg(1), c.grad
    units, k = c.shape(1)
    dx = op("nn.dense", g, op("transpose", w, axes=None), units=k)
    dw = op("nn.dense", op("transpose", x, axes=None), op("transpose", g, axes=None), units=units)
    return (dx, dw)


dense_transposed_weight = _with("nn.dense", _dense)


def _mean(c: GradCall) -> tuple[Expr | None]:
    return (RULES["sum"](c)[0],)


mean_wrong_scale = _with("mean", _mean)


def _softmax(c: GradCall) -> tuple[Expr | None]:
    y = c.out
    return (mul(c.grad, mul(y, sub(const(1, c.dtype()), y))),)


softmax_diagonal_only = _with("nn.softmax", _softmax)

tanh_wrong_derivative = _with("tanh", unary(lambda x, y, g, t: mul(g, sub(const(1, t), y))))


def _transpose(c: GradCall) -> tuple[Expr | None]:
    return (op("transpose", c.grad, axes=c.attr("axes")),)


transpose_not_inverted = _with("transpose", _transpose)

divide_wrong_sign = _with(
    "divide", binary(lambda a, b, y, g: (div(g, b), div(mul(g, a), mul(b, b))))
)


class _WrongBranch(ReverseAD):
    def node(self, e: Expr, bp: Var) -> Expr:
        if isinstance(e, If):
            dead = Var("dead")
            unit = Function((), Tuple(()))
            other = Let(dead, RefCreate(unit), self.expr(e.false_branch, dead))
            return If(self.expr(e.cond, bp), self.expr(e.true_branch, bp), other)
        return super().node(e, bp)


if_wrong_branch = Gradient(translator=_WrongBranch)


class _Overwrite(ReverseAD):
    def accumulate(self, w: Expr, t: Type, grad: Expr, then: Expr) -> Expr:
        if is_float_tensor(t):
            return seq(RefWrite(TupleGetItem(w, 1), grad), then)
        return super().accumulate(w, t, grad, then)


dropped_accumulation = Gradient(translator=_Overwrite)


class _RefCut(ReverseAD):
    def node(self, e: Expr, bp: Var) -> Expr:
        if isinstance(e, RefWrite) and is_float_tensor(self.type_of(e.value)):
            v = Var("v")
            primal = TupleGetItem(v, 0)
            fresh = Tuple((primal, RefCreate(zeros_like(TupleGetItem(v, 0)))))
            return Let(v, self.expr(e.value, bp), RefWrite(self.expr(e.ref, bp), fresh))
        return super().node(e, bp)


ref_cuts_gradient = Gradient(translator=_RefCut)


class _FirstOnly(Tape):
    def contribute(self, x: Var, path: tuple[int, ...], t: Type, grad: Expr) -> None:
        if not isinstance(t, TupleType) and (x, path) in self.parts:
            return
        super().contribute(x, path, t, grad)


first_order_dropped_accumulation = FirstOrderGradient(tape=_FirstOnly)
