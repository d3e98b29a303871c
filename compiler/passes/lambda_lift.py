"""LambdaLift: every local function literal becomes a global function.

TVM's ``LambdaLift`` (``relay/backend/vm/lambda_lift.cc``, a module pass at opt level 1 that
the VM compiler always ran). Every ``fn`` literal inside a global — not the global's own
top-level function, and neither a function marked ``Primitive`` (a fused group) nor anything
inside one — moves to a new global ``@lifted_N`` (a name no global has):

- A function with no free variables and no type variables from an enclosing function, and
  without type parameters of its own, becomes the global itself, and its occurrence becomes
  the global: ``fn (%x) { e }`` ~> ``@lifted_0``, ``def @lifted_0(%x) { e }``.
- Otherwise the global *makes the closure*: its parameters are the free variables (fresh
  binders, annotated with the types inferred for the input) and its body is the function,
  with the free variables renamed to the parameters; the global carries ``Closure=1`` (TVM
  marked the outer, closure-allocating function so; the code generator reads it there), and
  the occurrence becomes the call that allocates the closure::

      fn (%x) { add(%x, %y) }   ~>   @lifted_0(%y)
      def @lifted_0(%y1: int32, Closure=1) -> fn (int32) -> int32 { fn (%x) { add(%x, %y1) } }

  A global is polymorphic over the type variables of enclosing functions that the function
  mentions (in its inferred types, annotations or its free variables' types); a function
  with its own type parameters keeps them on the inner ``fn``, so a let-bound polymorphic
  ``fn [T]`` stays polymorphic (referring to a global would instantiate it). Where no
  captured variable's type mentions such a type variable, nothing at the call would fix its
  instantiation, so the call is bound to a variable annotated with the function's type:
  ``let %closure: fn (T0) -> int32 = @lifted_0(); %closure``.
- A let-bound recursive function ``let %f = fn (..) { .. %f .. }`` does not capture ``%f``:
  each use of ``%f`` inside it becomes ``@lifted_N`` or a new ``@lifted_N(free variables)``
  (every use, not only calls as in TVM, which left a ``%f`` passed as a value unbound).

Nested functions are lifted innermost first, so an outer function captures what its inner
ones' closure calls need. Evaluating ``@lifted_N(%y)`` only builds a closure, so moving it into
the evaluation order in place of the ``fn`` changes no effect.

Sharing. A node shared between the inside of a function literal and the outside is evaluated
once, outside (``semantics.sharing``); moved to another global it would be evaluated on every
call. A global with such a node is first put in A-normal form (``ToANormalForm``), which binds
every shared node by a ``let`` where it is evaluated, so the function captures a variable.

Deliberate differences from TVM: names are ``lifted_N`` rather than a structural hash (and
identical functions are not merged), and a function with free type variables but no free
variables gets the closure form with an empty call ``@lifted_N()`` (TVM returned the bare
global, which then had the wrong type).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from ...semantics.sharing import sharing_plan
from ...semantics.syntax import (
    Call,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Let,
    Type,
    TypeVar,
    Var,
    children,
    post_order,
    type_children,
)
from ...semantics.typing import TypeInfo, infer_types
from ..ir import free_vars, rewrite, rewrite_pairs, with_children
from ..pass_manager import Pass, register_pass
from .inline import has_hole, written_types
from .normal_forms import to_anf


def _nonzero(value: object) -> bool:
    return value is not None and value not in (0, False, "0", "")


def is_primitive(fn: Function) -> bool:
    """Whether ``fn`` is a fused primitive function (a non-zero ``Primitive``)."""
    return _nonzero(fn.attr("Primitive"))


def liftable(root: Function) -> list[Function]:
    """The function literals inside the global function ``root`` that are lifted: not
    ``root`` itself, not a primitive function nor inside one, and not the closure a lifted
    global (``Closure=1``) makes (so that lifting twice changes nothing)."""
    out: list[Function] = []
    body = root.body
    if _nonzero(root.attr("Closure")) and isinstance(body, Function):
        body = body.body
    stack: list[Expr] = [body]
    seen: set[int] = set()
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, Function):
            if is_primitive(e):
                continue
            out.append(e)
        stack.extend(children(e))
    return out


def crosses_a_function(root: Function, lambdas: list[Function]) -> bool:
    """Whether a node shared inside some lambda of ``lambdas`` is evaluated outside it."""
    plan = sharing_plan(root)
    if not plan.shared:
        return False
    for fn in lambdas:
        inside = set(post_order(fn))
        for n in post_order(fn.body):
            if n in plan.shared and plan.scope[n][0] not in inside:
                return True
    return False


def enclosing_type_params(root: Function) -> dict[int, tuple[TypeVar, ...]]:
    """For each function literal inside ``root``: the type parameters of the functions
    around it (``root``'s included), outermost first."""
    out: dict[int, tuple[TypeVar, ...]] = {}
    stack: list[tuple[Expr, tuple[TypeVar, ...]]] = [(root.body, root.type_params)]
    seen: set[int] = set()
    while stack:
        e, tvs = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, Function):
            out[id(e)] = tvs
            tvs = (*tvs, *e.type_params)
        stack.extend((c, tvs) for c in children(e))
    return out


