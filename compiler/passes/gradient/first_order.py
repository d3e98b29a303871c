"""First-order reverse-mode AD of dataflow graphs (TVM's ``gradient(..., mode="first_order")``).

The entry's body, in A-normal form, must be a dataflow graph: ``let`` bindings of operator
calls, tuples, projections, variables and constants (no ``if``, ``match``, references,
closures or calls of globals: ``higher_order.py`` handles those). The gradient is a static
tape: the forward bindings as they are, then, in reverse order, one binding per adjoint::

    let %y = op(%a, %b);      ...     let %g_y = <sum of y's contributions>;
                                       contributions += rule(op)(%a, %b, %y, %g_y)

A value used several times gets the sum of its contributions; an unused one ``zeros_like``.
The result has no references and no closures, so it fuses and compiles like any graph.
"""

from __future__ import annotations

from collections.abc import Mapping

from ....semantics.errors import PassError
from ....semantics.syntax import (
    Call,
    Constant,
    Expr,
    Function,
    FuncType,
    IRModule,
    Let,
    Op,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    Var,
)
from ....semantics.typing import TypeInfo
from .higher_order import describe, is_float_tensor, lets
from .rules import RULES, ZERO_GRADIENT, GradCall, GradRule, NoGradient
from .rules.common import add, carries_gradient, ones_like, zeros_like

Path = tuple[int, ...]


class Tape:
    """The adjoints of one dataflow graph while the backward bindings are emitted."""

    def __init__(self, info: TypeInfo, rules: Mapping[str, GradRule]) -> None:
        self.info = info
        self.rules = rules
        self.parts: dict[tuple[Var, Path], list[Expr]] = {}
        self.emitted: list[tuple[Var, Expr]] = []

    def bind(self, name: str, e: Expr) -> Var:
        v = Var(name)
        self.emitted.append((v, e))
        return v

    def contribute(self, x: Var, path: Path, t: Type, grad: Expr) -> None:
        """Add ``grad`` (of type ``t``) to the adjoint of ``x`` at ``path``."""
        if not carries_gradient(t):
            return
        if isinstance(t, TupleType):
            g = grad if isinstance(grad, Var) else self.bind("g", grad)
            for i, f in enumerate(t.fields):
                self.contribute(x, (*path, i), f, TupleGetItem(g, i))
            return
        self.parts.setdefault((x, path), []).append(grad)

    def adjoint(self, x: Var, path: Path, t: Type) -> Expr:
        """The sum of the contributions to ``x`` at ``path`` (zeros where there are none)."""
        if isinstance(t, TupleType):
            return Tuple(tuple(self.adjoint(x, (*path, i), f) for i, f in enumerate(t.fields)))
        parts = self.parts.get((x, path), [])
        if not parts:
            primal: Expr = x
            for i in path:
                primal = TupleGetItem(primal, i)
            return zeros_like(primal)
        total = parts[0]
        for p in parts[1:]:
            total = add(total, p)
        return total

    def reached(self, x: Var) -> bool:
        return any(key[0] is x for key in self.parts)

    def backward(self, x: Var, value: Expr) -> None:
        """Emit the adjoint of ``x`` and pass it on to the atoms of ``value``."""
        t = self.info.type_of(value)
        if not carries_gradient(t) or not self.reached(x):
            return
        match value:
            case Var():
                self.contribute(value, (), t, self.adjoint(x, (), t))
            case Constant():
                pass
            case TupleGetItem(Var() as tup, index):
                self.contribute(tup, (index,), t, self.adjoint(x, (), t))
            case Tuple(fields):
                for i, f in enumerate(fields):
                    if isinstance(f, Var):
                        ft = self.info.type_of(f)
                        self.contribute(f, (), ft, self.adjoint(x, (i,), ft))
            case Call(Op() as callee, args):
                self.op_backward(x, value, callee, args, t)
            case _:
                raise not_dataflow(value)

    def op_backward(self, x: Var, call: Call, callee: Op, args: tuple[Expr, ...], t: Type) -> None:
        arg_types = tuple(self.info.type_of(a) for a in args)
        if callee.name in ZERO_GRADIENT or not any(carries_gradient(a) for a in arg_types):
            return
        rule = self.rules.get(callee.name)
        if rule is None:
            raise NoGradient(f"Gradient: no gradient rule for operator {callee.name}",
                             call.span, pass_name="Gradient")  # fmt: skip
        g = self.bind(f"g_{x.name_hint}", self.adjoint(x, (), t))
        grads = rule(GradCall(call, x, g, arg_types, t))
        for i, (a, at) in enumerate(zip(args, arg_types, strict=True)):
            grad = grads[i] if i < len(grads) else None
            if grad is None or not isinstance(a, Var):
                continue
            self.contribute(a, (), at, grad)