def type_vars_in(types: list[Type]) -> set[str]:
    """The names of the type variables that occur in ``types``."""
    out: set[str] = set()
    stack = list(types)
    while stack:
        t = stack.pop()
        if isinstance(t, TypeVar):
            out.add(t.name)
        stack.extend(type_children(t))
    return out


def _uses_replaced(root: Expr, var: Var, make: _ClosureCall) -> Expr:
    """``root`` with every use of ``var`` replaced by its own new ``make()``."""

    def visit(e: Expr) -> Expr | None:
        kids = children(e)
        if not any(k is var for k in kids):
            return None
        return with_children(e, tuple(make() if k is var else k for k in kids))

    if root is var:
        return make()
    return rewrite(root, visit)


class _ClosureCall:
    """Makes the expression that stands for a lifted function: the global, or a new call of
    it; with ``ascribe``, bound to a variable annotated with that type (``let %f: t = ..;
    %f``), which fixes the instantiation of type parameters that no argument determines."""

    def __init__(
        self,
        gv: GlobalVar,
        args: tuple[Var, ...] | None,
        ascribe: Type | None = None,
        hint: str = "closure",
    ) -> None:
        self.gv = gv
        self.args = args
        self.ascribe = ascribe
        self.hint = hint

    def __call__(self) -> Expr:
        if self.args is None:
            return self.gv
        call = Call(self.gv, self.args)
        if self.ascribe is None:
            return call
        var = Var(self.hint, self.ascribe)
        return Let(var, call, var)


class _Names:
    """Fresh global names ``lifted_N``."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.count = 0

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        while f"lifted_{self.count}" in self.taken:
            self.count += 1
        name = f"lifted_{self.count}"
        self.taken.add(name)
        return name


@dataclass
class _Lifter:
    """Lift the local functions of one global (``root``), given the types of the module."""

    root: Function
    info: TypeInfo
    names: _Names
    lifted: list[tuple[GlobalVar, Function]]

    def run(self) -> Function:
        lambdas = {id(f) for f in liftable(self.root)}
        letrec: dict[int, Var] = {}
        for e in post_order(self.root):
            if isinstance(e, Let) and isinstance(e.value, Function):
                letrec[id(e.value)] = e.var
        scopes = enclosing_type_params(self.root)

        def visit(orig: Expr, rebuilt: Expr) -> Expr | None:
            if id(orig) not in lambdas:
                return None
            assert isinstance(orig, Function) and isinstance(rebuilt, Function)
            return self.lift(orig, rebuilt, letrec.get(id(orig)), scopes[id(orig)])

        out = rewrite_pairs(self.root, visit)
        assert isinstance(out, Function)
        return out

    def var_type(self, v: Var) -> Type | None:
        t = self.info.expr_types.get(v, v.type_annotation)
        return None if t is None or has_hole(t) else t

    def lift(
        self,
        orig: Function,
        fn: Function,
        rec: Var | None,
        in_scope: tuple[TypeVar, ...],
    ) -> Expr:
        """Move ``fn`` (the rebuilt ``orig``) to a new global; the expression that replaces
        it."""
        gv = GlobalVar(next(self.names))
        captured = tuple(v for v in free_vars(fn) if v is not rec)
        mentioned = type_vars_in(
            [t for n in post_order(orig) if (t := self.info.expr_types.get(n)) is not None]
            + written_types(fn)
            + [t for v in captured if (t := self.var_type(v)) is not None]
        )
        own = {tv.name for tv in fn.type_params}
        ftvs: tuple[TypeVar, ...] = tuple(
            dict.fromkeys(tv for tv in in_scope if tv.name in mentioned and tv.name not in own)
        )
        if not captured and not ftvs and not fn.type_params:
            if rec is not None:
                fn = replace(fn, body=_uses_replaced(fn.body, rec, _ClosureCall(gv, None)))
            self.lifted.append((gv, fn))
            return gv
        params = tuple(Var(v.name_hint, self.var_type(v), span=v.span) for v in captured)
        fn_type = self.info.expr_types.get(orig)
        ret = fn_type if fn_type is not None and not has_hole(fn_type) else None
        # A type parameter that no captured variable's type mentions is instantiated by
        # nothing at the call: the call's result is ascribed the function's type.
        determined = type_vars_in([p.type_annotation for p in params if p.type_annotation])
        ascribe = ret if any(tv.name not in determined for tv in ftvs) else None
        hint = rec.name_hint if rec is not None else "closure"
        table = {id(v): p for v, p in zip(captured, params, strict=True)}
        body = rewrite(fn.body, lambda e: table.get(id(e)) if isinstance(e, Var) else None)
        if rec is not None:
            body = _uses_replaced(body, rec, _ClosureCall(gv, params, ascribe, hint))
        inner = replace(fn, body=body)
        self.lifted.append((gv, Function(params, inner, ret, ftvs, (("Closure", 1),))))
        return _ClosureCall(gv, captured, ascribe, hint)()


def lift_module(mod: IRModule) -> IRModule:
    """``mod`` with every local function lifted (see the module docstring)."""
    todo: dict[GlobalVar, Function] = {}
    prepared: dict[GlobalVar, Function] = {}
    for gv, fn in mod.functions.items():
        lambdas = [] if fn.attr("Compiler") is not None or is_primitive(fn) else liftable(fn)
        if lambdas and crosses_a_function(fn, lambdas):
            fn = to_anf(fn)
        prepared[gv] = fn
        if lambdas:
            todo[gv] = fn
    if not todo:
        return mod
    base = IRModule(prepared, mod.type_definitions)
    info = infer_types(base)
    names = _Names({gv.name for gv in mod.functions})
    functions: dict[GlobalVar, Function] = {}
    for gv, fn in prepared.items():
        if gv not in todo:
            functions[gv] = mod.functions[gv]
            continue
        lifted: list[tuple[GlobalVar, Function]] = []
        out = _Lifter(fn, info, names, lifted).run()
        functions.update(lifted)
        functions[gv] = out
    return IRModule(functions, mod.type_definitions)


@register_pass
@dataclass(frozen=True)
class LambdaLift(Pass):
    """Lift every local function literal to a new global function.

    Pre: well-formed and well-typed. Post: same meaning and the same type for every global of
    the input; no function literal is left inside a global except as the body of a lifted
    closure-making global (``Closure=1``) or inside a primitive function; new globals are
    named ``lifted_N`` and type-check on their own.
    """

    opt_level = 1

    def transform(self, mod: IRModule) -> IRModule:
        return lift_module(mod)