def not_dataflow(e: Expr) -> PassError:
    kind = type(e).__name__
    if isinstance(e, Call):
        kind = "a call of " + ("a global" if not isinstance(e.op, Op) else "an operator")
    return PassError(f"Gradient: the first-order mode differentiates dataflow graphs only, "
                     f"found {kind} (use mode=\"higher_order\")", e.span,
                     pass_name="Gradient")  # fmt: skip


def _dataflow(e: Expr) -> bool:
    match e:
        case Var() | Constant():
            return True
        case TupleGetItem(tup):
            return isinstance(tup, Var | Constant)
        case Tuple(fields):
            return all(isinstance(f, Var | Constant) for f in fields)
        case Call(Op(), args):
            return all(isinstance(a, Var | Constant) for a in args)
    return False


def first_order_gradient(
    mod: IRModule,
    info: TypeInfo,
    *,
    entry: str = "main",
    with_cotangent: bool = False,
    rules: Mapping[str, GradRule] = RULES,
    tape_type: type[Tape] = Tape,
) -> IRModule:
    """``mod`` (in A-normal form, ``info`` its types) with ``@entry`` replaced by its
    first-order gradient (``tape_type``: what a broken gradient replaces)."""
    gv = mod.get_global_var(entry)
    fn = mod.functions[gv]
    params = []
    for p in fn.params:
        t = info.expr_types.get(p, p.type_annotation)
        if t is None or not is_float_tensor(t):
            raise PassError(f"Gradient: parameter %{p.name_hint} must be a float tensor, "
                            f"found {describe(t)}", p.span, pass_name="Gradient")  # fmt: skip
        params.append((p, t))
    fn_type = info.globals.get(entry)
    ret = fn_type.ret_type if isinstance(fn_type, FuncType) else fn.ret_type
    if ret is None or not is_float_tensor(ret):
        raise PassError(f"Gradient: @{entry} must return a float tensor, found {describe(ret)}",
                        fn.span, pass_name="Gradient")  # fmt: skip
    forward: list[tuple[Var, Expr]] = []
    e = fn.body
    while isinstance(e, Let):
        if not _dataflow(e.value):
            raise not_dataflow(e.value)
        forward.append((e.var, e.value))
        e = e.body
    if not _dataflow(e):
        raise not_dataflow(e)
    if isinstance(e, Var):
        result = e
    else:
        result = Var("result")
        info.expr_types[result] = info.type_of(e)
        forward.append((result, e))
    tape = tape_type(info, rules)
    dy = Var("dy", ret)
    tape.contribute(result, (), ret, dy if with_cotangent else ones_like(result))
    for x, value in reversed(forward):
        tape.backward(x, value)
    grads = Tuple(tuple(tape.adjoint(p, (), t) for p, t in params))
    body = lets([*forward, *tape.emitted], Tuple((result, grads)))
    new_params = (*fn.params, dy) if with_cotangent else fn.params
    out_type = TupleType((ret, TupleType(tuple(t for _, t in params))))
    new_fn = Function(new_params, body, out_type, span=fn.span)
    return mod.with_function(gv, new_fn)
